"""The results page: standings, prizes, and settling a tied prize by roll-off."""

import pytest
from django.urls import reverse

from parties.models import Party, PrizeRollOff, Round, ScoreSheetLine, Seat

pytestmark = pytest.mark.django_db


@pytest.fixture
def tied_party(party):
    """Ann and Bea won their one round; everyone else lost: a tie for most wins."""
    round_ = Round.objects.get(party=party)
    for seat in Seat.objects.filter(round=round_).select_related("player"):
        won = seat.player.name in ("Ann", "Bea")
        ScoreSheetLine.objects.create(player=seat.player, round=round_, table=seat.table, won=won,
                                      points=5 if won else 1)
    Round.objects.filter(pk=round_.pk).update(status="closed")
    return party


def prize_text(browser, party, key):
    page = browser.get(reverse("parties:results", args=[party.id])).content.decode()
    start = page.index(f'id="prize-{key}"')
    return page[start : page.index("</li>", start)]



def seq_of(party):
    return Party.objects.get(pk=party.pk).seq

def test_a_tie_is_shown_for_a_roll_off_not_settled_silently(tied_party, player):
    text = prize_text(player, tied_party, "most_wins")
    assert "Ann, Bea" in text and "tie: roll-off" in text
    assert "Record totals" not in text  # only the host records roll-offs


def test_the_host_enters_totals_and_the_highest_wins(host, tied_party):
    ann, bea = (tied_party.players.get(name=n) for n in ("Ann", "Bea"))
    url = reverse("parties:prize_rolloff", args=[tied_party.id, "most_wins"])
    seq = seq_of(tied_party)
    host.post(url, {f"total-{ann.id}": "9", f"total-{bea.id}": "9"})  # still tied: again
    assert seq_of(tied_party) == seq + 1  # the results and the TV refetch the circuit
    text = prize_text(host, tied_party, "most_wins")
    assert "tie: roll-off again" in text
    host.post(url, {f"total-{ann.id}": "8", f"total-{bea.id}": "14"})
    text = prize_text(host, tied_party, "most_wins")
    assert "<strong>Bea</strong>" in text and "tie" not in text
    assert PrizeRollOff.objects.filter(party=tied_party).count() == 4
    # How the tie was settled stays on the results: each circuit's totals.
    assert "Roll-off 1: Ann 9, Bea 9" in text and "Roll-off 2: Ann 8, Bea 14" in text


def test_bad_totals_are_refused_and_change_nothing(host, tied_party):
    ann, bea = (tied_party.players.get(name=n) for n in ("Ann", "Bea"))
    seq = seq_of(tied_party)
    url = reverse("parties:prize_rolloff", args=[tied_party.id, "most_wins"])
    for data in [{f"total-{ann.id}": "2", f"total-{bea.id}": "9"},
                 {f"total-{ann.id}": "9"},
                 {f"total-{ann.id}": "x", f"total-{bea.id}": "9"}]:
        assert host.post(url, data).status_code in (302, 400)
    assert not PrizeRollOff.objects.exists()
    # highest_points is not one of this party's prizes; most_buncos has no winner to tie.
    for category in ("highest_points", "most_buncos"):
        response = host.post(reverse("parties:prize_rolloff", args=[tied_party.id, category]),
                             {"roll": "1"}, follow=True)
        assert "not waiting for a roll-off" in response.content.decode()
    assert not PrizeRollOff.objects.exists()
    assert seq_of(tied_party) == seq  # no page is told of a change that was not made


def test_the_app_rolls_for_them_when_asked(host, tied_party):
    url = reverse("parties:prize_rolloff", args=[tied_party.id, "most_wins"])
    for _ in range(20):  # equal totals roll again; 20 ties in a row are 1 in ~10^19
        host.post(url, {"roll": "1"})
        if "tie" not in prize_text(host, tied_party, "most_wins"):
            break
    rolls = PrizeRollOff.objects.filter(party=tied_party)
    assert rolls.exists() and all(r.rolled_by_app and 3 <= r.total <= 18 for r in rolls)
    assert "tie" not in prize_text(host, tied_party, "most_wins")


@pytest.mark.parametrize(("tiebreak", "first"), [("points", "Ann"), ("buncos", "Bea")])
def test_the_standings_break_a_tie_on_wins_by_the_overall_tiebreak(host, tiebreak, first):
    """docs/rules.md section 9: the most wins, a tie broken by `overall_tiebreak` (personal
    points, or most Buncos); the standings are in that order, on the page and in the CSV."""
    from parties.exchange import exports
    from tests.parties.conftest import create_party

    party = create_party(host, overall_tiebreak=tiebreak)
    round_ = Round.objects.get(party=party)
    for seat in Seat.objects.filter(round=round_).select_related("player"):
        name = seat.player.name
        ScoreSheetLine.objects.create(
            player=seat.player, round=round_, table=seat.table, won=name in ("Ann", "Bea"),
            points={"Ann": 9, "Bea": 3}.get(name, 1), buncos=1 if name == "Bea" else 0,
        )
    Round.objects.filter(pk=round_.pk).update(status="closed")
    second = ({"Ann", "Bea"} - {first}).pop()
    page = host.get(reverse("parties:results", args=[party.id])).content.decode()
    standings = page[page.index('class="sheet standings"') :]
    assert standings.index(first) < standings.index(second)
    _header, rows = exports.standings_table(party)
    assert [row[1] for row in rows[:2]] == [first, second]
