"""Reads: what each screen shows, gathered in a few queries."""

from dataclasses import dataclass

import segno
from django.urls import reverse

from parties import access
from parties.models import AccessLink, Party, Round, ScoreSheetLine, Seat


def current_round(party: Party) -> Round:
    """The round being played, or the next to start (the last one once the party is over)."""
    rounds = Round.objects.filter(party=party).select_related("bunco_set")
    return rounds.exclude(status=Round.Status.CLOSED).first() or rounds.last()


@dataclass(frozen=True)
class SeatView:
    position: int
    player_id: int
    name: str
    is_ghost: bool
    partner: str


@dataclass(frozen=True)
class TableView:
    number: int
    seats: list

    @property
    def is_head(self):
        return self.number == 1

    @property
    def teams(self):
        """Seat pairs in the game's order: seats 1 and 3, then seats 2 and 4."""
        by_position = {seat.position: seat for seat in self.seats}
        return [
            [by_position[p] for p in pair if p in by_position] for pair in ((1, 3), (2, 4))
        ]

    @property
    def scorekeeper(self):
        """Seat 1 keeps score by default; a ghost cannot, so the next real player does."""
        return next((seat for seat in self.seats if not seat.is_ghost), None)


def seating(round_: Round) -> list[TableView]:
    seats = (
        Seat.objects.filter(round=round_)
        .select_related("table", "player")
        .order_by("table__number", "position")
    )
    tables = {}
    for seat in seats:
        tables.setdefault(seat.table.number, []).append(seat)
    views = []
    for number, table_seats in tables.items():
        by_position = {s.position: s for s in table_seats}
        views.append(
            TableView(
                number,
                [
                    SeatView(
                        s.position,
                        s.player_id,
                        s.player.name,
                        s.player.is_ghost,
                        _partner_name(by_position, s.position, len(table_seats)),
                    )
                    for s in table_seats
                ],
            )
        )
    return views


def _partner_name(by_position, position, table_size):
    if table_size < 4:
        return ""
    partner = by_position.get((position + 1) % 4 + 1)
    return partner.player.name if partner else ""


def seat_of(round_: Round, player_id: int):
    """Where a player sits this round, as a SeatView with its table number, or None."""
    for table in seating(round_):
        for seat in table.seats:
            if seat.player_id == player_id:
                return table.number, seat
    return None


@dataclass(frozen=True)
class LinkView:
    id: int
    role: str
    label: str
    url: str
    table_number: int | None = None

    @property
    def qr_svg(self):
        # segno escapes nothing user-typed here: the URL is ours, built from a token and ids.
        return segno.make(self.url, error="m").svg_inline(border=2, omitsize=True)


def party_links(party: Party, base_url: str) -> list[LinkView]:
    """Every live link, with its full URL from `base_url`, in the order the host hands them out."""
    links = (
        AccessLink.objects.filter(party=party, revoked_at__isnull=True)
        .select_related("table", "player")
        .order_by("role", "table__number", "player__position")
    )
    order = {AccessLink.Role.HOST: 0, AccessLink.Role.TABLE: 1, AccessLink.Role.PLAYER: 2}
    views = []
    for link in sorted(links, key=lambda link: order[link.role]):
        if link.role == AccessLink.Role.HOST:
            label = "Host"
        elif link.role == AccessLink.Role.TABLE:
            head = " (head table)" if link.table.number == 1 else ""
            label = f"Table {link.table.number}{head}"
        else:
            label = link.player.name
        url = base_url.rstrip("/") + reverse("parties:redeem", args=[access.token_for(link)])
        table_number = link.table.number if link.table else None
        views.append(LinkView(link.id, link.role, label, url, table_number))
    return views


@dataclass(frozen=True)
class SheetLine:
    set_number: int
    round_number: int
    table_number: int
    won: bool
    points: int
    buncos: int
    mini_buncos: int


@dataclass(frozen=True)
class ScoreSheet:
    lines: list

    @property
    def wins(self):
        return sum(line.won for line in self.lines)

    @property
    def losses(self):
        return len(self.lines) - self.wins

    @property
    def buncos(self):
        return sum(line.buncos for line in self.lines)

    @property
    def mini_buncos(self):
        return sum(line.mini_buncos for line in self.lines)

    @property
    def points(self):
        return sum(line.points for line in self.lines)


def score_sheet(player) -> ScoreSheet:
    lines = ScoreSheetLine.objects.filter(player=player).select_related(
        "round__bunco_set", "table"
    )
    return ScoreSheet(
        [
            SheetLine(
                line.round.bunco_set.number,
                line.round.number,
                line.table.number,
                line.won,
                line.points,
                line.buncos,
                line.mini_buncos,
            )
            for line in lines
        ]
    )
