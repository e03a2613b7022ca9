"""The season's arithmetic (clubs.standings), with no database: a member's season is the sum of
their nights, a night they missed changes nothing of theirs, equal members share a rank, and the
season's prizes settle a tie as the club's pot says."""

from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clubs import standings
from clubs.standings import Night, NightLine, Totals
from scoring import PRESETS

MEMBERS = [str(n) for n in range(1, 9)]
NAMES = {m: f"Member {m}" for m in MEMBERS}
RULES = PRESETS["standard"]
STATS = [f.name for f in fields(NightLine) if f.name != "member"]


@st.composite
def night_lines(draw, member):
    rounds = draw(st.integers(1, 12))
    wins = draw(st.integers(0, rounds))
    return NightLine(
        member=member, wins=wins, losses=rounds - wins, buncos=draw(st.integers(0, 5)),
        mini_buncos=draw(st.integers(0, 5)), points=draw(st.integers(0, 200)),
        prizes=draw(st.integers(0, 3)), paid_in=draw(st.sampled_from([0, 500])),
        took_home=draw(st.integers(0, 6000)),
    )


@st.composite
def nights(draw, key="n"):
    """A night of some of the members (none twice), and maybe a line for someone who is not a
    member (a guest's, which counts for nobody)."""
    came = draw(st.lists(st.sampled_from(MEMBERS), unique=True, max_size=len(MEMBERS)))
    lines = [draw(night_lines(m)) for m in came]
    if draw(st.booleans()):
        lines.append(draw(night_lines("guest")))
    return Night(key=key, lines=tuple(draw(st.permutations(lines))))


seasons = st.lists(nights(), max_size=12).map(
    lambda ns: [Night(str(i), n.lines) for i, n in enumerate(ns)]
)


@given(seasons)
def test_each_members_totals_are_the_sums_of_their_nights(season):
    totals = standings.member_totals(MEMBERS, season)
    for member in MEMBERS:
        theirs = [line for night in season for line in night.lines if line.member == member]
        for stat in STATS:
            assert getattr(totals[member], stat) == sum(getattr(line, stat) for line in theirs)
        played = sum(1 for night in season if any(x.member == member for x in night.lines))
        assert totals[member].nights == played
        assert totals[member].net == totals[member].took_home - totals[member].paid_in
    assert "guest" not in totals


@given(seasons, nights(key="extra"), st.integers(0, 12))
def test_a_member_absent_from_a_night_is_unaffected_by_it(season, extra, where):
    with_it = season[:where] + [extra] + season[where:]
    before = standings.member_totals(MEMBERS, season)
    after = standings.member_totals(MEMBERS, with_it)
    came = {line.member for line in extra.lines}
    for member in MEMBERS:
        if member not in came:
            assert after[member] == before[member]
        else:
            assert after[member].nights == before[member].nights + 1


@given(seasons)
def test_the_totals_do_not_depend_on_the_order_of_the_nights(season):
    assert standings.member_totals(MEMBERS, season) == standings.member_totals(
        MEMBERS, list(reversed(season)))


@given(seasons, st.sampled_from(standings.RANKINGS))
def test_members_equal_on_what_ranks_share_a_rank_and_the_ranks_never_fall(season, ranking):
    rows = standings.ranked(standings.member_totals(MEMBERS, season), NAMES, ranking)
    assert sorted(row.member for row in rows) == sorted(MEMBERS)
    values = [row.totals.ranked_by(ranking) for row in rows]
    assert values == sorted(values, reverse=True)
    for place, row in enumerate(rows, start=1):
        first = values.index(values[place - 1]) + 1
        assert row.rank == first  # 1, 1, 3: a shared rank, then the places it took
        assert row.tied == (values.count(values[place - 1]) > 1)
    assert rows[0].rank == 1


@given(seasons, st.sampled_from(["rolloff", "split"]))
def test_a_tied_season_prize_is_shared_or_rolled_off_as_the_club_says(season, tied):
    totals = standings.member_totals(MEMBERS, season)
    prizes = standings.season_prizes(totals, season, RULES, tied)
    assert [p.key for p in prizes] == list(RULES.prizes)
    for prize in prizes:
        if len(prize.winners) > 1:
            assert prize.outcome == tied
        elif prize.winners:
            assert prize.outcome == "won"
        else:
            assert prize.outcome == "none"
    most_wins = next(p for p in prizes if p.key == "most_wins")
    played = [m for m in MEMBERS if totals[m].wins + totals[m].losses]
    if played:
        best = max(totals[m].wins for m in played)
        assert set(most_wins.winners) == {m for m in played if totals[m].wins == best}


def test_a_season_ranked_by_points_lists_every_member_even_one_who_never_came():
    season = [
        Night("1", (NightLine("1", wins=3, losses=3, points=40),
                    NightLine("2", wins=4, losses=2, points=40))),
        Night("2", (NightLine("1", wins=2, losses=4, points=10),)),
    ]
    table = standings.season_standings(
        [("1", "Ann"), ("2", "Bea"), ("3", "Cleo")], season, ranking="points", rules=RULES,
        tied="rolloff")
    assert [(r.rank, r.name, r.totals.points, r.tied) for r in table.rows] == [
        (1, "Ann", 50, False), (2, "Bea", 40, False), (3, "Cleo", 0, False)]
    assert table.rows[0].totals == Totals(nights=2, wins=5, losses=7, points=50)
    assert table.nights == 2
    wins = next(p for p in table.prizes if p.key == "most_wins")
    assert (wins.winners, wins.outcome) == (("1",), "won")  # 5 against 4; Cleo never played


def test_a_member_and_their_sub_in_one_night_count_it_once():
    night = Night("1", (NightLine("1", wins=2, losses=4), NightLine("1", wins=3, losses=3)))
    assert standings.member_totals(["1"], [night])["1"] == Totals(nights=1, wins=5, losses=7)


def test_an_unknown_ranking_is_refused():
    with pytest.raises(ValueError, match="ranked by"):
        standings.ranked({}, {}, "age")
