"""Recreating a party from the file parties.exports writes: a new party, with new ids, a new
code and new links for every role, and every other column as it was.

Like the export it knows no model by name: it reads the rows of each of `exports.party_models()`
in order (parents first), maps every foreign key from the file's ids to the new rows' ids, and
checks each value with the model field's own rules. A file that does not hold together (not
JSON, another format or version, a row pointing at a row the file lacks, a value out of range,
a round the rules cannot replay, results that cannot be worked out) is refused with what is
wrong, and nothing is created: it all happens in one transaction.
"""

import bisect
import json
import uuid

from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, models, transaction

from parties import access, exports, state
from parties.models import AccessLink, Party, Round
from parties.party_codes import new_party_code
from parties.services.errors import PartyError
from scoring import RulesError

# A night of 60 players over 4 sets is about 30,000 rolls, some 4 MB in this file; the largest
# the app seats, 400 players (services.party.MAX_PLAYERS), plays about 200,000 rolls in 4 sets, some
# 27 MB. 40 MB leaves room, and keeps a stray upload from filling the server.
MAX_BYTES = 40 * 1024 * 1024


class ImportRefused(PartyError):
    """A file that cannot become a party; the message says why, for the person importing it."""


def document_from_bytes(data: bytes) -> dict:
    """The party file's document, once it is plainly one this server can read."""
    if len(data) > MAX_BYTES:
        raise ImportRefused(f"The file is larger than {MAX_BYTES // (1024 * 1024)} MB.")
    try:
        text = data.decode("utf-8-sig")  # an editor may have added a byte-order mark
        document = json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ImportRefused("This is not a party file: it is not JSON text.") from None
    if not isinstance(document, dict) or document.get("format") != exports.FORMAT:
        raise ImportRefused("This is not a Bunco Night party file (its format is not named).")
    version = document.get("version")
    if type(version) is not int or version < 1:
        raise ImportRefused("The party file has no version number.")
    if version > exports.VERSION:
        raise ImportRefused(
            f"The party file is version {version}, from a newer Bunco Night; this server reads "
            f"up to version {exports.VERSION}."
        )
    return document


def _no_constant(name):
    raise ValueError(f"{name} is not a number JSON holds")


def party_import(*, document: dict) -> Party:
    """The new party made from `document` (see document_from_bytes), or ImportRefused with
    nothing created."""
    try:
        return _create(document)
    except (IntegrityError, DataError) as error:  # the database's own checks, as rows go in
        raise ImportRefused(f"The party file's rows contradict each other ({error}).") from None


@transaction.atomic
def _create(document):
    tables = document.get("models")
    if not isinstance(tables, dict):
        raise ImportRefused("The party file holds no rows.")
    known = {model._meta.label_lower for model, _path in exports.party_models()}
    unknown = sorted(set(tables) - known)
    if unknown:
        raise ImportRefused(
            f"The party file holds {', '.join(unknown)}, which this server does not know."
        )
    read = {
        model: _rows(model, tables.get(model._meta.label_lower))
        for model, _path in exports.party_models()
    }
    fresh = _fresh_uuids(read)
    new_ids = {}  # model -> {id in the file: id here}
    party = None
    for model, rows in read.items():
        objects = [_instance(model, row, new_ids, fresh) for row in rows]
        if model is Party:
            if len(objects) != 1:
                raise ImportRefused("A party file holds exactly one party.")
            party = objects[0]
            _check_rules(party)
        _insert(model, objects)
        new_ids[model] = {row["id"]: obj.pk for row, obj in zip(rows, objects, strict=True)}
    _issue_links(party)
    _check_replays(party)
    _check_results(party)
    return party


# Columns that files from an earlier version hold and this server no longer keeps: accepted and
# left out. A roll's `made_by_correction` named the correction that entered it; nothing read it
# (the correction's own note and effects say what it entered).
RETIRED_COLUMNS = {"parties.roll": {"made_by_correction"}}


def _rows(model, table):
    """The model's rows in the file, each a dict by column name, in id order (the order rolls
    are replayed in). A model the file has no table for has no rows (a file from before it)."""
    if table is None:
        return []
    name = model._meta.verbose_name_plural
    columns = table.get("columns") if isinstance(table, dict) else None
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ImportRefused(f"The party file's {name} have no column names.")
    fields = {exports.column_name(f) for f in exports.exported_fields(model)}
    fields |= RETIRED_COLUMNS.get(model._meta.label_lower, set())  # read, then left out
    strange = [c for c in columns if c not in fields]
    if strange or "id" not in columns or len(set(columns)) != len(columns):
        raise ImportRefused(
            f"The party file's {name} have columns this server does not know or lacks: "
            f"{', '.join(strange) or 'id'}."
        )
    rows = table.get("rows")
    if not isinstance(rows, list) or any(
        not isinstance(row, list) or len(row) != len(columns) for row in rows
    ):
        raise ImportRefused(f"The party file's {name} are not rows of {len(columns)} values.")
    rows = [dict(zip(columns, row, strict=True)) for row in rows]
    ids = [row["id"] for row in rows]
    if any(type(i) is not int for i in ids) or len(set(ids)) != len(ids):
        raise ImportRefused(f"The party file's {name} need an id each, a different number.")
    return sorted(rows, key=lambda row: row["id"])


