"""Where the fuzzy die is (docs/rules.md section 8): where it starts (with `fuzzy_die_starts:
head_table` the head table's scorekeeper of the night's first round holds it as that round
starts), and who holds it when a round closes. Reads only: the close (parties.services.
round_close) stores what these say."""

from django.db.models import Q

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


def fuzzy_holder(party, round_, live):
    """Who holds the fuzzy die when the round closes: whoever took it this round, else a holder
    already stored on the round (a preset's starting holder), else the last closed round's.
    Nobody, without a query, when the party's rules have no fuzzy die (rules are set when the
    party is created, so no earlier round of it stored a holder)."""
    if live.state.rules.traveling == "off":
        return None
    if live.state.fuzzy_die:
        return int(live.state.fuzzy_die)
    stored = Round.objects.filter(pk=round_.pk).values_list("fuzzy_die_id", flat=True).first()
    if stored:
        return stored
    return previous_holder(party.id, round_)


def previous_holder(party_id, round_):
    """The fuzzy die's holder after the closed rounds before `round_` (in play order)."""
    return (
        Round.objects.filter(party_id=party_id, status=Round.Status.CLOSED, fuzzy_die__isnull=False)
        .exclude(pk=round_.pk)
        .filter(_before(round_))
        .order_by("-bunco_set__number", "-number")
        .values_list("fuzzy_die_id", flat=True)
        .first()
    )


def _before(round_):
    set_number = round_.bunco_set.number
    return Q(bunco_set__number__lt=set_number) | Q(
        bunco_set__number=set_number, number__lt=round_.number
    )
