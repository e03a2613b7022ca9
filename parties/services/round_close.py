"""Closing a round (every table is done): mark the sheets, seat the next round, or end the
night; and taking a close back, for a correction or an undo while the next round waits.

Runs inside the write that finished the last table (or the correction), with the party's row
locked (parties.services.changes.lock_party), so a round closes and rotates once.

The rows it writes (a sheet line per player, a seat per player) are plain values written by
parties.services.close_sql, not model instances: at 400 players building and saving instances was a
quarter of the closing tap's CPU.
"""

from typing import NamedTuple

from parties.fuzzy_die import fuzzy_holder, previous_holder
from parties.live import announce, close_push
from parties.models import BuncoSet, Party, Player, Round, ScoreSheetLine, Seat, Table
from parties.selectors import later_rounds
from parties.services import close_sql
from parties.services.changes import party_changed, seq_bump
from parties.translation import deferred, listed, name_said, round_said, round_said_within
from scoring import Progress, next_seating, round_sheets


class PlayerRow(NamedTuple):
    id: int
    name: str
    is_ghost: bool


class TableRow(NamedTuple):
    number: int
    id: int


class NewSeat(NamedTuple):
    """A seat the close writes, with what selectors.table_views reads of a Seat."""

    table: TableRow
    player: PlayerRow
    position: int
    keeps_score: bool = False  # the table's seat 1 keeps score until someone takes over

    @property
    def player_id(self):
        return self.player.id


class SheetLine(NamedTuple):
    """A score-sheet line the close writes."""

    player_id: int
    table: TableRow
    won: bool
    points: int
    buncos: int
    mini_buncos: int


SEAT_FIELDS = ("round_id", "table_id", "player_id", "position", "keeps_score")
SHEET_FIELDS = ("round_id", "player_id", "table_id", "won", "points", "buncos", "mini_buncos")


def roster(party_id):
    """The party's players by id as scoring names them (a str), and its tables by number."""
    players = {
        str(row[0]): PlayerRow(*row)
        for row in Player.objects.filter(party_id=party_id)
        .order_by()
        .values_list("id", "name", "is_ghost")
    }
    tables = {
        number: TableRow(number, pk)
        for number, pk in Table.objects.filter(party_id=party_id)
        .order_by()
        .values_list("number", "id")
    }
    return players, tables


def _player_id(players, scoring_id):
    """The id of the player scoring names, or None (nobody, or nobody of this party)."""
    player = players.get(scoring_id)
    return player.id if player else None


def close_round(party, round_, live, rules, now):
    """Every table is done: mark the sheets, seat the next round, or end the night. `party`
    needs only `id`, `seq` and `status` (the tap passes its lean row).

    The reads and the small writes come first; then the 2 x 400 rows of a big party go to the
    database `written_meanwhile` with the rendering of every phone's new seat (close_sql)."""
    players, tables = roster(party.id)
    lines = sheet_lines(live, players, tables)
    Round.objects.filter(pk=round_.pk).update(
        status=Round.Status.CLOSED,
        closed_at=now,
        last_bunco_id=_player_id(players, live.state.last_bunco),
        fuzzy_die_id=fuzzy_holder(party, round_, live),
    )
    progress = Progress(rules, bunco_set=round_.bunco_set.number, round=round_.number)
    following = progress.round_over()
    if following.state == "over":
        save_sheet_lines(round_.pk, lines)
        Party.objects.filter(pk=party.id).update(status=Party.Status.FINISHED)
        party_changed(party, "finished")  # the night is over: every page refetches
        return
    seating = next_seating(
        [list(t) for t in live.seating], list(live.state.winners), rules, live.ghosts
    )
    bunco_set = BuncoSet.objects.get(party_id=party.id, number=following.bunco_set)
    nxt = Round.objects.create(
        party_id=party.id, bunco_set=bunco_set, number=following.round,
        target=following.target,
    )
    status = party.status
    if following.state == "break":
        Party.objects.filter(pk=party.id).update(status=Party.Status.BREAK)
        status = Party.Status.BREAK
    seq_bump(party)
    seats = new_seats(seating, players, tables)
    with close_sql.written_meanwhile():
        save_sheet_lines(round_.pk, lines)
        save_seats(nxt.id, seats)
        views = close_push.next_seat_views(
            party_id=party.id,
            status=status,
            rules=rules,
            closed_seating=live.seating,
            next_round=nxt,
            seats=seats,
        )
        players_here = sum(not p.is_ghost for p in players.values())
        announce.on_commit_close(
            party, views,
            refetch_after=close_push.refetch_after(players_here),
            refetch_within=close_push.refetch_spread(players_here),
        )


