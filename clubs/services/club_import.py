"""Making a club again from the file clubs.exchange writes: a new club with new ids, a new code
and a new organizer link, its members, seasons and host rotation, and each night's party made
again by the party import (parties.services.party_import, the same reading of a party's file a
host's import gets), linked back to the club.

One transaction: a file that does not hold together (not JSON, another format or version, a row
naming a member or season the file lacks, a night's party refused by the party import, a night's
player its party does not seat) is refused with what is wrong, and nothing is created."""

import datetime
import io
import json

from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction
from django.utils.translation import gettext as _

from clubs import access
from clubs.exchange import FORMAT, VERSION
from clubs.models import Club, ClubLink, ClubNight, HostMonth, Member, NightPlayer, Season
from clubs.services.errors import ClubError
from clubs.standings import RANKINGS
from parties.party_limits import MAX_PLAYERS, clean_player_name
from parties.services.party_import import party_import
from parties.translation import rule_error_text
from scoring import Rules, RulesError
from scoring.pot import Pot, PotError


class ClubImportRefused(ClubError):
    """A file that cannot become a club; the message says why, for the person importing it."""


def club_import(*, data: bytes) -> Club:
    """The new club made from the club file `data`, or ClubImportRefused with nothing made."""
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise ClubImportRefused(
            _("This is not a Bunco Night club file (it is not JSON).")
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ClubImportRefused(
            _("This is not a Bunco Night club file (its format is not named).")
        )
    version = document.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise ClubImportRefused(
            _("The club file's version is not one this server reads (up to %(newest)s).")
            % {"newest": VERSION}
        )
    try:
        return _create(document)
    except ClubError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, IntegrityError, DataError) as error:
        raise ClubImportRefused(
            _("The club file does not hold together (%(problem)s).") % {"problem": error}
        ) from None


@transaction.atomic
def _create(document):
    club = _club(document["club"])
    members = _members(club, document["members"])
    seasons = _seasons(club, document["seasons"])
    _host_months(document["host_months"], seasons, members)
    for night in document["nights"]:
        _night(night, seasons, members)
    ClubLink.objects.create(**_new_link(club))
    return club


def _new_link(club):
    link = access.new_salted(ClubLink(club=club))
    return {"club": club, "salt": link.salt, "token_hash": link.token_hash}


def _club(values):
    try:
        rules = Rules.from_options(values["options"])
        pot = Pot.from_dict(values["pot"])
    except (RulesError, PotError, TypeError, ValueError) as error:
        raise ClubImportRefused(
            _("The club's rules or pot cannot be played: %(problem)s")
            % {"problem": rule_error_text(error)}
        ) from None
    subs_count = values.get("subs_count_for_member")
    if values.get("ranking") not in RANKINGS or type(subs_count) is not bool:
        raise ClubImportRefused(_("The club's settings are not ones this server knows."))
    club = Club(
        name=str(values["name"]), code=access.new_club_code(), preset=str(values["preset"]),
        options=rules.to_options(), pot=pot.to_dict(), ranking=values["ranking"],
        subs_count_for_member=subs_count,
    )
    _checked(club, _("The club"), exclude=["code"])
    club.save()
    return club


def _checked(row, what, exclude=()):
    """`row`'s values by its fields' own rules, or the refusal naming `what`."""
    try:
        row.clean_fields(exclude=[*exclude, *(f.name for f in row._meta.fields if f.is_relation)])
    except ValidationError as error:
        problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())
        raise ClubImportRefused(f"{what}: {problems}") from None


def _members(club, rows):
    """The file's member ids -> the new members (a file from before members could leave has
    no fourth field: all are members)."""
    if not rows or len(rows) > MAX_PLAYERS:
        raise ClubImportRefused(
            _("A club file holds 1 to %(most)s members.") % {"most": MAX_PLAYERS}
        )
    made, names = {}, set()
    for row in rows:
        if not isinstance(row, list) or len(row) not in (3, 4):
            raise ClubImportRefused(_("The club file's members are not a club's."))
        old_id, name, position, left = (*row, False)[:4]
        if type(left) is not bool:
            raise ClubImportRefused(_("The club file's members are not a club's."))
        try:
            name = clean_player_name(str(name))
        except ValidationError as error:
            raise ClubImportRefused(" ".join(error.messages)) from None
        if type(old_id) is not int or old_id in made or name.casefold() in names:
            raise ClubImportRefused(_("The club file names a member twice: %(name)s.")
                                    % {"name": name})
        names.add(name.casefold())
        member = Member(club=club, name=name, position=position, left=left)
        _checked(member, name)
        made[old_id] = member
    Member.objects.bulk_create(made.values())
    return made


def _seasons(club, rows):
    made = {}
    for old_id, number, starts_on, closed_at in rows:
        season = Season(club=club, number=number, starts_on=_date(starts_on), closed_at=closed_at)
        _checked(season, _("Season %(number)s") % {"number": number})
        made[old_id] = season
    numbers = [s.number for s in made.values()]
    if not made or len(set(numbers)) != len(numbers) or len(set(made)) != len(rows):
        raise ClubImportRefused(_("The club file's seasons are not numbered once each."))
    if sum(s.closed_at is None for s in made.values()) > 1:
        raise ClubImportRefused(_("The club file has more than one season in play."))
    Season.objects.bulk_create(made.values())
    return made


def _date(text):
    if not isinstance(text, str):
        raise ClubImportRefused(_("The club file holds a date that is not a date."))
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ClubImportRefused(
            _("The club file holds a date that is not a date: %(text)s.") % {"text": text[:20]}
        ) from None


def _known(table, old_id, what):
    if old_id is None:
        return None
    found = table.get(old_id) if type(old_id) is int else None
    if found is None:
        raise ClubImportRefused(
            _("The club file points at %(what)s %(id)s, which it does not hold.")
            % {"what": what, "id": str(old_id)[:20]}
        )
    return found


def _host_months(rows, seasons, members):
    HostMonth.objects.bulk_create(
        HostMonth(season=_known(seasons, season_id, _("season")), month=_date(month),
                  member=_known(members, member_id, _("member")))
        for season_id, month, member_id in rows
    )


def _night(values, seasons, members):
    """One night: its party made again by the party import, then the club's rows for it."""
    day = _date(values["date"])
    season = _known(seasons, values["season"], _("season"))
    host = _known(members, values["host"], _("member"))
    if host is None:
        raise ClubImportRefused(_("The night of %(date)s has no host.") % {"date": day})
    try:
        party = party_import(file=io.BytesIO(json.dumps(values["party"]).encode()))
    except ClubError:
        raise
    except ValueError as error:  # the party import's refusal (a PartyError) says what is wrong
        raise ClubImportRefused(
            _("The night of %(date)s: %(problem)s") % {"date": day, "problem": error}
        ) from None
    night = ClubNight.objects.create(season=season, party=party, date=day, host=host)
    seated = set(party.players.filter(is_ghost=False).values_list("name", flat=True))
    rows = []
    for name, kind, member_id in values["players"]:
        if name not in seated or kind not in NightPlayer.Kind.values:
            raise ClubImportRefused(
                _("The night of %(date)s lists %(name)s, whom its party does not seat.")
                % {"date": day, "name": str(name)[:40]}
            )
        member = _known(members, member_id, _("member"))
        if kind == NightPlayer.Kind.MEMBER and member is None:
            raise ClubImportRefused(
                _("The night of %(date)s lists a player as a member without saying which.")
                % {"date": day}
            )
        rows.append(NightPlayer(night=night, name=name, kind=kind, member=member))
    NightPlayer.objects.bulk_create(rows)
