"""Reads: what the club's screens show, and each night's results as the standings count them,
read from the night's own party through parties.selectors (its score sheets, its prizes and
roll-offs, its pot) each time: the club stores no tally of its own."""

from dataclasses import dataclass

from django.urls import reverse

from clubs import access, standings
from clubs.models import Club, ClubNight, HostMonth, Member, Season
from parties import access as party_access
from parties import selectors as party_selectors
from parties.models import AccessLink, Party, Player
from parties.party_codes import party_code_shown
from scoring.pot import split_pot


def members(club: Club) -> list[Member]:
    """Everyone who has been a member, those who left included (their nights stay theirs)."""
    return list(club.members.order_by("position", "id"))


def current_members(club_members) -> list[Member]:
    """Those of `club_members` who have not left: the list, the night's form, the rotation."""
    return [m for m in club_members if not m.left]


def seasons(club: Club) -> list[Season]:
    return list(club.seasons.order_by("number"))


def season_in_play(club: Club) -> Season | None:
    return club.seasons.filter(closed_at__isnull=True).first()


def latest_season(club: Club) -> Season:
    """The season in play, or the last one closed (a club always has one)."""
    return season_in_play(club) or club.seasons.order_by("-number").first()


def season_of(club: Club, number) -> Season | None:
    return club.seasons.filter(number=number).first()


# -- who a night's player is to the club ----------------------------------------------------------


@dataclass(frozen=True)
class Who:
    """A night's player as the club sees them: "member" (themselves), "sub" (for `member`, or as
    a guest when `member` is None), or "guest" (joined the night another way)."""

    kind: str
    member_id: int | None = None

    def counts_for(self, subs_count_for_member):
        """The member whose season this player's night counts in, or None (a guest's)."""
        if self.kind == "member" or (self.kind == "sub" and subs_count_for_member):
            return self.member_id
        return None


def who_is_who(rows, member_ids_by_name):
    """Each player name of a night as the club sees them: its NightPlayer `rows`; a player of
    the party with none (a late arrival, a guest who added themselves) is the member of that
    name (compared as the party compares names, ignoring case), else a guest."""
    found = {row.name: Who(row.kind, row.member_id) for row in rows}

    def who(name):
        if name in found:
            return found[name]
        member_id = member_ids_by_name.get(name.casefold())
        return Who("member", member_id) if member_id else Who("guest")

    return who


def _member_ids_by_name(club_members):
    return {m.name.casefold(): m.id for m in club_members}


# -- a night's results, as the season counts them --------------------------------------------------


@dataclass(frozen=True)
class PartyNight:
    """A finished party's results as the standings read them: each real player's sheet, the
    prizes they won (settled, or shared) and the cents they took home, each player's buy-in,
    and who won the prizes of one moment (the last Bunco, the fuzzy die) alone."""

    players: tuple  # (player id, name, scoring.ScoreSheet, prizes won, cents taken home)
    paid_in: int  # cents each player put in (0: no pot)
    moments: dict  # "last_bunco" / "traveling" -> the player id who won it alone


# Each process keeps the finished nights it has read, by the party's id and sequence number
# (Party.seq): every write that changes what a party's results page shows moves that number on
# in its own transaction (a correction, a roll-off, the pot, a reopened round), as the results
# page's own refetch relies on, so a night read again after any change is read afresh. As
# parties.state keeps a round's live state by its version. A cache of reads, never a tally:
# nothing is written, and a process that forgets it only reads again.
_PARTY_NIGHTS: dict = {}
_KEPT_NIGHTS = 2048


def forget_nights():
    """Forget every night read (the benchmark's cold render, and tests)."""
    _PARTY_NIGHTS.clear()


def party_night(party: Party) -> PartyNight:
    """The party's results (parties.selectors.party_results: the results page's own read) and
    its pot split as that page splits it (scoring.pot.split_pot)."""
    key = (party.id, party.seq)
    found = _PARTY_NIGHTS.get(key)
    if found is not None:
        return found
    rows, prize_rows = party_selectors.party_results(party)
    pot = party.prize_pot
    winners = {p.key: [str(pid) for pid, _n in p.winners] for p in prize_rows}
    takes = split_pot(pot, len(rows), winners).take_home()  # everyone who played bought in
    won = {}
    for prize in prize_rows:
        if prize.circuit is None:  # settled, or shared; a roll-off still to roll wins nothing yet
            for player_id, _name in prize.winners:
                won[player_id] = won.get(player_id, 0) + 1
    moments = {p.key: p.winners[0][0] for p in prize_rows
               if p.key in ("last_bunco", "traveling") and len(p.winners) == 1}
    night = PartyNight(
        tuple((row.player_id, row.name, row.sheet, won.get(row.player_id, 0),
               takes.get(str(row.player_id), 0)) for row in rows),
        pot.buy_in_cents if pot.on else 0,
        moments,
    )
    if len(_PARTY_NIGHTS) >= _KEPT_NIGHTS:
        _PARTY_NIGHTS.clear()
    _PARTY_NIGHTS[key] = night
    return night


