"""A party taken out of the app: its standings and its rolls as CSV for a spreadsheet, and the
whole party as one JSON document that parties.services.party_import recreates on another server.

The JSON is written from the models' own description (`_meta`), not from a list kept here: every
model that hangs off a party and every concrete field of it goes into the file, so a field or a
model added later travels without a change here. What stays out is named below, with why.
"""

import csv
import datetime
import functools
import io
import re
import unicodedata
import uuid
from decimal import Decimal
from urllib.parse import quote

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from parties import selectors, state
from parties.models import Correction, Party, Roll
from parties.pages.pot import pot_view
from parties.services.changes import lock_party
from parties.translation import correction_effects, player_name, who_text
from scoring import score_roll
from scoring.party import standing
from scoring.quick import entry_words

FORMAT = "bunco-night-party"
VERSION = 1

# Models that hang off a party but stay out of the file. Links are capabilities: copied with
# their salts and hashes, every link of the old party (printed cards, phones' histories) would
# open the copy too, and the salts with the old server's secret key give every token. The
# importing server issues new links for every role instead. (Sessions are not a party's rows.)
NOT_EXPORTED = {
    "parties.accesslink": "capability links: the importing server issues new ones for every role",
    # A guest waits on one server, known by a secret in a session there; those who were seated
    # or merged are players, and travel as players.
    "parties.waitingguest": "guests waiting: each phone's secret lives in this server's sessions",
}
# Fields that stay out for the same reason. The party code lets anyone read the party; the new
# party gets a code of its own (and two copies of one party could not share it anyway).
NOT_EXPORTED_FIELDS = {
    "parties.party": {"code"},
}
# Plain integer columns that hold another row's id, where a ForeignKey would not do: the bell's
# place among the rolls ("after roll N", 0 before any). The import maps them like a foreign key.
ROW_ID_FIELDS = {
    ("parties.roundbell", "after_roll_id"): "parties.roll",
    ("parties.roll", "place"): "parties.roll",
}


# -- which rows are a party's --------------------------------------------------------------------


@functools.cache
def party_models():
    """Every model whose rows belong to one party (reached by foreign keys from Party, in any
    app, through tables of many-to-many fields included) with the lookup from its rows to
    their party, parents before children so rows can be created in this order. NOT_EXPORTED
    is left out, and so is anything reached only through it."""
    members = {Party}
    grown = True
    while grown:
        grown = False
        for model in apps.get_models(include_auto_created=True):
            if model in members or model._meta.label_lower in NOT_EXPORTED:
                continue
            if any(field.related_model in members for field in _links(model)):
                members.add(model)
                grown = True
    paths = {Party: "pk"}
    while len(paths) < len(members):
        for model in sorted(members - set(paths), key=lambda m: m._meta.label_lower):
            # A required link finds every row; a nullable one only the rows that use it. So a
            # model with a required link waits until that link's parent has its path, however
            # the loop meets the models (a roll must not be found through `voided_by`).
            links = [f for f in _links(model) if f.related_model in members]
            usable = [f for f in [f for f in links if not f.null] or links
                      if f.related_model in paths]
            if usable:
                parent = usable[0].related_model
                name = usable[0].name
                paths[model] = name if parent is Party else f"{name}__{paths[parent]}"
    for model in members:
        if not isinstance(model._meta.pk, models.AutoField):
            raise ImproperlyConfigured(f"{model._meta.label} needs an automatic id to be exported")
    return tuple((model, paths[model]) for model in _parents_first(members))


def _links(model):
    """The model's foreign keys (and one-to-one keys)."""
    return [
        field
        for field in model._meta.concrete_fields
        if field.is_relation and (field.many_to_one or field.one_to_one)
    ]


def _parents_first(members):
    """`members` in the order their rows can be created: a row's parents exist before it (ties
    in the order models are defined, so the file's layout stays put)."""
    waiting = [m for m in apps.get_models(include_auto_created=True) if m in members]
    ordered = []
    while waiting:
        ready = [m for m in waiting if not depends_on(m) & set(waiting)]
        if not ready:  # a cycle (or a row pointing at its own model) needs two passes to insert
            names = ", ".join(m._meta.label for m in waiting)
            raise ImproperlyConfigured(f"the party's models refer to each other: {names}")
        ordered += ready
        waiting = [m for m in waiting if m not in ready]
    return ordered


def depends_on(model):
    """The models whose rows a row of `model` names: by foreign key, or by a ROW_ID_FIELDS
    column (whose rows must be in place first, for the import to map it). A column naming an
    earlier row of its own table (a corrected roll's place) is set after its batch is in."""
    label = model._meta.label_lower
    named = {apps.get_model(target) for (of, _f), target in ROW_ID_FIELDS.items() if of == label}
    return ({field.related_model for field in _links(model)} | named) - {model}


