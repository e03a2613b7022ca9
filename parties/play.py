"""Live-play writes: start a round, record or undo a roll, ring the bell, close the round.

Every write follows one path: lock the party's row, load the round's live state, ask scoring/
what the fact does, save the fact, and announce after commit. The lock serialises the writes
of one party, so the bell rings once and the round closes and rotates once, even when the
last rolls of several tables arrive together; other parties are not held up.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import F, Max
from django.http import Http404
from django.utils import timezone

from parties import access, announce, fuzzy_die, late_taps, state, tap_sql
from parties.models import Party, Roll, Round, RoundBell
from parties.party_seq import party_changed, seq_bump
from parties.round_close import close_round
from parties.services import PartyError, lock_party
from scoring import InvalidRoll, NotAllowed, Progress, RollFact
from scoring.quick import call_needed, entry_words, quick_dice


@dataclass(frozen=True)
class TapResult:
    """What became of a tap: saved, a retry of one already saved, or a question to ask first."""

    status: str  # "saved" | "duplicate" | "ask_call" | "held" (a late tap, kept for the host)
    table_version: int
    seq: int
    ask: str = ""  # "bunco" or "mini_bunco" when status is "ask_call"
    message: str = ""  # what the phone shows, for "held"


def _current_round(party, *, statuses=(Round.Status.PLAYING,)):
    # Called with the party's row locked (see the module docstring), so the round holds still.
    rounds = Round.objects.select_related("bunco_set").filter(party=party, status__in=statuses)
    if statuses == (Round.Status.PLAYING,):
        # At most one round is in play, so no ordering (and its join) is needed.
        return rounds.order_by().first()
    return rounds.order_by("bunco_set__number", "number").first()


def _playing_round(party):
    """The round in play (the party is locked and fresh), or why no roll can be taken now."""
    round_ = _current_round(party)
    _check_playing(party, round_)
    return round_


def _bump_round(round_, **fields):
    round_.version += 1
    Round.objects.filter(pk=round_.id).update(version=F("version") + 1, **fields)
    for name, value in fields.items():
        setattr(round_, name, value)


def clock_ran_out(live, ends_at, now):
    """A timed round whose clock has run out with no bell yet: the bell rings first."""
    rules = live.state.rules
    return (
        rules.round_end == "timed"
        and not live.state.bell
        and ends_at is not None
        and (now >= ends_at)
    )


def _ring(party, round_, live, by, now):
    last_roll = Roll.objects.filter(round_id=round_.id).aggregate(last=Max("id"))["last"] or 0
    RoundBell.objects.create(round_id=round_.id, after_roll_id=last_roll, rung_by=by)
    _bump_round(round_, bell_at=now)
    live = live.apply_bell(round_.version)
    seq_bump(party)
    return live


@transaction.atomic
def round_start(*, party: Party, by: str) -> Round:
    """Ring the bell to start the waiting round (the host, or the head table)."""
    lock_party(party)
    if party.status in (Party.Status.BREAK, Party.Status.FINISHED):
        raise PartyError(
            "The party is on a break; resume it first."
            if party.status == Party.Status.BREAK
            else "The party is over."
        )
    round_ = _current_round(party, statuses=(Round.Status.WAITING, Round.Status.PLAYING))
    if round_ is None or round_.status == Round.Status.PLAYING:
        raise PartyError("This round has already started.")
    now = timezone.now()
    rules = party.rules
    ends_at = now + timedelta(minutes=rules.round_minutes) if rules.round_end == "timed" else None
    Round.objects.filter(pk=round_.pk).update(
        status=Round.Status.PLAYING,
        started_at=now,
        ends_at=ends_at,
        **fuzzy_die.holder_at_start(round_, rules),  # the WBA's head table holds it first
    )
    Party.objects.filter(pk=party.pk).update(status=Party.Status.PLAYING)
    party_changed(party, "started")
    return round_


@transaction.atomic
def roll_record(
    *,
    party_id: int,
    table_number: int,
    link_ids=(),
    session_key: str | None = None,
    tap_id,
    dice: tuple | None = None,
    outcome: str = "",
    face: int | None = None,
    called: bool | None,
    seen: int,
    round_id: int | None = None,
    bell_seen: bool | None = None,
) -> TapResult:
    """The one tap: record one roll at a table for a session holding `link_ids` (or the
    database session `session_key`, read here), given its dice or a quick button's `outcome`
    (and `face` for a mini Bunco where it matters). Both ways in (Django's view and the lean
    ASGI entry, through parties.taps) call this.

    The party's row is locked first, in a statement of its own; the session's links, the round
    in play and any roll already saved under this tap id are then read fresh, and the bell and
    the round's close are decided here, in the same transaction. A retried tap (same tap id) is
    the same fact, never two.

    `bell_seen` is whether the phone showed the bell when the roll's entry began: a roll
    entered before the phone heard the bell is played before it (scoring's `before_bell`)
    while the round is open; one for a round that has closed since is held for the host as a
    late tap (parties.late_taps), never thrown away. Raises Http404 (no such party),
    PermissionDenied (these links do not score at that table), or PartyError / StaleTap
    (refused): nothing changes then."""
    party_row, reads = tap_sql.lock_and_read(party_id, table_number, tap_id, session_key)
    if party_row is None:
        raise Http404("No such party.")
    if session_key is not None:
        link_ids = access.session_link_ids(reads.session_data)
    held = set(link_ids)
    grant = access.grant_of(
        None, ((role, number, None) for id_, role, number in reads.links if id_ in held)
    )
    if not grant.can_score(table_number):
        raise PermissionDenied("This link does not give you that at this party.")
    party = _PartyNow(party_id, party_row.status, party_row.paused_at, party_row.seq)
    playing = reads.round
    if reads.earlier is not None:
        return _retried(party, playing, reads.earlier, table_number)
    if round_id is not None and (playing is None or round_id != playing.id):
        late = late_taps.hold(
            party_id=party_id,
            round_id=round_id,
            table_number=table_number,
            tap_id=tap_id,
            roll={"dice": list(dice or ()), "outcome": outcome, "face": face, "called": called},
            seen=seen,
            bell_seen=bell_seen,
            entered_by=grant.role_label,
        )
        if late is not None:
            if late.new:  # the host's page shows it at once; a resend changes nothing
                party_changed(party, "late_tap")
            return TapResult("held", 0, party.seq, message=late.message)
    _check_playing(party, playing)
    if round_id is not None and round_id != playing.id:
        raise PartyError("That roll was entered for a round that has ended; it was not counted.")
    round_ = _RoundNow(
        playing.id, playing.version, playing.started_at, playing.target, playing.ends_at
    )
    live = _live_state(party_id, round_)
    now = timezone.now()
    rung_by = None
    if clock_ran_out(live, round_.ends_at, now):  # the bell rings before anything else
        live = _ring(party, round_, live, "clock", now)
        rung_by = "clock"
    judged = judge_roll(
        live,
        round_.target,
        table_number,
        seen=seen,
        dice=dice,
        outcome=outcome,
        face=face,
        called=called,
        before_bell=bell_seen is False and live.state.bell,
    )
    if judged.ask:
        if rung_by:
            _remember_on_commit(live)
            announce.on_commit_bell(party, round_, rung_by, live)
        return TapResult("ask_call", judged.version, party.seq, ask=judged.ask)
    roll_id = tap_sql.insert_roll(
        {
            "round_id": round_.id,
            "table_id": live.table_ids[table_number - 1],
            "tap_id": tap_id,
            "entered_by": grant.role_label,
            "created_at": now,
            **judged.columns(),
        }
    )
    if roll_id is None:
        raise PartyError("That tap id belongs to another table.")
    round_.version += 1  # insert_roll bumped it
    after = live.apply_roll(
        table_number,
        roll_id,
        judged.fact,
        round_.version,
        before_bell=judged.before_bell,
        entry=judged.entry,
    )
    if not after.state.over:
        _remember_on_commit(after)
    if after.state.bell and not live.state.bell:  # this roll rang it
        Round.objects.filter(pk=round_.id).update(bell_at=now)
        seq_bump(party)
        rung_by = f"table {after.state.bell_table}"
    if rung_by:  # rung during this tap: every phone hears it, then tables finish
        announce.on_commit_bell(party, round_, rung_by, after)
    else:
        announce.on_commit_tables(party, after, [table_number])
        if after.state.fuzzy_die != live.state.fuzzy_die:  # every page shows who holds it
            party_changed(party, "fuzzy_die")
    if after.state.over:
        round_ = Round.objects.select_related("bunco_set").get(pk=round_.id)
        close_round(party, round_, after, after.state.rules, now)
    return TapResult("saved", after.extras[table_number - 1].version, party.seq)


@dataclass(slots=True)
class _PartyNow:
    """The party's row as the tap read it under the lock (a model instance costs more to make
    than the rest of a tap's Python; the writes below need only these)."""

    id: int
    status: str
    paused_at: object
    seq: int


@dataclass(slots=True)
class _RoundNow:
    """The round in play as the tap read it under the lock."""

    id: int
    version: int
    started_at: object
    target: int
    ends_at: object
    bell_at: object = None  # set when this tap rings it


def _remember_on_commit(live):
    # Remembered before the pushes go out (callbacks run in order): after a bell they take a
    # while (every table), and a tap arriving meanwhile would find the state stale and replay.
    transaction.on_commit(lambda: state.remember(live))


def _retried(party, playing, earlier, table_number):
    """A tap id already saved: the same fact, answered as it stands now."""
    if earlier.party_id != party.id or earlier.table_number != table_number:
        raise PartyError("That tap id belongs to another table.")
    version = 0  # its round has closed: nothing at that table can change any more
    if playing is not None and playing.id == earlier.round_id:
        round_ = _RoundNow(playing.id, playing.version, playing.started_at, None, None)
        version = _live_state(party.id, round_).extras[table_number - 1].version
    return TapResult("duplicate", version, party.seq)


def _check_playing(party, playing):
    """Why no roll can be taken now, if that is so (the party is locked and fresh)."""
    if party.status == Party.Status.FINISHED:
        raise PartyError("The party is over.")
    if playing is None:
        if party.status == Party.Status.BREAK:
            raise PartyError("The party is on a break; the host resumes it.")
        raise PartyError("The round has not started yet: the host or the head table starts it.")
    if party.paused_at:
        raise PartyError("The host has paused the game; wait for the host to resume it.")


def _live_state(party_id, round_):
    """The round's state at the version just read: remembered, or replayed from its rows."""
    live = state.cached(round_.id, round_.version, round_.started_at)
    if live is None:  # a restarted server, or another process wrote last
        rules = Party.objects.only("options").get(pk=party_id).rules
        live = state.load(Round.objects.select_related("bunco_set").get(pk=round_.id), rules)
    return live


class StaleTap(PartyError):
    """The phone entered a roll on a table state another phone has since changed."""

    def __init__(self, version):
        super().__init__(
            "Another phone changed this table first; check the score and enter the roll again "
            "if it is still missing."
        )
        self.version = version


@dataclass(frozen=True)
class JudgedRoll:
    """A roll the rules take at a table as it stands, or the question to ask before taking it."""

    fact: RollFact  # as scoring plays it (a quick button's outcome as dice that score the same)
    roller_id: int
    phase: str
    version: int  # the table's version the roll was judged on
    ask: str = ""
    outcome: str = ""  # as entered: a quick button (and its face), or else the dice
    face: int | None = None
    before_bell: bool = False  # played on the table as it stood at the bell
    entry: str = ""  # a quick button's roll as entered, in words

    def columns(self):
        if self.outcome:
            faces = [None] * 4
        else:
            faces = list(self.fact.dice) + [None] * (4 - len(self.fact.dice))
        return {
            "roller_id": self.roller_id,
            "phase": self.phase,
            "called": self.fact.called,
            "die1": faces[0],
            "die2": faces[1],
            "die3": faces[2],
            "die4": faces[3],
            "outcome": self.outcome,
            "face": self.face if self.outcome else None,
            "before_bell": self.before_bell,
        }


def judge_roll(
    live, target, table_number, *, seen, dice, outcome, face, called, before_bell=False
) -> JudgedRoll:
    """What one roll entered at table `table_number` would be (no writes): its dice (a quick
    button's outcome turned into dice), who rolled it, and whether to ask "did they call it?"
    first. `before_bell`: the phone had not heard the bell, so the roll is judged on the table
    as it stood at the bell, while no roll has been made there since. Raises PartyError (or
    StaleTap) with the message for the phone when it is refused."""
    if not 1 <= table_number <= len(live.seating):
        raise PartyError(f"There is no table {table_number}.")
    table = live.table(table_number)
    version = live.extras[table_number - 1].version
    before_bell = before_bell and table.unbelled is not None
    if before_bell:
        table = table.unbelled
    if table.done:
        raise PartyError("This table's round is over; no more rolls.")
    if seen != version:
        raise StaleTap(version)
    try:
        if outcome:
            dice = quick_dice(outcome, target, table.rules, face)
        fact = RollFact(tuple(dice or ()), True if called is None else called)
        table.check(fact)
        ask = (call_needed(table, fact.dice) or "") if called is None else ""
    except (InvalidRoll, NotAllowed) as error:
        raise PartyError(str(error)) from error
    phase = Roll.Phase.ROLLOFF if table.rolloff_needed else Roll.Phase.PLAY
    entry = entry_words(outcome, face) if outcome else ""
    return JudgedRoll(
        fact, int(table.roller), phase, version, ask, outcome, face, before_bell, entry
    )


@transaction.atomic
def bell_ring(*, party: Party, by: str) -> None:
    """The bell from outside the tables: the host by hand, or the clock in a timed round."""
    round_ = _playing_round(lock_party(party))
    rules = party.rules
    live = state.load(round_, rules)
    now = timezone.now()
    if by == "clock":
        if rules.round_end != "timed" or round_.ends_at is None or now < round_.ends_at:
            raise PartyError("The clock has not run out yet.")
    if live.state.bell:
        return  # it has rung already; a second press changes nothing
    live = _ring(party, round_, live, by, now)
    if not live.state.over:
        _remember_on_commit(live)
    announce.on_commit_bell(party, round_, by, live)
    if live.state.over:
        close_round(party, round_, live, rules, now)


@transaction.atomic
def party_pause(*, party: Party) -> None:
    lock_party(party)
    if party.paused_at or party.status != Party.Status.PLAYING:
        raise PartyError("Only a party in play can be paused.")
    Party.objects.filter(pk=party.pk).update(paused_at=timezone.now())
    party_changed(party, "paused")


@transaction.atomic
def party_resume(*, party: Party) -> None:
    """Resume after a pause (the clock of a timed round gets the paused time back) or a break."""
    lock_party(party)
    if party.paused_at:
        paused_for = timezone.now() - party.paused_at
        Round.objects.filter(
            party=party, status=Round.Status.PLAYING, ends_at__isnull=False
        ).update(ends_at=F("ends_at") + paused_for)
        Party.objects.filter(pk=party.pk).update(paused_at=None)
    else:
        try:
            resumed = _progress(party).resume()
        except NotAllowed as error:
            raise PartyError("The party is neither paused nor on a break.") from error
        Party.objects.filter(pk=party.pk).update(status=_STATUS[resumed.state])
    party_changed(party, "resumed")


@transaction.atomic
def party_end(*, party: Party) -> None:
    """End the night early. A round in play marks no sheet, but its rolls are kept."""
    lock_party(party)
    try:
        ended = _progress(party).end_early()
    except NotAllowed as error:
        raise PartyError("The party is already over.") from error
    Party.objects.filter(pk=party.pk).update(status=_STATUS[ended.state], paused_at=None)
    party_changed(party, "ended")


# The party's status for each of scoring's Progress states, and back.
_STATUS = {
    "playing": Party.Status.PLAYING,
    "break": Party.Status.BREAK,
    "over": Party.Status.FINISHED,
}


def _progress(party) -> Progress:
    """Where the night is, as scoring's `Progress` sees it, for the host's break and end
    (which ask only whether the party plays, rests or is over; a party being set up plays)."""
    state_ = {status: key for key, status in _STATUS.items()}.get(party.status, "playing")
    return Progress(party.rules, state=state_)
