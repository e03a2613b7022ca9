"""What the host's and scorekeepers' pages show of the corrections: the rolls of each round
(to void or correct), the corrections log, the late rolls waiting, and a closed table's undo."""

from dataclasses import dataclass

from django.utils import translation
from django.utils.translation import gettext as _

from parties import state
from parties.models import Correction, LateTap, Roll, Round
from parties.selectors import undoable_closed_round
from parties.translation import correction_effects, late_tap_description, player_name, who_text
from scoring.quick import entry_words


@dataclass(frozen=True)
class RollRow:
    id: int
    round_name: str
    table_number: int
    roller: str
    entry: str  # as entered: "2 points", "a mini Bunco of 4s", or the dice
    called: bool
    phase: str
    before_bell: bool
    voided: bool
    entered_by: str
    created_at: object


def round_name(set_number, round_number):
    """A round as the corrections name it: "Set 1, round 3"."""
    return _("Set %(set)s, round %(round)s") % {"set": set_number, "round": round_number}


def roll_row(roll):
    return RollRow(
        roll.id,
        round_name(roll.round.bunco_set.number, roll.round.number),
        roll.table.number,
        player_name(roll.roller.name, roll.roller.is_ghost),
        entry_words(roll.outcome, roll.face, roll.dice, gettext=_),
        roll.called,
        roll.phase,
        roll.before_bell,
        roll.voided_by_id is not None,
        who_text(roll.entered_by),
        roll.created_at,
    )


@dataclass(frozen=True)
class RoundRolls:
    round_id: int
    title: str
    status: str
    tables: list  # (table number, [RollRow, ...] in the order rolled)


@dataclass(frozen=True)
class RoundLink:
    round_id: int
    title: str
    status: str


def played_rounds(party):
    """The rounds with rolls to correct (in play or closed), newest first."""
    return list(
        Round.objects.filter(party=party, status__in=(Round.Status.PLAYING, Round.Status.CLOSED))
        .select_related("bunco_set")
        .order_by("-bunco_set__number", "-number")
    )


def party_rolls(rounds):
    """The live rolls of `rounds`, newest round first, per table in the order rolled: what
    the host can void or correct."""
    rolls = (
        Roll.objects.filter(round__in=rounds, voided_by__isnull=True)
        .select_related("round__bunco_set", "table", "roller")
        .order_by(*state.replay_order())
    )
    by_round = {}
    for roll in rolls:
        by_round.setdefault(roll.round_id, {}).setdefault(roll.table.number, []).append(
            roll_row(roll)
        )
    return [
        RoundRolls(
            r.id,
            round_name(r.bunco_set.number, r.number),
            r.get_status_display(),
            sorted(by_round.get(r.id, {}).items()),
        )
        for r in rounds
        if r.id in by_round
    ]


@dataclass(frozen=True)
class AuditLine:
    made_at: object
    made_by: str
    what: str
    round_name: str
    effects: list  # what it changed, a line each, in the reader's language


def audit_lines(party):
    """Every correction of the party, newest first: time, who, what, and what it changed."""
    rows = (
        Correction.objects.filter(party=party)
        .select_related("round__bunco_set")
        .prefetch_related("late_taps")
        .order_by("-made_at", "-id")
    )
    lines = []
    with translation.override(None):  # the kinds' English, which a stored note may repeat
        english = {kind: str(label) for kind, label in Correction.Kind.choices}
    for c in rows:
        what = str(c.get_kind_display())
        said = english.get(c.kind, what)
        if c.kind == Correction.Kind.LATE_TAP and any(
            t.status == LateTap.Status.DISMISSED for t in c.late_taps.all()
        ):
            what, said = _("Late roll dismissed"), "Late roll dismissed"
        # (an undo saved before its note said which roll has the note "undo"; the notes are
        # stored as written then, in English)
        repeated = c.note.lower() in (what.lower(), said.lower()) if c.note else True
        lines.append(
            AuditLine(
                c.made_at,
                who_text(c.made_by),
                what if repeated else f"{what}: {c.note}",
                round_name(c.round.bunco_set.number, c.round.number) if c.round else "",
                correction_effects(c),
            )
        )
    return lines


@dataclass(frozen=True)
class LateTapView:
    id: int
    table_number: int
    set_number: int
    round_number: int
    description: str  # what the roll was, in the reader's language
    created_at: object


def pending_late_taps(party):
    """The late rolls waiting for the host, oldest first."""
    waiting = (
        LateTap.objects.filter(party=party, status=LateTap.Status.PENDING)
        .select_related("table", "round__bunco_set")
        .order_by("created_at", "id")
    )
    return [
        LateTapView(late.id, late.table.number, late.round.bunco_set.number, late.round.number,
                    late_tap_description(late), late.created_at)
        for late in waiting
    ]


def host_context(party):
    """The host page's corrections: the rolls of the latest round played to void or correct
    (earlier rounds a link each: the page is refetched as the tables roll, and a whole night's
    rolls made it megabytes and a second to render), late taps, and the audit list. A round
    just started shows the round before it until its first roll: the minutes after a round are
    when a host notices a mistake in it."""
    rounds = played_rounds(party)
    shown = party_rolls(rounds[:2])[:1]  # the newest of the two with a roll
    shown_at = next((i for i, r in enumerate(rounds) if shown and r.id == shown[0].round_id), 0)
    return {
        "party_rolls": shown,
        "earlier_rounds": [
            RoundLink(r.id, round_name(r.bunco_set.number, r.number), r.get_status_display())
            for r in rounds[shown_at + 1 :]
        ],
        "late_taps": pending_late_taps(party),
        "corrections": audit_lines(party),
    }


@dataclass(frozen=True)
class ClosedUndo:
    round_id: int
    round_number: int
    seen: int  # the table's version in that round, as the undo's staleness check wants it


def closed_undo(party, number):
    """For a table's page while the next round waits: the just-closed round's undo, if that
    table has a roll there to take back."""
    round_ = undoable_closed_round(party)
    if round_ is None:
        return None
    live = state.load(round_, party.rules)
    if not 1 <= number <= len(live.seating) or not live.extras[number - 1].live_rolls:
        return None
    return ClosedUndo(round_.id, round_.number, live.extras[number - 1].version)
