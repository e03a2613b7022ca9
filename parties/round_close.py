"""Closing a round (every table is done): mark the sheets, seat the next round, or end the
night; and taking a close back, for a correction or an undo while the next round waits.

Runs inside the write that finished the last table (or the correction), with the party's row
locked (parties/services.lock_party), so a round closes and rotates once.
"""

from django.db.models import F, Q

from parties import announce
from parties.models import BuncoSet, Party, Player, Round, ScoreSheetLine, Seat, Table
from scoring import Progress, next_seating


def _bump_party(party):
    Party.objects.filter(pk=party.id).update(seq=F("seq") + 1)
    party.seq += 1


def close_round(party, round_, live, rules, now):
    """Every table is done: mark the sheets, seat the next round, or end the night. `party`
    needs only `id` and `seq` (the tap passes its lean row)."""
    players = {str(p.id): p for p in Player.objects.filter(party_id=party.id)}
    tables = {t.number: t for t in Table.objects.filter(party_id=party.id)}
    ScoreSheetLine.objects.bulk_create(sheet_lines(round_, live, players, tables))
    Round.objects.filter(pk=round_.pk).update(
        status=Round.Status.CLOSED,
        closed_at=now,
        last_bunco=players.get(live.state.last_bunco),
        fuzzy_die_id=fuzzy_holder(party, round_, live),
    )
    progress = Progress(rules, bunco_set=round_.bunco_set.number, round=round_.number)
    following = progress.round_over()
    if following.state == "over":
        Party.objects.filter(pk=party.id).update(status=Party.Status.FINISHED)
    else:
        seating = next_seating(
            [list(t) for t in live.seating], list(live.state.winners), rules, live.ghosts
        )
        bunco_set = BuncoSet.objects.get(party_id=party.id, number=following.bunco_set)
        nxt = Round.objects.create(
            party_id=party.id, bunco_set=bunco_set, number=following.round,
            target=following.target,
        )
        Seat.objects.bulk_create(
            Seat(round=nxt, table=tables[number], player=players[pid], position=position)
            for number, seated in enumerate(seating, start=1)
            for position, pid in enumerate(seated, start=1)
        )
        if following.state == "break":
            Party.objects.filter(pk=party.id).update(status=Party.Status.BREAK)
    _bump_party(party)
    announce.on_commit_round(party, "closed")


def sheet_lines(round_, live, players, tables):
    """The round's score-sheet lines as the replayed tables have them (a ghost gets none)."""
    lines = []
    for number, table in enumerate(live.state.tables, start=1):
        won = set(table.winners)
        points, buncos, minis = table.personal_points, table.buncos, table.mini_buncos
        for player_id in table.seats:
            if players[player_id].is_ghost:
                continue
            lines.append(
                ScoreSheetLine(
                    player=players[player_id],
                    round=round_,
                    table=tables[number],
                    won=player_id in won,
                    points=points.get(player_id, 0),
                    buncos=buncos.get(player_id, 0),
                    mini_buncos=minis.get(player_id, 0),
                )
            )
    return lines


def fuzzy_holder(party, round_, live):
    """Who holds the fuzzy die when the round closes: whoever took it this round, else a holder
    already stored on the round (a preset's starting holder), else the last closed round's."""
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
