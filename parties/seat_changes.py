"""Seats that change while a round waits to start: a player takes over as a table's scorekeeper
(docs/rules.md section 5, last paragraph), and, with `rotation: none`, the host swaps two
players before the first round of a later set (kept as a correction, with what it changed).

Each write locks the party's row first, as every live write does (parties/services.lock_party),
and the waiting round's row after it, so it cannot interleave with that round's start.
"""

from django.db import transaction

from parties import services
from parties.models import Correction, Party, Round, Seat
from parties.party_seq import party_changed
from parties.services import PartyError, lock_party


def _waiting_round(party):
    """The round to be played next, locked, or why seats cannot change now."""
    lock_party(party)
    if party.status == Party.Status.FINISHED:
        raise PartyError("The party is over.")
    round_ = (
        Round.objects.select_for_update(of=("self",))
        .select_related("bunco_set")
        .filter(party=party)
        .exclude(status=Round.Status.CLOSED)
        .order_by("bunco_set__number", "number")
        .first()
    )
    if round_ is None:
        raise PartyError("The party is over.")
    if round_.status != Round.Status.WAITING:
        raise PartyError(
            f"Round {round_.number} has started: its scorekeeper and seats stay until it ends."
        )
    return round_


@transaction.atomic
def scorekeeper_choose(*, party: Party, table_number: int, player_id: int) -> Seat:
    """`player_id` keeps score (and rolls first) at table `table_number` in the round waiting to
    start. One scorekeeper a table; a ghost cannot keep score."""
    round_ = _waiting_round(party)
    seats = list(
        Seat.objects.filter(round=round_, table__number=table_number).select_related("player")
    )
    if not seats:
        raise PartyError(f"There is no table {table_number}.")
    chosen = next((seat for seat in seats if seat.player_id == player_id), None)
    if chosen is None:
        raise PartyError(f"That player does not sit at table {table_number} this round.")
    if chosen.player.is_ghost:
        raise PartyError("A ghost cannot keep score; pick a player at the table.")
    Seat.objects.filter(pk__in=[seat.pk for seat in seats]).update(keeps_score=False)
    Seat.objects.filter(pk=chosen.pk).update(keeps_score=True)
    chosen.keeps_score = True
    party_changed(party, "seating")
    return chosen


def reseat_allowed(party, round_) -> str:
    """Which reseat the host may make now: "setup" (round 1 may be reshuffled or swapped),
    "between_sets" (`rotation: none`, the first round of a later set waits), or ""."""
    if round_ is None or round_.status != Round.Status.WAITING or round_.number != 1:
        return ""
    if party.status == Party.Status.SETUP and round_.bunco_set.number == 1:
        return "setup"
    if (
        party.status == Party.Status.PLAYING
        and round_.bunco_set.number > 1
        and party.rules.rotation == "none"
    ):
        return "between_sets"
    return ""


@transaction.atomic
def players_swap(*, party: Party, player_a: int, player_b: int, by: str = "host") -> None:
    """The host's swap: before round 1 as before (services.party_swap_players), and between
    sets with `rotation: none` as a reseat (party_reseat)."""
    lock_party(party)  # the status decided on is the one under the lock
    if party.status != Party.Status.SETUP and party.rules.rotation == "none":
        party_reseat(party=party, player_a=player_a, player_b=player_b, by=by)
    else:
        services.party_swap_players(party=party, player_a=player_a, player_b=player_b)


@transaction.atomic
def party_reseat(*, party: Party, player_a: int, player_b: int, by: str = "host") -> Correction:
    """Swap two players' seats in the waiting first round of a later set (`rotation: none`,
    where nobody moves by the rules), kept as a Correction(kind="reseat") with its effects.
    Where a swapped player was their table's chosen scorekeeper, the table goes back to the
    usual one (seat 1)."""
    if party.rules.rotation != "none":
        raise PartyError("The app moves everyone between rounds; reseating is for rotation none.")
    round_ = _waiting_round(party)
    if round_.number != 1 or round_.bunco_set.number == 1:
        raise PartyError("Players can be reseated between sets: before round 1 of the next set.")
    a, b = services.swap_seats(
        party, round_, player_a, player_b,
        "Pick two different players seated for the next round to swap.",
    )
    effects = (
        f"Set {round_.bunco_set.number}, round 1: {b.player.name} and {a.player.name} swap "
        f"seats; {b.player.name} now sits at table {b.table.number}, seat {b.position}, and "
        f"{a.player.name} at table {a.table.number}, seat {a.position}"
    )
    if a.keeps_score or b.keeps_score:
        Seat.objects.filter(round=round_, table_id__in=[a.table_id, b.table_id]).update(
            keeps_score=False
        )
        effects += "; the usual scorekeeper (seat 1) keeps score there again"
    correction = Correction.objects.create(
        party=party, round=round_, kind=Correction.Kind.RESEAT, made_by=by, effects=effects
    )
    party_changed(party, "seating")
    return correction