def _instance(model, row, new_ids, fresh):
    """The row as an unsaved model instance, every value checked by its field."""
    what = f"{model._meta.verbose_name.capitalize()} {row['id']}"
    values = {}
    for field in exports.exported_fields(model)[1:]:  # a new id is made for every row
        name = exports.column_name(field)
        if name not in row:
            if field.is_relation and not field.null:
                raise ImportRefused(f"{what} has no {name}.")
            continue  # a column the file predates: the field's default
        raw = row[name]
        if field.is_relation:
            values[field.attname] = _parent_id(what, field, raw, new_ids)
        elif (model._meta.label_lower, field.name) in exports.ROW_ID_FIELDS:
            values[field.attname] = _row_id(what, field, raw, new_ids)
        else:
            try:
                value = field.to_python(raw)
            except ValidationError as error:
                raise ImportRefused(f"{what}: {name}: {' '.join(error.messages)}") from None
            values[field.attname] = fresh.get(value, value) if _global_uuid(field) else value
    if model is Party:
        values["code"] = new_party_code()  # checked free when it is saved
    instance = model(**values)
    try:
        instance.clean_fields(exclude=[f.name for f in model._meta.fields if f.is_relation])
    except ValidationError as error:
        problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())
        raise ImportRefused(f"{what}: {problems}") from None
    return instance


def _parent_id(what, field, raw, new_ids):
    if raw is None:
        if field.null:
            return None
        raise ImportRefused(f"{what} has no {field.name}.")
    parent = field.related_model
    ids = new_ids.get(parent, {})
    if type(raw) is not int or raw not in ids:
        raise ImportRefused(
            f"{what} points at {parent._meta.verbose_name} {raw}, which the file does not hold."
        )
    return ids[raw]


def _row_id(what, field, raw, new_ids):
    """A plain column naming a row "at or before" it (exports.ROW_ID_FIELDS): the new id of the
    file's last such row up to `raw`, 0 when there is none, so the order holds."""
    if type(raw) is not int or raw < 0:
        raise ImportRefused(f"{what}: {field.name} is not a row id.")
    label = exports.ROW_ID_FIELDS[(field.model._meta.label_lower, field.name)]
    ids = next((ids for m, ids in new_ids.items() if m._meta.label_lower == label), {})
    old = sorted(ids)
    place = bisect.bisect_right(old, raw)
    return ids[old[place - 1]] if place else 0


def _global_uuid(field):
    return isinstance(field, models.UUIDField) and field.unique


def _fresh_uuids(read):
    """New values for the file's unique UUIDs this server holds already (the file was exported
    from here, or imported before): a phone's tap id is unique across every party. One map for
    every such column, so a late tap and the roll it became still share theirs."""
    taken = set()
    for model, rows in read.items():
        for field in model._meta.concrete_fields:
            name = exports.column_name(field)
            if not _global_uuid(field):
                continue
            values = []
            for row in rows:
                try:
                    values.append(uuid.UUID(str(row.get(name))))
                except ValueError:
                    pass  # _instance says what is wrong with it
            for start in range(0, len(values), 500):
                chunk = values[start : start + 500]
                held = model._base_manager.filter(**{f"{field.attname}__in": chunk})
                taken.update(held.values_list(field.attname, flat=True))
    return {value: uuid.uuid4() for value in taken}


def _insert(model, objects):
    """Save the rows; keep the times the file gives for fields Django stamps on every insert
    (`auto_now_add`), which saving alone would set to now."""
    stamped = [
        f
        for f in model._meta.concrete_fields
        if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
    ]
    kept = [[getattr(obj, f.attname) for f in stamped] for obj in objects]
    if model is Party:
        _save_with_free_code(objects[0])
    else:
        model._base_manager.bulk_create(objects, batch_size=500)
    if stamped:
        for obj, values in zip(objects, kept, strict=True):
            for field, value in zip(stamped, values, strict=True):
                if value is not None:
                    setattr(obj, field.attname, value)
        model._base_manager.bulk_update(objects, [f.name for f in stamped], batch_size=500)


def _save_with_free_code(party):
    for _attempt in range(5):
        try:
            with transaction.atomic():
                party.save()
            return
        except IntegrityError:  # the random code was taken; draw again
            party.code = new_party_code()
    raise ImportRefused("Could not find a free party code; try again.")  # pragma: no cover


def _check_rules(party):
    try:
        if not isinstance(party.options, dict):
            raise RulesError("the options are not a JSON object")
        party.rules  # noqa: B018 - scoring.Rules checks every option and their combinations
    except (RulesError, TypeError, ValueError) as error:
        raise ImportRefused(f"The party's rules cannot be played: {error}") from None


def _check_replays(party):
    """Every round played replays by the party's rules, as its pages will replay it."""
    rules = party.rules
    rounds = Round.objects.filter(party=party).exclude(status=Round.Status.WAITING)
    for round_ in rounds.select_related("bunco_set"):
        try:
            state.load(round_, rules, written=True)  # remembered only if the import commits
        except (ValueError, IndexError, KeyError, TypeError) as error:
            raise ImportRefused(
                f"Set {round_.bunco_set.number}, round {round_.number} does not replay by "
                f"the party's rules: {error}"
            ) from None


def _check_results(party):
    """The results page's reads (standings, prizes, roll-offs, the pot) work on the new party."""
    try:
        exports.standings_table(party)
    except (ValueError, TypeError, KeyError, IndexError) as error:
        raise ImportRefused(f"The party's results cannot be worked out: {error}") from None


def _issue_links(party):
    """New links for every role, as a new party gets them: the host, each table, each player."""
    links = [AccessLink(party=party, role=AccessLink.Role.HOST)]
    links += [
        AccessLink(party=party, role=AccessLink.Role.TABLE, table=table)
        for table in party.tables.all()
    ]
    links += [
        AccessLink(party=party, role=AccessLink.Role.PLAYER, player=player)
        for player in party.players.filter(is_ghost=False)
    ]
    AccessLink.objects.bulk_create(access.new_salted(link) for link in links)
