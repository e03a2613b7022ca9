"""What the host page says of the phone it is open on: the roles this phone holds at the party,
the players it plays as (each one's sheet and table a tap away: the host who plays scores at
their own table like any scorekeeper), and the names the host may choose to play as."""

from dataclasses import dataclass

from parties import selectors


@dataclass(frozen=True)
class Played:
    player_id: int
    name: str
    table: int | None  # where they sit in the round shown; None when not seated in it


def phone_context(grant, round_, players) -> dict:
    """`players`: the party's players (ghosts among them), in the host's order."""
    names = {player.id: player.name for player in players}
    played = [
        Played(player_id, names[player_id], _table(round_, player_id))
        for player_id in sorted(grant.player_ids, key=lambda i: names.get(i, ""))
        if player_id in names
    ]
    return {
        "phone_tables": sorted(grant.table_numbers),
        "played": played,
        "play_choices": [player for player in players if not player.is_ghost],
        "played_ids": {p.player_id for p in played},
    }


def _table(round_, player_id):
    place = selectors.seat_of(round_, player_id)
    return place.table if place else None
