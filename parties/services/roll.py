"""Writes to the rolls: the scorekeeper's tap (roll_record), and the scorekeeper's undo (the
host's void and correction of any roll are in parties.services.roll_correction).

The tap follows the one path every write takes: lock the party's row, load the round's live
state, ask scoring/ what the roll does (parties.services.roll_judging), save it, and announce after
commit; the bell and the round's close are decided in the same transaction, so the bell rings
once and the round closes and rotates once, even when the last rolls of several tables arrive
together. A roll is a fact that is voided, never edited: an undo, void or correction is a
Correction (parties.services.correction has the steps they share with the late taps').
"""

from dataclasses import dataclass, replace

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from parties import access, state
from parties.live import announce
from parties.models import Correction, Party, Roll, Round
from parties.selectors import undoable_closed_round
from parties.services import tap_sql
from parties.services.changes import lock_party, party_changed, seq_bump
from parties.services.correction import (
    decide,
    new_correction,
    round_name,
    save_effects,
    settle_playing,
)
from parties.services.errors import PartyError, StaleTap
from parties.services.late_tap import late_tap_hold
from parties.services.roll_judging import judge_roll
from parties.services.round import (
    bump_round,
    check_playing,
    current_round,
    playing_round,
    remember_on_commit,
    ring,
)
from parties.services.round_close import close_round, reopen_round, starting_holder
from parties.translation import deferred
from scoring import InvalidRoll

Kind = Correction.Kind


@dataclass(frozen=True)
class TapResult:
    """What became of a tap: saved, a retry of one already saved, or a question to ask first."""

    status: str  # "saved" | "duplicate" | "ask_call" | "held" (a late tap, kept for the host)
    table_version: int
    seq: int
    ask: str = ""  # "bunco" or "mini_bunco" when status is "ask_call"
    message: str = ""  # what the phone shows, for "held"
    # The taps sent behind this one (roll_record's `more`) that were taken, in order: each a
    # TapResult, or the refusal (PartyError, InvalidRoll) that stopped the rest.
    more: tuple = ()


