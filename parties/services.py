"""Writes: each service loads rows, asks scoring/ what follows, and saves (<entity>_<action>)."""

import secrets
import string

from django.db import IntegrityError, transaction

from parties import access, announce
from parties.models import AccessLink, BuncoSet, Party, Player, Round, Seat, Table
from parties.party_seq import party_changed
from scoring import Rules, SeatingError, check_seating, ghosts_needed, seat_players
from scoring.seating import plan_for

CODE_ALPHABET = "".join(c for c in string.ascii_uppercase + string.digits if c not in "O0I1L")
# 30**10 (about 2**49) codes: docs/security.md works out what a guesser gets at the join limits.
CODE_LENGTH = 10
# 400 players is 100 tables: a school or church fundraiser's hall.
MIN_PLAYERS, MAX_PLAYERS = 2, 400


class PartyError(ValueError):
    """A request the party cannot take; the message is for the person who made it."""


def lock_party(party):
    """Every live write starts here: lock the party's row and read it fresh under the lock, so
    the sequence number, status and pause it decides on cannot change under it, and two writes
    never announce the same sequence number."""
    fresh = Party.objects.select_for_update().get(pk=party.pk)
    party.seq, party.status, party.paused_at = fresh.seq, fresh.status, fresh.paused_at
    return party


def _shuffled(items):
    items = list(items)
    secrets.SystemRandom().shuffle(items)
    return items


def _new_code():
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def party_code_typed(text):
    """A party code as someone typed it, the way codes are stored: the spaces and dashes the
    cards show it with dropped, in capitals."""
    return "".join(text.replace("-", " ").split()).upper()[:32]


def party_code_shown(code):
    """A code in groups of five, easier to read aloud and to type from a card."""
    return " ".join(code[i : i + 5] for i in range(0, len(code), 5))


@transaction.atomic
def party_create(*, name: str, player_names: list[str], preset: str, rules: Rules) -> Party:
    """A party with its players, ghosts, tables, sets, round 1 seated at random, and links."""
    problem = party_size_problem(len(player_names), rules)
    if problem:
        raise PartyError(problem)
    for _attempt in range(5):
        try:
            with transaction.atomic():
                party = Party.objects.create(
                    name=name, code=_new_code(), preset=preset, options=rules.to_options()
                )
            break
        except IntegrityError:  # the random code was taken; draw again
            continue
    else:  # pragma: no cover - 30^10 codes make five collisions in a row unthinkable
        raise PartyError("Could not find a free party code; try again.")

    players = [
        Player(party=party, name=player_name, position=i)
        for i, player_name in enumerate(player_names, start=1)
    ]
    ghost_count = ghosts_needed(len(players), rules)
    players += [
        Player(party=party, name=f"Ghost {i}", is_ghost=True, position=len(players) + i)
        for i in range(1, ghost_count + 1)
    ]
    Player.objects.bulk_create(players)
    seating = _first_seating(players, rules)  # as many tables as the rules' plan has
    tables = Table.objects.bulk_create(
        Table(party=party, number=n) for n in range(1, len(seating) + 1)
    )
    sets = BuncoSet.objects.bulk_create(
        BuncoSet(party=party, number=n) for n in range(1, rules.sets + 1)
    )
    first = Round.objects.create(party=party, bunco_set=sets[0], number=1, target=1)
    _seat_round(first, tables, seating)

    AccessLink.objects.bulk_create(
        [access.new_salted(AccessLink(party=party, role=AccessLink.Role.HOST))]
        + [access.new_salted(AccessLink(party=party, role="table", table=t)) for t in tables]
        + [
            access.new_salted(AccessLink(party=party, role="player", player=p))
            for p in players
            if not p.is_ghost
        ]
    )
    return party


