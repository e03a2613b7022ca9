"""A club taken out of the app as one JSON document, which clubs.services.club_import makes
again on this or another server: the club's own rows, and each night as its party's file
(parties.exchange.exports.party_document, the file a host page downloads), with who played as
whom beside it.

Ids in the document are this server's, used only to say which row points at which; the import
gives every row a new one. Left out, as a party's file leaves them out: the organizer's link
(a capability: the importing server issues a new one) and the club's code (a new club gets its
own). Member and night names travel as they are: a night's players are matched to its party's
by name, which a party's file keeps (its players' ids change on import)."""

from django.db import transaction
from django.utils import timezone

from clubs.models import Club
from parties.exchange import exports

FORMAT = "bunco-night-club"
VERSION = 1


def _day(value):
    return value.isoformat() if value else None


def club_document(club: Club) -> dict:
    """The club and every night of every season, as one moment (each night's party is read
    under its lock, in one transaction)."""
    with transaction.atomic():
        members = list(club.members.order_by("position", "id"))
        seasons = list(club.seasons.order_by("number"))
        nights = [
            night
            for season in seasons
            for night in season.nights.select_related("party").prefetch_related("players")
            .order_by("date", "id")
        ]
        return {
            "format": FORMAT,
            "version": VERSION,
            "exported_at": timezone.now().isoformat(),
            "club_name": club.name,  # for a person opening the file; the import reads "club"
            "club": {
                "name": club.name, "preset": club.preset, "options": club.options,
                "pot": club.pot, "subs_count_for_member": club.subs_count_for_member,
                "ranking": club.ranking, "created_at": club.created_at.isoformat(),
            },
            "members": [[m.id, m.name, m.position, m.left] for m in members],
            "seasons": [[s.id, s.number, _day(s.starts_on), _day(s.closed_at)] for s in seasons],
            "host_months": [
                [hm.season_id, _day(hm.month), hm.member_id]
                for season in seasons for hm in season.host_months.order_by("month")
            ],
            "nights": [_night(night) for night in nights],
        }


def _night(night):
    return {
        "id": night.id,
        "season": night.season_id,
        "date": _day(night.date),
        "host": night.host_id,
        "players": [[p.name, p.kind, p.member_id] for p in night.players.order_by("id")],
        "party": exports.party_document(night.party),
    }