MAX_MORE = 9  # taps sent behind the first in one request (the phone's outbox sends 10 at most)


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
    more=(),
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
    late tap (late_tap_hold), never thrown away. Raises Http404 (no such party),
    PermissionDenied (these links do not score at that table), or PartyError / StaleTap
    (refused): nothing changes then.

    `more`: the taps the phone's outbox held behind this one at the same table (each a dict
    of this tap's fields), at most MAX_MORE, taken by _more_taps. A phone that could not send
    for a while (a busy server, a dead connection) catches up in one request: one lock, one
    commit, one push (bench/ S4). What is not taken is not answered; the phone sends it again."""
    tap = {"tap_id": tap_id, "dice": dice, "outcome": outcome, "face": face, "called": called,
           "seen": seen, "round_id": round_id, "bell_seen": bell_seen}
    if len(more) > MAX_MORE:
        raise PartyError(_too_many_taps())
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
    first = _one_tap(party, grant, table_number, reads.round, reads.earlier, None, tap)
    taken, unpushed = _more_taps(party, grant, table_number, first, more)
    if unpushed is not None:
        announce.on_commit_tables(party, unpushed, [table_number])
    return replace(first.result, more=tuple(taken))


def _too_many_taps():
    most = MAX_MORE + 1
    return ngettext(
        "A phone sends at most %(count)s tap at once.",
        "A phone sends at most %(count)s taps at once.",
        most,
    ) % {"count": most}


def _more_taps(party, grant, table_number, step, more):
    """The taps a request carried behind its first (`step`), each taken as if it came alone
    next while the one before it goes on: (what each answered, a refusal ending the list; the
    round's state whose table update is still to be announced, or None)."""
    unpushed = step.round_state if step.push_due else None
    taken = []
    for fields in more:
        if not step.goes_on:
            break
        try:
            with transaction.atomic():  # a refused tap leaves nothing of itself behind
                earlier = tap_sql.earlier_tap(fields["tap_id"])
                step = _one_tap(
                    party, grant, table_number, step.playing, earlier, step.round_state, fields
                )
        except (PartyError, InvalidRoll) as refusal:
            taken.append(refusal)
            break
        taken.append(step.result)
        if step.push_due:
            unpushed = step.round_state
        elif step.announced:
            unpushed = None
    return taken, unpushed


@dataclass(frozen=True)
class _Step:
    """One tap taken: its result, and what the next tap of the same request starts from."""

    result: TapResult
    playing: tap_sql.RoundRow | None  # the round in play after it
    round_state: object  # the round's state after it (state.LiveRound), None if not known here
    push_due: bool  # its table's update is still to be announced (by roll_record)
    goes_on: bool  # the next tap of the request may be taken after it
    announced: bool = False  # it announced its table's update itself (a bell, a close...)


def _one_tap(party, grant, table_number, playing, earlier, round_state, tap):
    """Take one tap, the party locked and the grant checked: `playing` is the round in play,
    `earlier` the roll already saved under its tap id, `round_state` the round's state when a
    tap of the same request has just changed it (else it is remembered or replayed)."""
    if earlier is not None:
        result = _retried(party, playing, earlier, table_number, round_state)
        return _Step(result, playing, round_state, push_due=False, goes_on=True)
    held = _held_if_late(party, grant, table_number, playing, tap)
    if held is not None:
        return held
    check_playing(party, playing)
    if tap.get("round_id") is not None and tap["round_id"] != playing.id:
        raise PartyError(
            _("That roll was entered for a round that has ended; it was not counted.")
        )
    round_ = _RoundNow(
        playing.id, playing.version, playing.started_at, playing.target, playing.ends_at
    )
    if round_state is None:
        round_state = _live_state(party.id, round_)
    now = timezone.now()
    # A clock that has run out rings the bell before anything else: the roll is judged on the
    # round with the bell in it, and the bell is saved once the roll is taken or asked about.
    rung_by = "clock" if clock_ran_out(round_state, round_.ends_at, now) else None
    judged_on = round_state.apply_bell(round_.version + 1) if rung_by else round_state
    judged = _judged(judged_on, round_.target, table_number, tap)
    if rung_by:
        round_state = ring(party, round_, round_state, rung_by, now)
    if judged.ask:
        if rung_by:
            remember_on_commit(round_state)
            announce.on_commit_bell(party, round_, rung_by, round_state)
        result = TapResult("ask_call", judged.version, party.seq, ask=judged.ask)
        return _Step(result, playing, None, push_due=False, goes_on=False,
                     announced=bool(rung_by))
    after = _saved(grant, round_, round_state, table_number, tap, judged, now)
    return _announced(party, round_, playing, round_state, after, table_number, rung_by, now)


def _held_if_late(party, grant, table_number, playing, tap):
    """The step of a tap made for a round that has closed since: held for the host as a late
    tap (late_tap_hold). None if the tap is for the round in play (or no round of the party)."""
    round_id = tap.get("round_id")
    if round_id is None or (playing is not None and round_id == playing.id):
        return None
    late = late_tap_hold(
        party_id=party.id,
        round_id=round_id,
        table_number=table_number,
        tap_id=tap["tap_id"],
        roll={"dice": list(tap.get("dice") or ()), "outcome": tap.get("outcome", ""),
              "face": tap.get("face"), "called": tap["called"]},
        seen=tap["seen"],
        bell_seen=tap.get("bell_seen"),
        entered_by=grant.role_label,
    )
    if late is None:
        return None
    if late.new:  # the host's page shows it at once; a resend changes nothing
        party_changed(party, "late_tap")
    result = TapResult("held", 0, party.seq, message=late.message)
    return _Step(result, playing, None, push_due=False, goes_on=False)


def _judged(round_state, target, table_number, tap):
    """The tap's roll judged on the round as it stands (scoring decides, through judge_roll)."""
    return judge_roll(
        round_state,
        target,
        table_number,
        seen=tap["seen"],
        dice=tap.get("dice"),
        outcome=tap.get("outcome", ""),
        face=tap.get("face"),
        called=tap["called"],
        before_bell=tap.get("bell_seen") is False and round_state.state.bell,
    )


def _saved(grant, round_, round_state, table_number, tap, judged, now):
    """Insert the judged roll (the round's version moves on with it) and return the round's
    state after it."""
    roll_id = tap_sql.insert_roll(
        {
            "round_id": round_.id,
            "table_id": round_state.table_ids[table_number - 1],
            "tap_id": tap["tap_id"],
            "entered_by": grant.role_label,
            "created_at": now,
            **judged.columns(),
        }
    )
    if roll_id is None:
        raise PartyError(_("That tap id belongs to another table."))
    round_.version += 1  # insert_roll bumped it
    return round_state.apply_roll(
        table_number,
        roll_id,
        judged.fact,
        round_.version,
        before_bell=judged.before_bell,
        entry=judged.entry,
    )


def _announced(party, round_, playing, before, after, table_number, rung_by, now):
    """What a saved roll set off, saved and announced: the bell it rang, the fuzzy die it
    moved, the round it closed. A plain roll changed its table alone: roll_record announces the
    table once, after the last tap of the request. Anything more is announced here, in order."""
    if not after.state.over:
        remember_on_commit(after)
    if after.state.bell and not before.state.bell:  # this roll rang it
        Round.objects.filter(pk=round_.id).update(bell_at=now)
        seq_bump(party)
        rung_by = f"table {after.state.bell_table}"
    fuzzy_moved = after.state.fuzzy_die != before.state.fuzzy_die
    plain = not (rung_by or after.state.over or fuzzy_moved)
    if rung_by:  # rung during this tap: every phone hears it, then tables finish
        announce.on_commit_bell(party, round_, rung_by, after)
    elif not plain:
        announce.on_commit_tables(party, after, [table_number])  # before a close, say
        if fuzzy_moved:  # every page shows who holds it
            party_changed(party, "fuzzy_die")
    if after.state.over:
        closing = Round.objects.select_related("bunco_set").get(pk=round_.id)
        close_round(party, closing, after, after.state.rules, now)
    result = TapResult("saved", after.extras[table_number - 1].version, party.seq)
    playing_after = replace(playing, version=round_.version)
    return _Step(result, playing_after, after, push_due=plain, goes_on=plain,
                 announced=not plain)


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


def clock_ran_out(live, ends_at, now):
    """A timed round whose clock has run out with no bell yet: the bell rings first."""
    rules = live.state.rules
    return (
        rules.round_end == "timed"
        and not live.state.bell
        and ends_at is not None
        and (now >= ends_at)
    )


def _retried(party, playing, earlier, table_number, live=None):
    """A tap id already saved: the same fact, answered as it stands now (`live`: the round's
    state, when a tap of the same request has just changed it)."""
    if earlier.party_id != party.id or earlier.table_number != table_number:
        raise PartyError(_("That tap id belongs to another table."))
    version = 0  # its round has closed: nothing at that table can change any more
    if playing is not None and playing.id == earlier.round_id:
        if live is None:
            round_ = _RoundNow(playing.id, playing.version, playing.started_at, None, None)
            live = _live_state(party.id, round_)
        version = live.extras[table_number - 1].version
    return TapResult("duplicate", version, party.seq)


def _live_state(party_id, round_):
    """The round's state at the version just read: remembered, or replayed from its rows."""
    live = state.cached(round_.id, round_.version, round_.started_at)
    if live is None:  # a restarted server, or another process wrote last
        rules = Party.objects.only("options").get(pk=party_id).rules
        live = state.load(Round.objects.select_related("bunco_set").get(pk=round_.id), rules)
    return live


@transaction.atomic
def roll_undo(
    *, party: Party, table_number: int, seen: int, by: str, round_id: int | None = None
) -> int:
    """Void the table's last live roll (the scorekeeper's undo), in the round in play or, while
    the next round waits, in the round that just closed (which reopens). `round_id`, when the
    phone sends it, is the round its page showed. Returns the table's new version."""
    lock_party(party)
    round_ = current_round(party) or undoable_closed_round(party)
    if round_ is None:
        playing_round(party)  # says why nothing can be undone now
    if round_.status == Round.Status.PLAYING:
        round_ = playing_round(party)  # paused, or a party the host ended, undoes nothing
    if round_id is not None and round_id != round_.id:
        raise PartyError(_("That round has moved on; check the table and try again."))
    rules = party.rules
    before = state.load(round_, rules)
    if not 1 <= table_number <= len(before.seating):
        raise PartyError(_("There is no table %(number)s.") % {"number": table_number})
    extras = before.extras[table_number - 1]
    if seen != extras.version:
        raise StaleTap(extras.version)
    if not extras.live_rolls:
        raise PartyError(_("There is no roll to undo at this table this round."))
    undone = extras.live_rolls[-1]
    rows = [r for r in state.roll_rows(round_) if r.id != undone]
    # Translators: what was asked, completing "Cannot %(doing)s: a roll of ..." (an infinitive).
    decide(party, round_, rows, _("undo that roll"))
    correction = new_correction(
        party, round_, Kind.UNDO, by, f"table {table_number}'s last roll taken back"
    )
    Roll.objects.filter(pk=undone).update(voided_by=correction)
    if round_.status == Round.Status.PLAYING:
        live = settle_playing(party, round_, correction, [table_number], before)
    else:
        bump_round(round_)
        live = state.load(round_, rules, written=True)
        reopen_round(party, round_, live, starting_holder(round_, before.state.fuzzy_die))
        save_effects(correction, [deferred.gettext(
            # Translators: "round" is a round's name, "Set 1, round 3".
            "%(round)s is in play again (table %(table)s)",
            round=round_name(round_), table=table_number,
        )])
        announce.on_commit_tables(party, live, list(range(1, len(live.seating) + 1)))
        if live.state.over:
            close_round(party, round_, live, rules, timezone.now())
    return live.extras[table_number - 1].version
