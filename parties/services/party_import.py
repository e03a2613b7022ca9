"""Recreating a party from the file parties.exchange.exports writes: a new party, with new ids, a
new code and new links for every role, and every other column as it was.

Like the export it knows no model by name: it takes the file's tables in the order the export
writes them (parents first; parties.services.party_file reads them in pieces, so memory stays
small whatever the file holds), maps every foreign key from the file's ids to the new rows'
ids, and checks each value with the model field's own rules, a batch of rows at a time. A file
that does not hold together (not JSON, another format or version, a row pointing at a row the
file lacks, a value out of range, a round the rules cannot replay, results that cannot be worked
out) is refused with what is wrong, and nothing is created: it all happens in one transaction.
"""

import bisect
import uuid
from array import array

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, models, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from parties import access, state
from parties.exchange import exports
from parties.models import AccessLink, Correction, LateTap, Party, Player, Round, Table
from parties.party_codes import new_party_code
from parties.party_limits import MAX_PLAYERS
from parties.services import party_file
from parties.services.errors import PartyError
from parties.services.late_tap import late_tap_fields_problem
from parties.translation import readable, rule_error_text
from scoring import RulesError

# Players and tables: twice what a party seats (players who left and late arrivals add rows),
# which keeps the new links and the results worked out at the end within a real party's.
MOST_ROWS = {Player: 2 * MAX_PLAYERS, Table: MAX_PLAYERS}
# Rows of all kinds: that night holds about 125,000. The database work of a file that is
# refused late (it is all rolled back) stays that of a real night's import.
MAX_ROWS = 500_000


class ImportRefused(PartyError):
    """A file that cannot become a party; the message says why, for the person importing it (in
    their language; the names of the file's tables and columns, and of the kinds of rows, the
    models' verbose names, stay as the file and the models give them)."""


def party_import(*, file) -> Party:
    """The new party made from the party file `file` (a binary file object; the view takes
    at most settings.IMPORT_MAX_BYTES), or ImportRefused with nothing created."""
    try:
        return _create(party_file.pieces(file))
    except party_file.FileRefused as error:
        raise ImportRefused(str(error)) from None
    except (IntegrityError, DataError) as error:  # the database's own checks, as rows go in
        raise ImportRefused(
            _("The party file's rows contradict each other (%(error)s).") % {"error": error}
        ) from None


def _check_head(entries):
    """The document's head names this format, in a version this server reads."""
    if entries.get("format") != exports.FORMAT:
        raise ImportRefused(
            _("This is not a Bunco Night party file (its format is not named).")
        )
    version = entries.get("version")
    if type(version) is not int or version < 1:
        raise ImportRefused(_("The party file has no version number."))
    if version > exports.VERSION:
        raise ImportRefused(
            _(
                "The party file is version %(version)s, from a newer Bunco Night; this server "
                "reads up to version %(newest)s."
            )
            % {"version": version, "newest": exports.VERSION}
        )


@transaction.atomic
def _create(pieces):
    """Rows go in a batch at a time, as the file gives them; any refusal rolls it all back."""
    models_by_label = {model._meta.label_lower: model for model, _path in exports.party_models()}
    new_ids = {}  # model -> _IdMap: the file's ids to this server's
    fresh = {}  # the file's unique UUIDs this server holds already -> new ones
    party = table = None
    total = 0
    for piece in pieces:
        if isinstance(piece, party_file.Head):
            _check_head(piece.entries)
        elif isinstance(piece, party_file.Table):
            table = _Table.start(models_by_label, piece, new_ids)
        else:
            total += len(piece.rows)
            if total > MAX_ROWS:
                raise ImportRefused(
                    _("The party file holds more than %(count)s rows.")
                    % {"count": f"{MAX_ROWS:,}"}
                )
            objects = table.take(piece.rows, fresh, party)
            if table.model is Party:
                party = objects[0]
                _check_rules(party)
                _check_language(party)
    if party is None:
        raise ImportRefused(_("A party file holds exactly one party."))
    _issue_links(party)
    _check_replays(party)
    _check_results(party)
    return party


# Columns that files from an earlier version hold and this server no longer keeps: accepted and
# left out. A roll's `made_by_correction` named the correction that entered it; nothing read it
# (the correction's own note and effects say what it entered).
RETIRED_COLUMNS = {"parties.roll": {"made_by_correction"}}