def night_result(night: ClubNight, who, subs_count_for_member) -> standings.Night:
    """The night's lines for the members it counts for, from its party's results."""
    read = party_night(night.party)
    counted = {}  # player id -> the member it counts for
    lines = []
    for player_id, name, sheet, prizes, took in read.players:
        member_id = who(name).counts_for(subs_count_for_member)
        if member_id is None:
            continue
        counted[player_id] = str(member_id)
        lines.append(standings.NightLine(
            member=str(member_id), wins=sheet.wins, losses=sheet.losses, buncos=sheet.buncos,
            mini_buncos=sheet.mini_buncos, points=sheet.points, prizes=prizes,
            paid_in=read.paid_in, took_home=took,
        ))
    return standings.Night(
        key=str(night.id), lines=tuple(lines),
        last_bunco=counted.get(read.moments.get("last_bunco")),
        fuzzy_die=counted.get(read.moments.get("traveling")),
    )


def finished_nights(season: Season):
    """The season's nights that count: their party is over, in the order they were played."""
    return list(
        season.nights.filter(party__status=Party.Status.FINISHED)
        .select_related("party")
        .prefetch_related("players")
        .order_by("date", "id")
    )


def season_standings(club: Club, season: Season, club_members=None) -> standings.Standings:
    """The season's standings, worked out from its finished nights as they are now."""
    club_members = members(club) if club_members is None else club_members
    by_name = _member_ids_by_name(club_members)
    nights = [
        night_result(night, who_is_who(night.players.all(), by_name), club.subs_count_for_member)
        for night in finished_nights(season)
    ]
    played = {line.member for night in nights for line in night.lines}
    return standings.season_standings(  # one who left stands where they played
        [(str(m.id), m.name) for m in club_members if not m.left or str(m.id) in played],
        nights,
        ranking=club.ranking,
        rules=club.rules,
        tied=club.prize_pot.tied,
    )


# -- the club page ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NightView:
    id: int
    date: object
    host: str
    party_id: int
    party_name: str
    status: str  # the party's (Party.Status)
    status_label: str
    code_shown: str
    members: list  # names of the members who played
    subs: list  # (sub's name, the member's name they played for, or "")
    guests: list  # names of the others who joined the night
    host_link: str = ""  # the night's host link, for the organizer only (clubs.pages)
    host_qr: str = ""

    @property
    def finished(self):
        return self.status == Party.Status.FINISHED


def night_views(club: Club, season: Season, club_members=None) -> list[NightView]:
    """Every night of the season, any status, with who came: three queries whatever the
    number of nights."""
    club_members = members(club) if club_members is None else club_members
    names = {m.id: m.name for m in club_members}
    by_name = _member_ids_by_name(club_members)
    nights = list(
        season.nights.select_related("party", "host").prefetch_related("players")
        .order_by("date", "id")
    )
    players = {}
    real = Player.objects.filter(party__in=[n.party_id for n in nights], is_ghost=False)
    for party_id, name in real.order_by("position").values_list("party_id", "name"):
        players.setdefault(party_id, []).append(name)
    views = []
    for night in nights:
        who = who_is_who(night.players.all(), by_name)
        came = {"member": [], "sub": [], "guest": []}
        for name in players.get(night.party_id, []):
            person = who(name)
            if person.kind == "sub":
                came["sub"].append((name, names.get(person.member_id, "")))
            else:
                came[person.kind].append(name)
        party = night.party
        views.append(NightView(
            night.id, night.date, night.host.name, party.id, party.name, party.status,
            str(party.get_status_display()), party_code_shown(party.code),
            came["member"], came["sub"], came["guest"],
        ))
    return views


def rotation(season: Season) -> list[HostMonth]:
    return list(season.host_months.select_related("member").order_by("month"))


def host_for(season: Season, day):
    """The member the rotation names for `day`'s month, or None."""
    month = day.replace(day=1)
    found = season.host_months.filter(month=month).select_related("member").first()
    return found.member if found else None


@dataclass(frozen=True)
class LinkView:
    """A link as the club page shows it: what it opens and its address (and QR code)."""

    id: int
    role: str
    label: str
    url: str

    @property
    def qr_svg(self):
        return party_selectors.LinkView(self.id, self.role, self.label, self.url).qr_svg


def organizer_link(club: Club, base_url: str, label: str) -> LinkView | None:
    link = access.live_links(club.id).order_by("-id").first()
    if link is None:
        return None
    url = base_url.rstrip("/") + reverse("clubs:redeem", args=[access.token_for(link)])
    return LinkView(link.id, "organizer", label, url)


def night_host_links(nights, base_url: str) -> dict:
    """Each night's host link (its party's own), by party id, for the organizer to hand over."""
    links = AccessLink.objects.filter(
        party_access.LIVE, party_id__in=[n.party_id for n in nights], role=AccessLink.Role.HOST
    )
    base = base_url.rstrip("/")
    return {
        link.party_id: base + reverse("parties:redeem", args=[party_access.token_for(link)])
        for link in links
    }
