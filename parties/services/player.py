"""Writes to the players: comings and goings between rounds (a player who leaves gives their seat
to a ghost, a late arrival takes a ghost's seat: docs/rules.md section 6, ghosts fill empty
seats), a newcomer before round 1 (a guest who added themselves), and the host's swap of two
players' seats."""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from parties import access
from parties.models import AccessLink, Party, Player, Round, Seat, Table
from parties.party_limits import clean_player_name, party_size_problem
from parties.services.changes import lock_party, party_changed
from parties.services.errors import PartyError
from parties.services.party import (
    as_scoring_seating,
    first_round_for_seating,
    first_seating,
    party_reseat,
    party_swap_players,
    seat_round,
    swap_seats,
)
from parties.services.round import next_round
from parties.translation import rule_error_text
from scoring import SeatingError, check_seating, ghost_swap, ghosts_needed


def _waiting_round(party):
    """The next round, locked, while nobody is rolling: seats change only between rounds."""
    lock_party(party)
    if party.status == Party.Status.FINISHED:
        raise PartyError(_("The party is over."))
    rules = party.rules
    if rules.team_size == 1:
        raise PartyError(_("In individual play there are no ghosts to fill or free a seat."))
    if rules.small_group == "boxed_plans":
        raise PartyError(
            _(
                "The boxed set's table plans have no ghosts to fill or free a seat: each plan "
                "is made for its own number of players."
            )
        )
    round_ = next_round(party)
    if round_ is None or round_.status != Round.Status.WAITING:
        raise PartyError(_("Seats change between rounds: wait for this round to end."))
    return round_, rules


NEW = "new"  # the chair's new holder, before it has a row (scoring's ids are strings)


def _seating(round_):
    seats = Seat.objects.filter(round=round_).select_related("player", "table")
    return as_scoring_seating(seats.order_by("table__number", "position"))


def _check(seating, ghosts, rules):
    try:
        check_seating(seating, rules, ghosts)
    except SeatingError as error:
        raise PartyError(_unplayable(error)) from None


def _unplayable(error):
    return _("That would leave a table unplayable: %(problem)s.") % {
        "problem": rule_error_text(error)
    }


def _next_position(party):
    return (Player.objects.filter(party=party).aggregate(last=Max("position"))["last"] or 0) + 1


@dataclass(frozen=True)
class Leave:
    ghost: Player
    moved: Player | None  # who changed chairs with the ghost so it has a real partner
    keeper_reset: tuple[int, ...]  # tables whose chosen scorekeeper left that chair: seat 1 again


@transaction.atomic
def player_leave(*, party: Party, player_id: int) -> Leave:
    """The player goes home: a new ghost takes their seat from the next round on."""
    round_, rules = _waiting_round(party)
    seat = (
        Seat.objects.filter(round=round_, player_id=player_id, player__is_ghost=False)
        .select_related("table")
        .first()
    )
    if seat is None:
        raise PartyError(_("That player is not seated for the next round."))
    # Decided first, on the seating as it would be: the new ghost in the leaver's chair.
    seating, ghosts = _seating(round_)
    ghost_seating = [[NEW if p == str(player_id) else p for p in t] for t in seating]
    try:
        moved_id = ghost_swap(ghost_seating, rules, ghosts | {NEW}, NEW)
    except SeatingError as error:
        raise PartyError(_unplayable(error)) from None

    ghost_number = Player.objects.filter(party=party, is_ghost=True).count() + 1
    ghost = Player.objects.create(  # a ghost's name is stored: "Ghost <n>" (party_limits)
        party=party, name=f"Ghost {ghost_number}", is_ghost=True, position=_next_position(party)
    )
    reset = {seat.table.number} if seat.keeps_score else set()  # a ghost keeps no score
    Seat.objects.filter(pk=seat.pk).update(player=ghost, keeps_score=False)
    moved = None
    if moved_id is not None:  # one real player changes chairs with the ghost (scoring's pick)
        moved_from = Seat.objects.select_related("table").get(round=round_, player_id=int(moved_id))
        swap_seats(party, round_, ghost.id, int(moved_id), "")
        moved = Player.objects.get(pk=int(moved_id))
        if moved_from.keeps_score:
            reset.add(moved_from.table.number)  # the swap seats both chairs afresh
    party_changed(party, "seating")  # their link still opens their sheet
    return Leave(ghost, moved, tuple(sorted(reset)))


