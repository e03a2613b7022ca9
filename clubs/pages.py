"""Each club screen's context, built from the reads (clubs.selectors): the club page, the
standings (on screen, printed and as CSV), the host rotation's print."""

from dataclasses import dataclass, replace

from django.utils.translation import gettext as _

from clubs import selectors
from parties.money import money_text
from parties.pages.links import join_url, site_url
from parties.party_codes import party_code_shown
from parties.selectors import prize_label
from scoring.pot import money


@dataclass(frozen=True)
class PrizeLine:
    """A season prize as the standings show it."""

    key: str
    label: str
    winners: list  # names
    outcome: str  # clubs.standings.SeasonPrize.outcome
    note: str  # "shared", "tied: rolled off at the next night", ""


@dataclass(frozen=True)
class RowView:
    """A member's line of the standings as the page shows it ("=2" for a shared rank)."""

    rank: int
    rank_shown: str
    name: str
    totals: object  # clubs.standings.Totals
    paid_in: str  # "$24.00", as the reader's language writes it
    took_home: str


def standings_view(club, season, club_members=None):
    """The season's standings and prizes, with names and words for the page."""
    club_members = selectors.members(club) if club_members is None else club_members
    table = selectors.season_standings(club, season, club_members)
    names = {str(m.id): m.name for m in club_members}
    order = {str(m.id): place for place, m in enumerate(club_members)}
    notes = {
        "split": _("tie: shared"),
        "rolloff": _("tie: roll-off at the next night"),
    }
    prizes = [
        PrizeLine(p.key, prize_label(p.key),
                  [names[w] for w in sorted(p.winners, key=order.__getitem__)],  # the club's order
                  p.outcome, notes.get(p.outcome, ""))
        for p in table.prizes
    ]
    currency = club.prize_pot.currency or "USD"  # a club's pot has one from its form
    rows = [
        RowView(r.rank, f"={r.rank}" if r.tied else str(r.rank), r.name, r.totals,
                money_text(r.totals.paid_in, currency), money_text(r.totals.took_home, currency))
        for r in table.rows
    ]
    return {
        "rows": rows,
        "prizes": prizes,
        "nights_counted": table.nights,
        "pot_on": club.prize_pot.on,
        "currency": currency,
        "ranking_label": _lowered(str(club.get_ranking_display())),  # "ranked by most wins"
    }


def _lowered(label):
    return label[:1].lower() + label[1:]


def club_context(request, club, grant, night_made=None):
    """The club page: members, the season's nights, the rotation, the standings; for the
    organizer, the links and the forms that change the club."""
    season = selectors.latest_season(club)
    club_members = selectors.members(club)
    nights = selectors.night_views(club, season, club_members)
    context = {
        "club": club,
        "grant": grant,
        "season": season,
        "seasons": selectors.seasons(club),
        "members": selectors.current_members(club_members),
        "left_members": [m for m in club_members if m.left],
        "nights": nights,
        "rotation": selectors.rotation(season),
        "code_shown": party_code_shown(club.code),
        "join_url": join_url(request),
        "night_made": night_made,
        **standings_view(club, season, club_members),
    }
    if grant.organizer:
        base = site_url(request)
        context["organizer_link"] = selectors.organizer_link(club, base, _("Organizer"))
        context["nights"] = _with_host_links(nights, selectors.night_host_links(nights, base))
    return context


def _with_host_links(nights, links):
    """The nights with their host links and QR codes, for the organizer to hand over."""
    shown = []
    for night in nights:
        url = links.get(night.party_id, "")
        qr = selectors.LinkView(night.party_id, "host", "", url).qr_svg if url else ""
        shown.append(replace(night, host_link=url, host_qr=qr))
    return shown


def standings_context(club, season, grant):
    return {
        "club": club,
        "season": season,
        "seasons": selectors.seasons(club),
        "grant": grant,
        **standings_view(club, season),
    }


def standings_table(club, season):
    """The standings as a CSV's header and rows, in the page's order: numbers as numbers (the
    money in units, "12.50"), for a spreadsheet."""
    view = standings_view(club, season)
    header = [_("Rank"), _("Member"), _("Nights"), _("Wins"), _("Losses"), _("Buncos"),
              _("Mini Buncos"), _("Points"), _("Prizes won")]
    if view["pot_on"]:
        header += [_("Paid in (%(currency)s)") % {"currency": view["currency"]},
                   _("Took home (%(currency)s)") % {"currency": view["currency"]}]
    rows = []
    for row in view["rows"]:
        t = row.totals
        line = [row.rank, row.name, t.nights, t.wins, t.losses, t.buncos, t.mini_buncos,
                t.points, t.prizes]
        if view["pot_on"]:
            line += [money(t.paid_in).replace(",", ""), money(t.took_home).replace(",", "")]
        rows.append(line)
    return header, rows


def rotation_context(club, grant):
    season = selectors.latest_season(club)
    return {"club": club, "grant": grant, "season": season,
            "rotation": selectors.rotation(season)}
