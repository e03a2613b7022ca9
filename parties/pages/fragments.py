"""What a live table shows, built once from the round's state and rendered as one fragment
for every phone: the scorekeeper's, the players' at that table, and the host's dashboard."""

from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from parties import selectors
from parties.translation import player_name
from scoring.quick import entry_words

# Read in the language active where the fragment is rendered (each push renders it once for
# each language the party's phones read).
PHASE_LABELS = {
    "playing": gettext_lazy("Rolling"),
    "finishing": gettext_lazy("Bell! Finish your turn"),
    "rolloff": gettext_lazy("Tie: roll-off"),
    "done": gettext_lazy("Table done"),
}
KIND_LABELS = {
    "bunco": gettext_lazy("BUNCO!"),
    "mini_bunco": gettext_lazy("Mini Bunco"),
    "points": gettext_lazy("points"),
    "miss": gettext_lazy("nothing"),
    "rolloff_total": gettext_lazy("roll-off total"),
}


@dataclass(frozen=True)
class SideView:
    index: int
    names: tuple
    points: int
    won: bool
    rolloff_score: int | None


def live_tables(party, round_, numbers=None):
    """The `table-N` fragment contexts of the round in play (all tables, or `numbers`)."""
    state_ = selectors.live_round(party, round_)
    if state_ is None:
        return []
    count = len(state_.seating)
    return [
        table_context(party_id=party.id, live=state_, number=n, seq=party.seq,
                      paused=party.paused_at is not None)
        for n in (numbers or range(1, count + 1))
        if 1 <= n <= count
    ]


def table_context(*, party_id, live, number, seq, paused=False):
    """Everything the `table-N` fragment shows, from the live state (no queries); `paused`: the
    host has paused the game (a table in play says so instead of "Rolling")."""
    names = live.names
    table = live.table(number)
    extras = live.extras[number - 1]
    team_play = not table.alone  # a boxed plan mixes team tables and tables of players alone
    rolloff = table.rolloff
    sides = []
    seat_sides = [0] * len(table.seats)  # each seat's side, for the phone's unsaved sums
    for side, seats in enumerate(table.sides):  # who plays with whom: scoring says
        for seat in seats:
            seat_sides[seat - 1] = side
        sides.append(
            SideView(
                index=side,
                names=tuple(_name(names, table.seats[seat - 1]) for seat in seats),
                points=table.points[side],
                won=table.winner == side,
                rolloff_score=(rolloff.scores[side] if rolloff and side in rolloff.sides else None),
            )
        )
    turn_seat = table.turn_seat
    turn_player = table.seats[turn_seat - 1] if turn_seat else None
    roller = table.roller
    phase = table.phase
    return {
        "party_id": party_id,
        "round_id": live.round_id,
        "set_number": live.set_number,
        "round_number": live.round_number,
        "number": number,
        "is_head": number == 1,
        "target": table.target,
        "dice_needed": table.dice_needed or "",
        "team_play": team_play,
        "sides": sides,
        "phase": phase,
        "phase_label": _phase_label(phase, paused),
        "round_bell": live.state.bell,
        "rolloff_kind": table.rules.tie_break if phase == "rolloff" else "",
        "rolloff_circuit": rolloff.circuit if rolloff else 0,
        "turn_seat": turn_seat,
        "seat_sides": ",".join(map(str, seat_sides)),
        "turn_name": _name(names, turn_player),
        "turn_is_ghost": bool(turn_player and names[turn_player][1]),
        "roller_id": roller or "",
        "roller_name": _name(names, roller),
        "turn_points": extras.turn_points,
        "last_dice": extras.last_dice,
        "last_entry": entry_words(*extras.last_entry, gettext=_) if extras.last_entry else "",
        "last_points": extras.last_points,
        "last_kind": str(KIND_LABELS.get(extras.last_kind, "")),
        "last_kind_key": extras.last_kind or "",  # the label's key, for a test in the template
        "last_roller": _name(names, extras.last_roller),
        "can_undo": bool(extras.live_rolls),
        "version": extras.version,
        "seq": seq,
        "fuzzy_die": _name(names, live.state.fuzzy_die),
    }


def _name(names, player):
    """A seated player's name as the reader sees it (a ghost's in the reader's language), from
    the round's names (state.RoundSnapshot.names); "" for nobody."""
    return player_name(*names[player]) if player else ""


def _phase_label(phase, paused):
    if paused and phase in ("playing", "finishing"):
        return _("Paused")
    return str(PHASE_LABELS[phase])


def render_table(**kwargs):
    return render_to_string("parties/_live_table.html", table_context(**kwargs))