def party_size_problem(count: int, rules: Rules) -> str:
    """Why `count` players cannot play under `rules`, for the host; "" when they can."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        return f"A party needs {MIN_PLAYERS} to {MAX_PLAYERS} players."
    try:
        plan_for(count, rules)
    except SeatingError as error:
        return f"{str(error)[0].upper()}{str(error)[1:]}."
    return ""


def _first_seating(players, rules):
    by_key = {str(p.id): p for p in players}
    real = _shuffled(str(p.id) for p in players if not p.is_ghost)
    ghosts = _shuffled(str(p.id) for p in players if p.is_ghost)
    seating, _ghosts = seat_players(real, rules, ghost_names=ghosts)
    return [[by_key[key] for key in table] for table in seating]


def _seat_round(round_, tables, seating):
    Seat.objects.bulk_create(
        Seat(round=round_, table=table, player=player, position=position)
        for table, seated in zip(tables, seating, strict=True)
        for position, player in enumerate(seated, start=1)
    )


def _first_round_for_seating(party):
    """Round 1 of set 1, locked, while its seating may still change (before it starts)."""
    # Locked so a reseat and the start of round 1 cannot interleave.
    first = (
        Round.objects.select_for_update(of=("self",))
        .filter(party=party, bunco_set__number=1, number=1)
        .order_by()
        .get()
    )
    if party.status != Party.Status.SETUP or first.status != Round.Status.WAITING:
        raise PartyError("The seating is fixed once the first round has started.")
    return first


@transaction.atomic
def party_reshuffle(*, party: Party) -> None:
    """Draw a new random seating for round 1."""
    lock_party(party)
    first = _first_round_for_seating(party)
    # Those seated now: a player who left (or the ghost a late arrival replaced) stays out.
    players = [seat.player for seat in first.seats.select_related("player")]
    tables = list(party.tables.all())
    first.seats.all().delete()
    _seat_round(first, tables, _first_seating(players, party.rules))
    party_changed(party, "seating")  # every phone already open shows the new chairs


@transaction.atomic
def party_swap_players(*, party: Party, player_a: int, player_b: int) -> None:
    """Swap two players' chairs for round 1, if the seating stays playable."""
    lock_party(party)
    first = _first_round_for_seating(party)
    missing = "Pick two different players of this party to swap."
    swap_seats(party, first, player_a, player_b, missing)
    party_changed(party, "seating")


def swap_seats(party, round_, player_a, player_b, missing):
    """Swap two players' chairs in `round_` (not started), if the seating stays playable: the
    two seats as they were (each now holding the other player), or PartyError (`missing` when
    the two are not two players seated in that round)."""
    seats = list(
        Seat.objects.filter(round=round_)
        .select_related("player", "table")
        .order_by("table__number", "position")
    )
    by_player = {seat.player_id: seat for seat in seats}
    if player_a == player_b or player_a not in by_player or player_b not in by_player:
        raise PartyError(missing)
    a, b = by_player[player_a], by_player[player_b]
    a.player, b.player = b.player, a.player
    seating, ghosts = as_scoring_seating(seats)
    try:
        check_seating(seating, party.rules, ghosts)
    except SeatingError as error:
        raise PartyError(f"That swap cannot be played: {error}.") from None
    # Both chairs are taken under a unique constraint, so clear them and seat the pair again.
    Seat.objects.filter(pk__in=[a.pk, b.pk]).delete()
    Seat.objects.bulk_create(
        Seat(round=round_, table=s.table, player=s.player, position=s.position) for s in (a, b)
    )
    return a, b


def as_scoring_seating(seats):
    """`seats` (in table and position order, with player and table) as scoring's seating of
    player ids, and which of them are ghosts."""
    tables = {}
    for seat in seats:
        tables.setdefault(seat.table.number, []).append(str(seat.player.id))
    ghosts = frozenset(str(seat.player.id) for seat in seats if seat.player.is_ghost)
    return [tables[n] for n in sorted(tables)], ghosts


@transaction.atomic
def link_reissue(*, party: Party, link_id: int) -> AccessLink:
    """Revoke a link and make its replacement, for the same role and target. Nothing is
    announced to the party's phones but the revoke (no page but the host's shows links, and
    the host's answer carries the new one)."""
    # Locked so two quick taps on "New link" cannot both replace the same link.
    old = (
        AccessLink.objects.select_for_update(of=("self",))
        .filter(party=party, pk=link_id, revoked_at__isnull=True)
        .order_by()
        .first()
    )
    if old is None:
        raise PartyError("That link is not one of this party's live links.")
    access.revoke_now(old)
    announce.on_commit_links_revoked(party.id, [old.id])  # its open sockets close
    new = access.new_salted(
        AccessLink(party=party, role=old.role, table=old.table, player=old.player)
    )
    new.save()
    return new