def exported_fields(model):
    """The model's concrete fields that go into the file, its id first."""
    left_out = NOT_EXPORTED_FIELDS.get(model._meta.label_lower, set())
    fields = model._meta.concrete_fields
    return [model._meta.pk, *(f for f in fields if f.name not in left_out and not f.primary_key)]


def column_name(field):
    # The id is "id" whatever the model names it; a foreign key holds the parent row's id.
    return "id" if field.primary_key else field.name


def party_rows(model, path, party_id):
    return model._base_manager.filter(**{path: party_id}).order_by("pk")


# -- the whole party as JSON ----------------------------------------------------------------------


def party_document(party: Party) -> dict:
    """Everything needed to recreate the party: per model, its columns and its rows, in id order
    (the order rolls are replayed in). Read under the party's lock, so no write lands between
    two of its reads and the file is one moment of the party."""
    with transaction.atomic():
        lock_party(party)
        tables = {}
        for model, path in party_models():
            fields = exported_fields(model)
            rows = party_rows(model, path, party.pk).values_list(*(f.attname for f in fields))
            tables[model._meta.label_lower] = {
                "columns": [column_name(f) for f in fields],
                "rows": [[_plain(value) for value in row] for row in rows],
            }
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "party_name": party.name,  # for a person opening the file; the import reads the rows
        "models": tables,
    }


def _plain(value):
    """A column's value as JSON holds it: dates and times in ISO 8601 (to the microsecond, so
    a re-export is the same file), UUIDs and decimals as text, JSON fields as they are."""
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID | Decimal):
        return str(value)
    return value