class _IdMap:
    """The file's ids of one model's rows (ascending, as the file must give them) to the ids
    their rows got here: two arrays, 16 bytes a row, where a dict would take ten times that."""

    def __init__(self):
        self.old = array("q")
        self.new = array("q")

    def add(self, old, new):
        self.old.append(old)
        self.new.append(new)

    def get(self, old):
        place = bisect.bisect_left(self.old, old)
        if place < len(self.old) and self.old[place] == old:
            return self.new[place]
        return None

    def at_or_before(self, old):
        """The new id of the last row whose file id is at most `old`, 0 when there is none."""
        place = bisect.bisect_right(self.old, old)
        return self.new[place - 1] if place else 0


class _Table:
    """One model's table of the file, its rows checked and saved a batch at a time."""

    @classmethod
    def start(cls, models_by_label, piece, new_ids):
        model = models_by_label.get(piece.label)
        if model is None:
            raise ImportRefused(
                _("The party file holds %(label)s, which this server does not know.")
                % {"label": piece.label}
            )
        if model in new_ids:
            raise ImportRefused(
                _("The party file holds %(label)s twice.") % {"label": piece.label}
            )
        waiting = [m for m in new_ids if model in exports.depends_on(m)]
        if waiting:
            raise ImportRefused(
                # Translators: both are kinds of rows, e.g. "rolls" and "rounds".
                _("The party file lists %(rows)s before the %(parents)s they point at.")
                % {
                    "rows": waiting[0]._meta.verbose_name_plural,
                    "parents": model._meta.verbose_name_plural,
                }
            )
        new_ids[model] = _IdMap()
        return cls(model, piece.columns, new_ids)

    def __init__(self, model, columns, new_ids):
        self.model = model
        self.columns = columns
        self.new_ids = new_ids
        self.name = model._meta.verbose_name_plural
        fields = {exports.column_name(f) for f in exports.exported_fields(model)}
        fields |= RETIRED_COLUMNS.get(model._meta.label_lower, set())  # read, then left out
        strange = [c for c in columns if c not in fields]
        if strange or "id" not in columns or len(set(columns)) != len(columns):
            raise ImportRefused(
                _(
                    "The party file's %(rows)s have columns this server does not know or "
                    "lacks: %(columns)s."
                )
                % {"rows": self.name, "columns": ", ".join(strange) or "id"}
            )
        self.last_id = None

    def take(self, raw_rows, fresh, party):
        """Check and save a batch of rows; the saved instances."""
        if self.model is Party and (len(raw_rows) != 1 or self.new_ids[Party].old):
            raise ImportRefused(_("A party file holds exactly one party."))
        ids = self.new_ids[self.model]
        most = MOST_ROWS.get(self.model)
        if most is not None and len(ids.old) + len(raw_rows) > most:
            raise ImportRefused(
                _("The party file holds more %(rows)s than a party has.") % {"rows": self.name}
            )
        rows = self._rows(raw_rows)
        _map_fresh_uuids(self.model, rows, fresh, party)
        objects = [_instance(self.model, row, self.new_ids, fresh, party) for row in rows]
        _insert(self.model, objects)
        for row, obj in zip(rows, objects, strict=True):
            ids.add(row["id"], obj.pk)
        self._own_row_ids(rows, objects, ids)
        return objects

    def _own_row_ids(self, rows, objects, ids):
        """Columns naming an earlier row of the same table (a corrected roll's place), set
        once the rows they name, this batch's included, have their new ids."""
        for field in exports.exported_fields(self.model):
            if not _names_own_rows(field):
                continue
            name = exports.column_name(field)
            named = [(row[name], obj) for row, obj in zip(rows, objects, strict=True)
                     if row.get(name) is not None]
            for raw, obj in named:
                setattr(obj, field.attname, ids.at_or_before(raw))
            if named:
                self.model.objects.bulk_update([obj for _raw, obj in named], [field.attname])

    def _rows(self, raw_rows):
        """The batch's rows, each a dict by column name; their ids must rise through the file
        (the order rolls are replayed in, and the order the export writes)."""
        width = len(self.columns)
        if any(not isinstance(row, list) or len(row) != width for row in raw_rows):
            raise ImportRefused(
                _("The party file's %(rows)s are not rows of %(count)s values.")
                % {"rows": self.name, "count": width}
            )
        rows = [dict(zip(self.columns, row, strict=True)) for row in raw_rows]
        for row in rows:
            id_ = row["id"]
            if type(id_) is not int or not 0 < id_ < 2**63:
                raise ImportRefused(
                    _("The party file's %(rows)s need an id each, a number.")
                    % {"rows": self.name}
                )
            if self.last_id is not None and id_ <= self.last_id:
                raise ImportRefused(
                    _(
                        "The party file's %(rows)s are not in the order of their ids, each a "
                        "different number."
                    )
                    % {"rows": self.name}
                )
            self.last_id = id_
        return rows