def new_player_name(party, raw, also=()):
    """`raw` tidied as a player's name (parties.party_limits), or PartyError: blank, too long,
    a ghost's, or already a player's at the party or one of `also` (the names of guests
    waiting), compared case-insensitively in any script (casefold, which SQLite's iexact is
    not beyond ASCII)."""
    try:
        name = clean_player_name(raw)
    except ValidationError as error:
        raise PartyError(" ".join(error.messages)) from None
    taken = {n.casefold() for n in Player.objects.filter(party=party).values_list("name",
                                                                                  flat=True)}
    if name.casefold() in taken | {n.casefold() for n in also}:
        raise PartyError(_("“%(name)s” is already at this party.") % {"name": name})
    return name


@transaction.atomic
def player_arrive(*, party: Party, name: str) -> Player:
    """A late arrival takes a ghost's seat (the ghost's at the lowest table first)."""
    round_, rules = _waiting_round(party)
    name = new_player_name(party, name)
    seat = (
        Seat.objects.filter(round=round_, player__is_ghost=True)
        .order_by("-table__number", "position")
        .first()
    )
    if seat is None:
        raise PartyError(
            _("There is no ghost's seat free; a late arrival takes a ghost's seat.")
        )
    # Decided first, on the seating as it would be: the newcomer in the ghost's chair.
    seating, ghosts = _seating(round_)
    ghost_id = str(seat.player_id)
    _check([[NEW if p == ghost_id else p for p in t] for t in seating], ghosts - {ghost_id}, rules)
    player = Player.objects.create(party=party, name=name, position=_next_position(party))
    Seat.objects.filter(pk=seat.pk).update(player=player)
    access.new_salted(AccessLink(party=party, role=AccessLink.Role.PLAYER, player=player)).save()
    party_changed(party, "seating")
    return player


@dataclass(frozen=True)
class Added:
    player: Player
    redrawn: bool  # round 1 was drawn again for one more (no ghost's chair was free)


@transaction.atomic
def player_add(*, party: Party, name: str) -> Added:
    """Before round 1, a newcomer joins the seating: a ghost's chair where one is free (nobody
    else moves, as for a late arrival), else round 1 drawn again for one more player, at as
    many tables as that takes. Anyone may still be moved before round 1 (the host's reshuffle
    does as much), so the newcomer need not wait for a ghost."""
    lock_party(party)
    first = first_round_for_seating(party)  # refused once round 1 has started
    name = new_player_name(party, name)
    rules = party.rules
    seats = list(first.seats.select_related("player"))
    if rules.team_size == 2 and rules.small_group == "ghosts" and any(
        seat.player.is_ghost for seat in seats
    ):
        return Added(player_arrive(party=party, name=name), redrawn=False)
    real = [seat.player for seat in seats if not seat.player.is_ghost]
    problem = party_size_problem(len(real) + 1, rules)
    if problem:
        raise PartyError(problem)
    ghosts = [seat.player for seat in seats if seat.player.is_ghost]
    missing = ghosts_needed(len(real) + 1, rules) - len(ghosts)
    player = Player.objects.create(party=party, name=name, position=_next_position(party))
    ghosts += _new_ghosts(party, missing)
    seating = first_seating([*real, player, *ghosts], rules)
    tables = _tables(party, len(seating))
    first.seats.all().delete()
    seat_round(first, tables, seating)
    access.new_salted(AccessLink(party=party, role=AccessLink.Role.PLAYER, player=player)).save()
    party_changed(party, "seating")
    return Added(player, redrawn=True)


def _new_ghosts(party, count):
    """`count` new ghosts, named on from the party's last ("Ghost <n>", party_limits)."""
    made = Player.objects.filter(party=party, is_ghost=True).count()
    return [
        Player.objects.create(
            party=party, name=f"Ghost {made + i}", is_ghost=True, position=_next_position(party)
        )
        for i in range(1, count + 1)
    ]


def _tables(party, count):
    """The party's first `count` tables, new ones (each with its scorekeeper's link) made as
    needed. One more player never needs fewer tables than seated them."""
    tables = list(party.tables.order_by("number"))
    if count < len(tables):
        raise PartyError(
            _("One more player does not fit this seating: seat them in a ghost's place.")
        )
    for number in range(len(tables) + 1, count + 1):
        table = Table.objects.create(party=party, number=number)
        access.new_salted(AccessLink(party=party, role=AccessLink.Role.TABLE, table=table)).save()
        tables.append(table)
    return tables


@transaction.atomic
def players_swap(*, party: Party, player_a: int, player_b: int, by: str = "host") -> None:
    """The host's swap: before round 1 as before (party_swap_players), and between sets with
    `rotation: none` as a reseat (party_reseat)."""
    lock_party(party)  # the status decided on is the one under the lock
    if party.status != Party.Status.SETUP and party.rules.rotation == "none":
        party_reseat(party=party, player_a=player_a, player_b=player_b, by=by)
    else:
        party_swap_players(party=party, player_a=player_a, player_b=player_b)