# -- CSV for spreadsheets -------------------------------------------------------------------------

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(cell):
    """A cell a spreadsheet shows as text, never runs: text that starts like a formula gets a
    leading apostrophe (OWASP's CSV injection advice). Numbers stay numbers."""
    if cell is None:
        return ""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def csv_bytes(header, rows) -> bytes:
    """UTF-8 with a byte-order mark (without it Excel reads the names as Windows-1252) and the
    csv module's CRLF rows, which Excel, Numbers and LibreOffice all open as they are."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([neutralised(cell) for cell in header])
    writer.writerows([neutralised(cell) for cell in row] for row in rows)
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def _when(moment):
    return timezone.localtime(moment).isoformat(timespec="seconds") if moment else ""


def _yes(flag):
    return _("yes") if flag else _("no")


# The CSV files' headers and words are for people, in the reader's language: no import reads
# these files back (the party file is the JSON). A standings file given to the create form as a
# list of names finds its names under the English "Player" only (parties.exchange.player_csv).
STANDINGS_HEADER = [
    gettext_lazy("Rank"), gettext_lazy("Player"), gettext_lazy("Wins"), gettext_lazy("Losses"),
    gettext_lazy("Buncos"), gettext_lazy("Mini Buncos"), gettext_lazy("Points"),
    gettext_lazy("Prizes won"),
]


CENT = Decimal("0.01")


def standings_table(party: Party):
    """The results page's standings, in its order, with each player's rank (players equal on
    what ranks them share it), the prizes they won (or are tied for, before the roll-off), and
    what they take home when the night has a pot."""
    rows, prizes = selectors.party_results(party)
    rules = party.rules
    won = {}
    for prize in prizes:
        if prize.circuit is not None:
            label = _("%(prize)s (tie: roll-off)") % {"prize": prize.label}
        elif len(prize.winners) > 1:
            label = _("%(prize)s (shared)") % {"prize": prize.label}
        else:
            label = prize.label
        for player_id, _name in prize.winners:
            won.setdefault(player_id, []).append(label)
    pot = pot_view(party, prizes)
    # The pot's amounts as numbers ("1234.50", whatever the reader's language), so a spreadsheet
    # adds them; the column's heading names the currency.
    takes = {
        name: (Decimal(cents) / 100).quantize(CENT) for name, cents in pot.take_home_cents.items()
    }
    taken = _("Takes home (%(currency)s)") % {"currency": pot.currency}
    header = [str(h) for h in STANDINGS_HEADER] + ([taken] if pot.on else [])
    table, rank, previous = [], 0, None
    for place, row in enumerate(rows, start=1):
        key = standing(row.sheet, rules)
        if key != previous:
            rank, previous = place, key
        sheet = row.sheet
        line = [
            rank, row.name, sheet.wins, sheet.losses, sheet.buncos, sheet.mini_buncos,
            sheet.points, "; ".join(won.get(row.player_id, [])),
        ]
        table.append(line + ([takes.get(row.name, Decimal("0.00"))] if pot.on else []))
    return header, table


ROLLS_HEADER = [
    gettext_lazy("Set"), gettext_lazy("Round"), gettext_lazy("Table"), gettext_lazy("Roller"),
    gettext_lazy("Dice or entry"), gettext_lazy("Points"), gettext_lazy("Bunco or mini"),
    gettext_lazy("Called"), gettext_lazy("When"), gettext_lazy("Entered after the bell"),
    gettext_lazy("Roll-off"), gettext_lazy("Voided"), gettext_lazy("Voided by"),
    gettext_lazy("Entered by"), gettext_lazy("Entered at"), gettext_lazy("Tap id"),
]
# "When": a roll made before the round's bell, or after it while the turn in hand finishes.
BEFORE_BELL, AFTER_BELL = gettext_lazy("before the bell"), gettext_lazy("after the bell")
KIND_WORDS = {"bunco": pgettext_lazy("a roll", "Bunco"), "mini_bunco": gettext_lazy("mini Bunco")}


def rolls_table(party: Party):
    """Every roll of the party as it was entered, voided ones too, round by round in the order
    they were rolled (a correction's roll in the place of the roll it corrected)."""
    rules = party.rules
    rolls = (
        Roll.objects.filter(round__party=party)
        .select_related("round__bunco_set", "table", "roller", "voided_by")
        .order_by("round__bunco_set__number", "round__number", *state.replay_order())
    )
    asked = {kind for kind, must in (("bunco", rules.bunco_must_be_called),
                                     ("mini_bunco", rules.mini_bunco_must_be_called)) if must}
    table = []
    kinds = {kind: str(words) for kind, words in KIND_WORDS.items()}
    for roll in rolls:
        score = roll_score(roll, rules)
        table.append([
            roll.round.bunco_set.number,
            roll.round.number,
            roll.table.number,
            player_name(roll.roller.name, roll.roller.is_ghost),
            entry_words(roll.outcome, roll.face, roll.dice, gettext=_),
            score.points if score else "",
            kinds.get(score.kind, "") if score else "",
            _yes(roll.called) if score and score.kind in asked else "",  # only where asked
            _when_rolled(roll),
            _yes(roll.before_bell),  # made before the bell on a phone that heard it late
            _yes(roll.phase == Roll.Phase.ROLLOFF),
            _yes(roll.voided_by_id),
            correction_words(roll.voided_by) if roll.voided_by else "",
            who_text(roll.entered_by),
            _when(roll.created_at),
            str(roll.tap_id),
        ])
    return [str(h) for h in ROLLS_HEADER], table


def _when_rolled(roll):
    """Before the round's bell or after it (the turns in hand finishing); "" for a roll-off,
    and in a round with no bell (each table playing to the end on its own). The bell is saved
    with the time of the tap or press that rang it, a corrected roll keeps its first time, and
    a roll made before the bell but entered after it says so."""
    bell = roll.round.bell_at
    if roll.phase == Roll.Phase.ROLLOFF or bell is None:
        return ""
    return str(BEFORE_BELL if roll.before_bell or roll.created_at <= bell else AFTER_BELL)


def roll_score(roll, rules):
    """What the roll scored by the party's rules (a roll's score depends on its dice, the
    round's number and the rules only), or None for a throw in a dice-total roll-off, which
    counts its faces, not points."""
    if roll.phase == Roll.Phase.ROLLOFF and rules.tie_break == "rolloff_dice_total":
        return None
    dice = (roll.die1, roll.die2, roll.die3, roll.die4)
    target = roll.round.target
    fact, _entry = state.roll_fact(dice, roll.outcome, roll.face, roll.called, target, rules)
    return score_roll(fact.dice, target, rules, called=fact.called)


def correction_words(correction):
    """The correction that voided a roll, for the rolls file: its kind and who made it in the
    reader's language, and the host's note as typed."""
    # Translators: "kind" is a correction's kind ("Undo", "Void"...); "who" the role that made
    # it, as stored ("host", "table 2"); "when" a date and time.
    words = _("%(kind)s by %(who)s, %(when)s") % {
        "kind": correction.get_kind_display(),
        "who": who_text(correction.made_by),
        "when": _when(correction.made_at),
    }
    detail = correction.note  # the host's words; else what a correction made of the roll
    if not detail and correction.kind in (Correction.Kind.CORRECT, Correction.Kind.LATE_TAP):
        detail = next(iter(correction_effects(correction)), "")
    return f"{words}: {detail}" if detail else words


# -- download names -------------------------------------------------------------------------------


def content_disposition(party_name: str, what: str, extension: str) -> str:
    """An attachment header named after the party: an ASCII name every browser takes, and the
    name as typed (filename*, RFC 6266) for those that read it. Neither can leave the folder
    it is saved in or break the header."""
    words = f"{party_name} {what}"
    ascii_name = unicodedata.normalize("NFKD", words).encode("ascii", "ignore").decode()
    ascii_name = re.sub(r"[^A-Za-z0-9_.-]+", "-", ascii_name).strip("-.") or "bunco-night"
    typed = re.sub(r"[\x00-\x1f\x7f/\\:\"*?<>|]+", "-", " ".join(words.split())).strip(" .-")
    typed = typed or "bunco-night"
    return (
        f'attachment; filename="{ascii_name}.{extension}"; '
        f"filename*=UTF-8''{quote(f'{typed}.{extension}', safe='')}"
    )