def _instance(model, row, new_ids, fresh, party):
    """The row as an unsaved model instance, every value checked by its field."""
    what = f"{model._meta.verbose_name.capitalize()} {row['id']}"  # "Roll 12"
    values = {}
    for field in exports.exported_fields(model)[1:]:  # a new id is made for every row
        name = exports.column_name(field)
        if name not in row:
            if field.is_relation and not field.null:
                raise ImportRefused(_("%(row)s has no %(column)s.") % {"row": what, "column": name})
            continue  # a column the file predates: the field's default
        raw = row[name]
        if field.is_relation:
            values[field.attname] = _parent_id(what, field, raw, new_ids)
        elif _names_own_rows(field):
            _own_row_id(what, field, raw, row["id"])  # checked now, set once the batch is in
        elif (model._meta.label_lower, field.name) in exports.ROW_ID_FIELDS:
            values[field.attname] = _row_id(what, field, raw, new_ids)
        else:
            try:
                value = field.to_python(raw)
            except ValidationError as error:
                raise ImportRefused(f"{what}: {name}: {' '.join(error.messages)}") from None
            except (TypeError, ValueError, OverflowError, ArithmeticError):
                raise ImportRefused(
                    _("%(row)s: %(column)s: %(value)s is not a value it holds.")
                    % {"row": what, "column": name, "value": str(raw)[:40]}
                ) from None
            values[field.attname] = fresh.get(value, value) if _global_uuid(field) else value
    if model is Party:
        values["code"] = new_party_code()  # checked free when it is saved
    instance = model(**values)
    try:
        instance.clean_fields(exclude=[f.name for f in model._meta.fields if f.is_relation])
    except ValidationError as error:
        problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())
        raise ImportRefused(f"{what}: {problems}") from None
    except (TypeError, ValueError, OverflowError, ArithmeticError):
        raise ImportRefused(
            _("%(row)s holds a value its columns cannot.") % {"row": what}
        ) from None
    problem = _row_problem(instance, party)
    if problem:
        raise ImportRefused(f"{what}: {problem}")
    return instance


# The columns whose words are kept as message ids and values (parties.translation.later).
KEPT_WORDS = {Correction: "effect_messages", LateTap: "description_messages"}


def _row_problem(instance, party):
    """What is wrong with a row beyond its columns' own rules, or None: a late tap's roll, and
    kept words that could not be worded (a page would fail to show them)."""
    model = type(instance)
    if model is LateTap:
        problem = late_tap_fields_problem(
            instance.fields, party.rules, pending=instance.status == LateTap.Status.PENDING
        )
        if problem:
            return problem
    if model in KEPT_WORDS and not readable(getattr(instance, KEPT_WORDS[model])):
        return _("its words are not in a form this server can show.")
    return None


def _parent_id(what, field, raw, new_ids):
    if raw is None:
        if field.null:
            return None
        raise ImportRefused(
            _("%(row)s has no %(column)s.") % {"row": what, "column": field.name}
        )
    parent = field.related_model
    ids = new_ids.get(parent)
    found = ids.get(raw) if ids is not None and type(raw) is int else None
    if found is None:
        raise ImportRefused(
            # Translators: "row" is a row of the file, e.g. "Roll 12"; "parent" a kind of row.
            _("%(row)s points at %(parent)s %(id)s, which the file does not hold.")
            % {"row": what, "parent": parent._meta.verbose_name, "id": str(raw)[:20]}
        )
    return found


