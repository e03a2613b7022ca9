"""Where the fuzzy die starts (docs/rules.md section 8): with `fuzzy_die_starts: head_table`
the head table's scorekeeper of the night's first round holds it as that round starts."""

from parties.models import Round, Seat
from scoring.party import fuzzy_die_starts_now
from scoring.table import scorekeeper_seat


def head_scorekeeper_id(round_) -> int | None:
    """The player who keeps score at the head table in `round_`: the seat chosen to keep score
    (seat 1 unless someone took over), or its partner where a ghost sits there."""
    seats = list(
        Seat.objects.filter(round=round_, table__number=1)
        .select_related("player")
        .order_by("position")
    )
    if not seats:
        return None
    ids = [str(seat.player_id) for seat in seats]
    ghosts = frozenset(str(seat.player_id) for seat in seats if seat.player.is_ghost)
    chosen = next((i for i, seat in enumerate(seats, start=1) if seat.keeps_score), 1)
    return seats[scorekeeper_seat(ids, ghosts, chosen) - 1].player_id


def holder_at_start(round_, rules) -> dict:
    """The fields `round_` gets as it starts: the starting holder where the rules hand the die
    out now (the night's first round), else nothing (the die stays where it is)."""
    if not fuzzy_die_starts_now(rules, round_.bunco_set.number, round_.number):
        return {}
    return {"fuzzy_die_id": head_scorekeeper_id(round_)}


def first_holder_id(party) -> int | None:
    """Who the die started with: the head table's scorekeeper of set 1, round 1."""
    first = Round.objects.filter(party=party, bunco_set__number=1, number=1).first()
    return head_scorekeeper_id(first) if first else None