def seat_round(round_id, seating, players, tables):
    """Write the round's seats from `seating` (scoring's player ids, table by table, in seat
    order) and return them, in table and seat order."""
    seats = new_seats(seating, players, tables)
    save_seats(round_id, seats)
    return seats


def new_seats(seating, players, tables):
    """The seats of `seating` (scoring's player ids, table by table, in seat order), in table
    and seat order."""
    return [
        NewSeat(tables[number], players[pid], position)
        for number, seated in enumerate(seating, start=1)
        for position, pid in enumerate(seated, start=1)
    ]


def save_seats(round_id, seats):
    close_sql.insert_rows(
        Seat,
        SEAT_FIELDS,
        [(round_id, s.table.id, s.player.id, s.position, s.keeps_score) for s in seats],
    )


def sheet_lines(live, players, tables):
    """The round's score-sheet lines as scoring marks the replayed tables (a ghost gets none)."""
    lines = []
    for number, table in enumerate(live.state.tables, start=1):
        for player_id, sheet in round_sheets(table).items():
            player = players[player_id]
            if player.is_ghost:
                continue
            lines.append(
                SheetLine(
                    player.id,
                    tables[number],
                    sheet.wins == 1,
                    sheet.points,
                    sheet.buncos,
                    sheet.mini_buncos,
                )
            )
    return lines


def save_sheet_lines(round_id, lines):
    close_sql.insert_rows(
        ScoreSheetLine,
        SHEET_FIELDS,
        [
            (round_id, line.player_id, line.table.id, line.won, line.points, line.buncos,
             line.mini_buncos)
            for line in lines
        ],
    )


def reopen_round(party, round_, live, starting_holder):
    """Take back the close of `round_` (its next round still waits): its sheet lines and the
    waiting next round with its seats go, the round is in play again and the party with it.
    `live` is the round's replay after the change; `starting_holder` the fuzzy die's holder
    when the round began (see starting_holder)."""
    ScoreSheetLine.objects.filter(round_id=round_.pk).delete()
    for waiting in later_rounds(round_).filter(status=Round.Status.WAITING):
        waiting.delete()  # its seats go with it (no roll can belong to a waiting round)
    fields = {
        "status": Round.Status.PLAYING,
        "closed_at": None,
        "last_bunco": None,
        "fuzzy_die_id": starting_holder,
    }
    if not live.state.bell:
        fields["bell_at"] = None  # the roll that rang it was taken back
    Round.objects.filter(pk=round_.pk).update(**fields)
    for name, value in fields.items():
        setattr(round_, name, value)
    Party.objects.filter(pk=party.id).update(status=Party.Status.PLAYING)
    party.status = Party.Status.PLAYING
    party_changed(party, "reopened")


def starting_holder(round_, taker_before):
    """The fuzzy die's holder stored on a closed round before it was taken this round: a
    preset's starting holder, or the holder carried from an earlier round. `taker_before` is
    who took it in the round's replay before the change (None if nobody did)."""
    stored = Round.objects.filter(pk=round_.pk).values_list("fuzzy_die_id", flat=True).first()
    if stored and str(stored) != taker_before:
        return stored
    return None


def recompute_closed(party, round_, live, rules, taker_before):
    """A closed round whose rolls changed and which is still over: its sheet lines, last Bunco
    and fuzzy die again from `live` (the replay after the change), the fuzzy die of the closed
    rounds after it, and the waiting next round's seats if it has not started. Returns what
    changed, kept for people to read (parties.translation.deferred)."""
    players, tables = roster(party.id)
    before = {
        line.player_id: line for line in ScoreSheetLine.objects.filter(round_id=round_.pk)
    }
    ScoreSheetLine.objects.filter(round_id=round_.pk).delete()
    lines = sheet_lines(live, players, tables)
    save_sheet_lines(round_.pk, lines)
    holder = int(live.state.fuzzy_die) if live.state.fuzzy_die else None
    if holder is None:
        holder = starting_holder(round_, taker_before) or previous_holder(party.id, round_)
    Round.objects.filter(pk=round_.pk).update(
        last_bunco_id=_player_id(players, live.state.last_bunco), fuzzy_die_id=holder
    )
    name = round_said(round_.bunco_set.number, round_.number)
    effects = sheet_changes(name, before, lines, players)
    effects += _carry_fuzzy_die(round_, rules, holder)
    effects += _reseat_next(round_, live, rules, players, tables)
    if not effects:
        # Translators: "round" is a round's name, "Set 1, round 3".
        effects = [deferred.gettext("%(round)s: no result changed", round=name)]
    party_changed(party, "corrected")
    return effects