def _names_own_rows(field):
    target = exports.ROW_ID_FIELDS.get((field.model._meta.label_lower, field.name))
    return target == field.model._meta.label_lower


def _own_row_id(what, field, raw, own_id):
    """A column naming an earlier row of its own table, or nothing where it may be empty."""
    if raw is None and field.null:
        return
    if type(raw) is not int or not 0 < raw < own_id:
        raise ImportRefused(
            _("%(row)s: %(column)s is not an earlier row's id.")
            % {"row": what, "column": field.name}
        )


def _row_id(what, field, raw, new_ids):
    """A plain column naming a row "at or before" it (exports.ROW_ID_FIELDS): the new id of the
    file's last such row up to `raw`, 0 when there is none, so the order holds."""
    if type(raw) is not int or raw < 0:
        raise ImportRefused(
            _("%(row)s: %(column)s is not a row id.") % {"row": what, "column": field.name}
        )
    label = exports.ROW_ID_FIELDS[(field.model._meta.label_lower, field.name)]
    ids = next((ids for m, ids in new_ids.items() if m._meta.label_lower == label), None)
    return ids.at_or_before(raw) if ids is not None else 0


def _global_uuid(field):
    return isinstance(field, models.UUIDField) and field.unique


def _global_uuid_columns():
    """Every (model, field, path to its party) of a UUID unique across all parties."""
    return [
        (model, field, path)
        for model, path in exports.party_models()
        for field in model._meta.concrete_fields
        if _global_uuid(field)
    ]


def _map_fresh_uuids(model, rows, fresh, party):
    """Give the batch's unique UUIDs this server holds already (the file was exported from
    here, or imported before) new values, in `fresh`: a phone's tap id is unique across every
    party. One map for every such column, so a late tap and the roll it became still share
    theirs; rows this import wrote are not a clash."""
    for field in model._meta.concrete_fields:
        if not _global_uuid(field):
            continue
        values = []
        for row in rows:
            try:
                values.append(uuid.UUID(str(row.get(exports.column_name(field)))))
            except ValueError:
                pass  # _instance says what is wrong with it
        values = [v for v in values if v not in fresh]
        if not values:
            continue
        for other, other_field, path in _global_uuid_columns():
            held = other._base_manager.filter(**{f"{other_field.attname}__in": values})
            if party is not None:
                held = held.exclude(**{path: party.pk})
            for value in held.values_list(other_field.attname, flat=True):
                fresh[value] = uuid.uuid4()


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
    raise ImportRefused(_("Could not find a free party code; try again."))  # pragma: no cover


def _check_rules(party):
    try:
        if not isinstance(party.options, dict):
            raise RulesError(gettext_noop("the options are not a JSON object"))
        party.rules  # noqa: B018 - scoring.Rules checks every option and their combinations
    except (RulesError, TypeError, ValueError) as error:
        raise ImportRefused(
            _("The party's rules cannot be played: %(problem)s")
            % {"problem": rule_error_text(error)}
        ) from None


def _check_language(party):
    if party.language not in dict(settings.LANGUAGES):
        raise ImportRefused(
            _("The party prints in “%(language)s”, a language this server does not speak.")
            % {"language": party.language[:8]}
        )


def _check_replays(party):
    """Every round played replays by the party's rules, as its pages will replay it."""
    rules = party.rules
    rounds = Round.objects.filter(party=party).exclude(status=Round.Status.WAITING)
    for round_ in rounds.select_related("bunco_set"):
        try:
            state.load(round_, rules, written=True)  # remembered only if the import commits
        except (ValueError, IndexError, KeyError, TypeError) as error:
            raise ImportRefused(
                _("Set %(set)s, round %(round)s does not replay by the party's rules: %(problem)s")
                % {
                    "set": round_.bunco_set.number,
                    "round": round_.number,
                    "problem": rule_error_text(error),
                }
            ) from None


def _check_results(party):
    """The results page's reads (standings, prizes, roll-offs, the pot) work on the new party."""
    try:
        exports.standings_table(party)
    except (ValueError, TypeError, KeyError, IndexError) as error:
        raise ImportRefused(
            _("The party's results cannot be worked out: %(problem)s")
            % {"problem": rule_error_text(error)}
        ) from None


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
