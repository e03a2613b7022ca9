"""Printable pages: the night's rule sheet, paper score sheets, table tally sheets, and the
tables' and players' QR cards. Each is one page of HTML that prints on Letter and A4
(static/parties/print.css); the page groups its cards into sheets of paper itself, so a card is
never cut and "four to a page" holds in any browser."""

from dataclasses import dataclass

from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from parties import access, party_codes, selectors
from parties.models import AccessLink
from parties.pages.links import join_url, site_url
from parties.views.respond import in_paper_language
from scoring.party import ROUNDS_PER_SET
from scoring.rules import rules_name
from scoring.rules_text import rules_sentences

SCORE_CARDS_A_PAGE = 4  # two by two: a quarter page holds six rounds of four sets
TALLIES_A_PAGE = 2  # a half page gives each round room for 21 and more tally marks
PLAYER_CARDS_A_PAGE = 6  # two by three: the QR code stays big enough to scan
TABLE_CARDS_A_PAGE = 4  # two by two: a card stands on its table, its code scanned from a seat


def _pages(items, size):
    return [items[i : i + size] for i in range(0, len(items), size)]


@never_cache  # like every page of a party: who is playing is no proxy's business
@require_GET
@in_paper_language
def rules_sheet(request, party_id):
    # Any role may read it: the rules are what everyone at the party plays by.
    party, grant = access.require_any(request, party_id)
    rules = party.rules
    return render(
        request,
        "parties/print_rules.html",
        {
            "party": party,
            "grant": grant,
            "rules_name": rules_name(party.preset, rules, gettext=_),
            "sentences": rules_sentences(
                rules, party.tables.count(), party.prize_pot.tied,
                gettext=_, ngettext=ngettext,
            ),
        },
    )


@dataclass(frozen=True)
class RoundBox:
    number: int
    line: object = None  # selectors.SheetLine once the round is on the player's sheet


@dataclass(frozen=True)
class SetBoxes:
    number: int
    rounds: list

    def _played(self):
        return [box.line for box in self.rounds if box.line is not None]

    @property
    def played(self):
        """Whether any round of the set is on the sheet: a set still to come totals nothing."""
        return bool(self._played())

    @property
    def wins(self):
        return sum(line.won for line in self._played())

    @property
    def losses(self):
        return len(self._played()) - self.wins

    @property
    def buncos(self):
        return sum(line.buncos for line in self._played())

    @property
    def mini_buncos(self):
        return sum(line.mini_buncos for line in self._played())

    @property
    def points(self):
        return sum(line.points for line in self._played())


@dataclass(frozen=True)
class PaperSheet:
    name: str
    sets: list
    sheet: object = None  # selectors.ScoreSheetView, for the night's totals of a filled sheet


def _paper_sheet(player, sets, sheet=None):
    lines = {(line.set_number, line.round_number): line for line in sheet.lines} if sheet else {}
    return PaperSheet(
        player.name,
        [
            SetBoxes(s, [RoundBox(r, lines.get((s, r))) for r in range(1, ROUNDS_PER_SET + 1)])
            for s in range(1, sets + 1)
        ],
        sheet,
    )


@never_cache
@require_GET
@in_paper_language
def score_sheets(request, party_id):
    """Every player's sheet on paper: blank to fill in at the table, or (?filled=1) filled in
    from the rounds played, as the player's page shows them."""
    party, _grant = access.require_host(request, party_id)
    filled = request.GET.get("filled") == "1"
    sets = party.rules.sets
    # One read per player, through the selector the player's page uses, so paper and phone
    # cannot disagree; a printout is made once a night.
    sheets = [
        _paper_sheet(player, sets, selectors.score_sheet(player) if filled else None)
        for player in party.players.filter(is_ghost=False)
    ]
    return render(
        request,
        "parties/print_sheets.html",
        {
            "party": party,
            "filled": filled,
            "pages": _pages(sheets, SCORE_CARDS_A_PAGE),
            "rounds": range(1, ROUNDS_PER_SET + 1),
            "sets_class": f"sets-{sets}",
        },
    )


@dataclass(frozen=True)
class Tally:
    table_number: int
    set_number: int
    columns: list  # (heading, note) of each side: two teams, or one seat each in individual play


def _columns(team_play, seats):
    if team_play:
        return [(_("Team A"), _("seats 1 and 3")), (_("Team B"), _("seats 2 and 4"))]
    # Translators: above a column of a table's tally sheet, where a player writes their name.
    name = _("name:")
    return [(_("Seat %(number)s") % {"number": n}, name) for n in range(1, seats + 1)]


@never_cache
@require_GET
@in_paper_language
def tally_sheets(request, party_id):
    """One sheet a table a set, for the scorekeeper's tally marks when paper keeps score too."""
    party, _grant = access.require_host(request, party_id)
    rules = party.rules
    team_play = rules.team_size == 2
    # Players alone sit two to four a table, and a boxed plan mixes team tables with tables of
    # players alone: the round shown says how many sit where, and how.
    shown = selectors.seating(selectors.current_round(party))
    seats = {t.number: (t.team_play, len(t.seats)) for t in shown}
    tallies = [
        Tally(number, s, _columns(*seats.get(number, (team_play, 4))))
        for number in party.tables.values_list("number", flat=True)
        for s in range(1, rules.sets + 1)
    ]
    return render(
        request,
        "parties/print_tally.html",
        {
            "party": party,
            "rules": rules,
            "pages": _pages(tallies, TALLIES_A_PAGE),
            "rounds": range(1, ROUNDS_PER_SET + 1),
            "team_play": team_play,
        },
    )


@dataclass(frozen=True)
class PlayerPlace:
    table: int
    seat: int


@never_cache  # the cards carry the players' links, which are secrets
@require_GET
@in_paper_language
def player_cards(request, party_id):
    party, _grant = access.require_host(request, party_id)
    round_ = selectors.current_round(party)
    places = {
        seat.player_id: PlayerPlace(table.number, seat.position)
        for table in selectors.seating(round_)
        for seat in table.seats
    }
    cards = [
        (link, places.get(link.player_id))
        for link in selectors.party_links(party, site_url(request))
        if link.role == AccessLink.Role.PLAYER
    ]
    return render(
        request,
        "parties/print_player_cards.html",
        {
            "party": party,
            "round": round_,
            # Nobody changes tables (a tournament): the card's table is the night's, given at
            # registration as seed 004 says. Otherwise it is where the player starts.
            "table_for_the_night": party.rules.rotation == "none",
            "pages": _pages(cards, PLAYER_CARDS_A_PAGE),
            "code_shown": party_codes.party_code_shown(party.code),
            "join_url": join_url(request),
        },
    )


@never_cache
@require_GET
@in_paper_language
def table_cards(request, party_id):
    """Each table's card: the scorekeeper's QR code, and the party code for the players."""
    party, _grant = access.require_host(request, party_id)
    links = [
        link for link in selectors.party_links(party, site_url(request))
        if link.role == AccessLink.Role.TABLE
    ]
    return render(
        request,
        "parties/table_cards.html",
        {
            "party": party,
            "pages": _pages(links, TABLE_CARDS_A_PAGE),
            "code_shown": party_codes.party_code_shown(party.code),
            "join_url": join_url(request),
        },
    )