def sheet_changes(name, before, lines, players):
    """What changed on the sheets, per table, kept: W/L first, then points, Buncos and minis."""
    effects = []
    by_table = {}
    for line in lines:
        by_table.setdefault(line.table.number, []).append(line)
    for number, table_lines in sorted(by_table.items()):
        now_win, now_lose, tallies = [], [], []
        for line in table_lines:
            old = before.get(line.player_id)
            player = players[str(line.player_id)]
            who = name_said(player.name, player.is_ghost)
            if old is None or old.won != line.won:
                (now_win if line.won else now_lose).append(who)
            changed = _tally_changes(old, line)
            if changed:
                # Translators: a player's name, and what changed on their sheet ("points 3 → 5,
                # Buncos 0 → 1").
                tallies.append(deferred.gettext("%(name)s: %(changes)s", name=who, changes=changed))
        parts = []
        if now_win:
            # Translators: "names" are the players of a side, "Ann & Bo" (one at a table alone).
            parts.append(deferred.ngettext("%(names)s now wins", "%(names)s now win", len(now_win),
                                        names=listed(now_win, " & ")))
        if now_lose:
            parts.append(deferred.ngettext("%(names)s now loses", "%(names)s now lose",
                                        len(now_lose), names=listed(now_lose, " & ")))
        parts += tallies
        if parts:
            # Translators: "round" is a round's name ("Set 1, round 3"); "changes" what changed
            # at the table, e.g. "12 – 9 → 10 – 9; Gail 2 → 0" or "Ann & Bo now win".
            effects.append(deferred.gettext("%(round)s, table %(table)s: %(changes)s",
                                         round=name, table=number, changes=listed(parts, "; ")))
    return effects


def _tally_changes(old, line):
    """A sheet line's tallies that changed (all of them on a new line), kept, or None."""

    def change(field):
        return {"was": getattr(old, field) if old else 0, "now": getattr(line, field)}

    said = []
    if old is None or old.points != line.points:
        said.append(deferred.gettext("points %(was)s → %(now)s", **change("points")))
    if old is None or old.buncos != line.buncos:
        said.append(deferred.gettext("Buncos %(was)s → %(now)s", **change("buncos")))
    if old is None or old.mini_buncos != line.mini_buncos:
        said.append(deferred.gettext("mini Buncos %(was)s → %(now)s", **change("mini_buncos")))
    return listed(said, ", ") if said else None


def _carry_fuzzy_die(round_, rules, holder):
    """The closed rounds after `round_` carry the fuzzy die's holder forward where nobody took
    it in them."""
    from parties import state

    if getattr(rules, "traveling", "off") == "off":
        return []
    effects = []
    for closed in later_rounds(round_).filter(status=Round.Status.CLOSED):
        taker = state.load(closed, rules).state.fuzzy_die
        now = int(taker) if taker else holder
        if now != closed.fuzzy_die_id:
            Round.objects.filter(pk=closed.pk).update(fuzzy_die_id=now)
            effects.append(_fuzzy_die_now(closed, now))
        holder = now
    return effects


def _fuzzy_die_now(closed, holder):
    """Who holds the fuzzy die after the closed round `closed`, kept."""
    after = round_said_within(closed.bunco_set.number, closed.number)
    who = Player.objects.filter(pk=holder).values_list("name", "is_ghost").first()
    if who is None:
        # Translators: "round" is "round 3" or "round 3 of set 2".
        return deferred.gettext("After %(round)s: nobody has the fuzzy die", round=after)
    # Translators: "round" is "round 3" or "round 3 of set 2"; "name" a player's.
    return deferred.gettext("After %(round)s: the fuzzy die is %(name)s's", round=after,
                         name=name_said(*who))


def _reseat_next(round_, live, rules, players, tables):
    """The waiting next round is seated again from the corrected winners; one already started
    keeps the seats it was played in."""
    nxt = later_rounds(round_).first()
    if nxt is None:
        return []
    name = round_said(nxt.bunco_set.number, nxt.number)
    if nxt.status != Round.Status.WAITING:
        # Translators: "round" is a round's name, "Set 1, round 3".
        return [deferred.gettext("%(round)s had already started: its seats stay as they were "
                              "played", round=name)]
    old = list(Seat.objects.filter(round=nxt).order_by("table__number", "position")
               .values_list("table__number", "player_id"))
    seating = next_seating(
        [list(t) for t in live.seating], list(live.state.winners), rules, live.ghosts
    )
    new = [(number, int(pid)) for number, seated in enumerate(seating, start=1) for pid in seated]
    if new == old:
        return []
    Seat.objects.filter(round=nxt).delete()
    seat_round(nxt.id, seating, players, tables)
    # Translators: "round" is a round's name, "Set 1, round 3".
    return [deferred.gettext("%(round)s (not started yet) is seated again", round=name)]
