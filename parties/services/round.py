"""Writes to a round: start it, ring its bell; and the lookups of the round in play or the round
waiting to start that the other writes share (each called with the party's row locked, so the
round holds still)."""

from datetime import timedelta

from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone
from django.utils.translation import gettext as _

from parties import fuzzy_die, state
from parties.live import announce
from parties.models import Party, Roll, Round, RoundBell
from parties.services.changes import lock_party, party_changed, seq_bump
from parties.services.errors import PartyError
from parties.services.round_close import close_round


@transaction.atomic
def round_start(*, party: Party) -> Round:
    """Ring the bell to start the waiting round (the host, or the head table)."""
    lock_party(party)
    if party.status in (Party.Status.BREAK, Party.Status.FINISHED):
        raise PartyError(
            _("The party is on a break; resume it first.")
            if party.status == Party.Status.BREAK
            else _("The party is over.")
        )
    round_ = current_round(party, statuses=(Round.Status.WAITING, Round.Status.PLAYING))
    if round_ is None or round_.status == Round.Status.PLAYING:
        raise PartyError(_("This round has already started."))
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
def bell_ring(*, party: Party, by: str) -> bool:
    """The bell from outside the tables: the host by hand, or the clock in a timed round.
    Whether it rang now (False: it had rung already)."""
    round_ = playing_round(lock_party(party))
    rules = party.rules
    live = state.load(round_, rules)
    now = timezone.now()
    if by == "clock":
        if rules.round_end != "timed" or round_.ends_at is None or now < round_.ends_at:
            raise PartyError(_("The clock has not run out yet."))
    if live.state.bell:
        return False  # it has rung already; a second press changes nothing
    live = ring(party, round_, live, by, now)
    if not live.state.over:
        remember_on_commit(live)
    announce.on_commit_bell(party, round_, by, live)
    if live.state.over:
        close_round(party, round_, live, rules, now)
    return True


def clock_bells_due() -> list[int]:
    """Ring the bell in every timed round whose clock has run out with no bell yet (the server's
    own clock, parties.round_clock, asks every half second): the rounds it rang. Each bell
    is its own write under its party's lock, so processes asking at once ring a round's bell
    once, and a paused party's clock waits (its resume gives the paused time back)."""
    due = Round.objects.filter(
        status=Round.Status.PLAYING,
        ends_at__lte=timezone.now(),
        bell_at__isnull=True,
        party__status=Party.Status.PLAYING,
        party__paused_at__isnull=True,
    ).select_related("party")
    rang = []
    for round_ in due:
        try:
            if bell_ring(party=round_.party, by="clock"):
                rang.append(round_.id)
        except PartyError:
            continue  # paused, or its round closed, since the question was asked
    return rang


def ring(party, round_, live, by, now):
    """Ring the bell in `round_` (its row, its version, the party's number) and return the
    round's state with the bell in it. The caller announces it."""
    last_roll = Roll.objects.filter(round_id=round_.id).aggregate(last=Max("id"))["last"] or 0
    RoundBell.objects.create(round_id=round_.id, after_roll_id=last_roll, rung_by=by)
    bump_round(round_, bell_at=now)
    live = live.apply_bell(round_.version)
    seq_bump(party)
    return live


def remember_on_commit(live):
    """Keep the round's new state in this process once the write commits."""
    # Remembered before the pushes go out (callbacks run in order): after a bell they take a
    # while (every table), and a tap arriving meanwhile would find the state stale and replay.
    transaction.on_commit(lambda: state.remember(live))


def bump_round(round_, **fields):
    """Move the round's version on (every page and process then knows its state changed),
    saving `fields` with it."""
    round_.version += 1
    Round.objects.filter(pk=round_.id).update(version=F("version") + 1, **fields)
    for name, value in fields.items():
        setattr(round_, name, value)


def current_round(party, *, statuses=(Round.Status.PLAYING,)):
    """The party's first round in `statuses` (by default the round in play), or None."""
    rounds = Round.objects.select_related("bunco_set").filter(party=party, status__in=statuses)
    if statuses == (Round.Status.PLAYING,):
        # At most one round is in play, so no ordering (and its join) is needed.
        return rounds.order_by().first()
    return rounds.order_by("bunco_set__number", "number").first()


def playing_round(party):
    """The round in play (the party is locked and fresh), or why no roll can be taken now."""
    round_ = current_round(party)
    check_playing(party, round_)
    return round_


def check_playing(party, playing):
    """Why no roll can be taken now, if that is so (the party is locked and fresh)."""
    if party.status == Party.Status.FINISHED:
        raise PartyError(_("The party is over."))
    if playing is None:
        if party.status == Party.Status.BREAK:
            raise PartyError(_("The party is on a break; the host resumes it."))
        raise PartyError(
            _("The round has not started yet: the host or the head table starts it.")
        )
    if party.paused_at:
        raise PartyError(_("The host has paused the game; wait for the host to resume it."))


def next_round(party):
    """The party's first round not closed (in play, or waiting to start), locked so that it
    cannot start while seats change; None once every round has closed."""
    return (
        Round.objects.select_for_update(of=("self",))
        .select_related("bunco_set")
        .filter(party=party)
        .exclude(status=Round.Status.CLOSED)
        .order_by("bunco_set__number", "number")
        .first()
    )


def waiting_round(party):
    """The round to be played next, locked, or why its scorekeeper and seats cannot change now.
    Locks the party's row first."""
    lock_party(party)
    if party.status == Party.Status.FINISHED:
        raise PartyError(_("The party is over."))
    round_ = next_round(party)
    if round_ is None:
        raise PartyError(_("The party is over."))
    if round_.status != Round.Status.WAITING:
        raise PartyError(
            _("Round %(number)s has started: its scorekeeper and seats stay until it ends.")
            % {"number": round_.number}
        )
    return round_
