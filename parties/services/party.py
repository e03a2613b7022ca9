"""Writes to a party: create it, seat round 1 again (reshuffle, swap), reseat between sets,
pause, resume and end it."""

import secrets

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from parties import access
from parties.models import AccessLink, BuncoSet, Correction, Party, Player, Round, Seat, Table
from parties.party_codes import new_party_code
from parties.party_limits import party_size_problem
from parties.services.changes import lock_party, party_changed
from parties.services.errors import PartyError
from parties.services.round import waiting_round
from parties.translation import deferred, name_said, round_said, rule_error_text
from scoring import (
    NotAllowed,
    Progress,
    Rules,
    SeatingError,
    check_seating,
    ghosts_needed,
    seat_players,
)

# 400 players is 100 tables: a school or church fundraiser's hall.


def _shuffled(items):
    items = list(items)
    secrets.SystemRandom().shuffle(items)
    return items


def check_language(language):
    """PartyError unless `language` is one the site speaks (a party's paper is printed in it)."""
    if language not in dict(settings.LANGUAGES):
        raise PartyError(
            _("“%(language)s” is not a language this site speaks.") % {"language": language}
        )


def party_paper_language(*, party: Party, language: str) -> None:
    """The language the party's paper prints in; no phone's page changes."""
    check_language(language)
    Party.objects.filter(pk=party.pk).update(language=language)
    party.language = language


@transaction.atomic
def party_create(
    *,
    name: str,
    player_names: list[str],
    preset: str,
    rules: Rules,
    language: str = "en",
    self_join: bool = False,
) -> Party:
    """A party with its players, ghosts, tables, sets, round 1 seated at random, and links;
    `language` is its paper's (settings.LANGUAGES). `self_join`: guests may add themselves with
    the code and their name (services.guests)."""
    problem = party_size_problem(len(player_names), rules)
    if problem:
        raise PartyError(problem)
    check_language(language)
    party = _with_free_code(
        name=name, preset=preset, options=rules.to_options(), language=language,
        self_join=self_join,
    )

    players = [
        Player(party=party, name=player_name, position=i)
        for i, player_name in enumerate(player_names, start=1)
    ]
    ghost_count = ghosts_needed(len(players), rules)
    # A ghost's name is stored, and party_limits.GHOST_NAME keeps "Ghost <n>" for them.
    players += [
        Player(party=party, name=f"Ghost {i}", is_ghost=True, position=len(players) + i)
        for i in range(1, ghost_count + 1)
    ]
    Player.objects.bulk_create(players)
    seating = first_seating(players, rules)  # as many tables as the rules' plan has
    tables = Table.objects.bulk_create(
        Table(party=party, number=n) for n in range(1, len(seating) + 1)
    )
    sets = BuncoSet.objects.bulk_create(
        BuncoSet(party=party, number=n) for n in range(1, rules.sets + 1)
    )
    first = Round.objects.create(party=party, bunco_set=sets[0], number=1, target=1)
    seat_round(first, tables, seating)

    AccessLink.objects.bulk_create(
        [access.new_salted(AccessLink(party=party, role=AccessLink.Role.HOST))]
        + [access.new_salted(AccessLink(party=party, role="table", table=t)) for t in tables]
        + [
            access.new_salted(AccessLink(party=party, role="player", player=p))
            for p in players
            if not p.is_ghost
        ]
    )
    return party


def _with_free_code(**fields):
    """A new Party row with `fields` and a random code no other party holds."""
    for _attempt in range(5):
        try:
            with transaction.atomic():
                return Party.objects.create(code=new_party_code(), **fields)
        except IntegrityError:  # the random code was taken; draw again
            continue
    # 31^12 codes make five collisions in a row unthinkable
    raise PartyError(_("Could not find a free party code; try again."))  # pragma: no cover


def first_seating(players, rules):
    """Round 1's seating of `players` (Player rows, ghosts among them), drawn at random."""
    by_key = {str(p.id): p for p in players}
    real = _shuffled(str(p.id) for p in players if not p.is_ghost)
    ghosts = _shuffled(str(p.id) for p in players if p.is_ghost)
    seating, _ghosts = seat_players(real, rules, ghost_names=ghosts)
    return [[by_key[key] for key in table] for table in seating]


def seat_round(round_, tables, seating):
    """Seat `round_`: each table of `tables` takes the players of its place in `seating`."""
    Seat.objects.bulk_create(
        Seat(round=round_, table=table, player=player, position=position)
        for table, seated in zip(tables, seating, strict=True)
        for position, player in enumerate(seated, start=1)
    )


def first_round_for_seating(party):
    """Round 1 of set 1, locked, while its seating may still change (before it starts)."""
    # Locked so a reseat and the start of round 1 cannot interleave.
    first = (
        Round.objects.select_for_update(of=("self",))
        .filter(party=party, bunco_set__number=1, number=1)
        .order_by()
        .get()
    )
    if party.status != Party.Status.SETUP or first.status != Round.Status.WAITING:
        raise PartyError(_("The seating is fixed once the first round has started."))
    return first


@transaction.atomic
def party_reshuffle(*, party: Party) -> None:
    """Draw a new random seating for round 1."""
    lock_party(party)
    first = first_round_for_seating(party)
    # Those seated now: a player who left (or the ghost a late arrival replaced) stays out.
    players = [seat.player for seat in first.seats.select_related("player")]
    tables = list(party.tables.all())
    first.seats.all().delete()
    seat_round(first, tables, first_seating(players, party.rules))
    party_changed(party, "seating")  # every phone already open shows the new chairs


@transaction.atomic
def party_swap_players(*, party: Party, player_a: int, player_b: int) -> None:
    """Swap two players' chairs for round 1, if the seating stays playable."""
    lock_party(party)
    first = first_round_for_seating(party)
    missing = _("Pick two different players of this party to swap.")
    swap_seats(party, first, player_a, player_b, missing)
    party_changed(party, "seating")


@transaction.atomic
def party_reseat(*, party: Party, player_a: int, player_b: int, by: str = "host") -> Correction:
    """Swap two players' seats in the waiting first round of a later set (`rotation: none`,
    where nobody moves by the rules), kept as a Correction(kind="reseat") with its effects.
    Where a swapped player was their table's chosen scorekeeper, the table goes back to the
    usual one (seat 1)."""
    if party.rules.rotation != "none":
        raise PartyError(
            _("The app moves everyone between rounds; reseating is for rotation none.")
        )
    round_ = waiting_round(party)
    if round_.number != 1 or round_.bunco_set.number == 1:
        raise PartyError(
            _("Players can be reseated between sets: before round 1 of the next set.")
        )
    a, b = swap_seats(
        party, round_, player_a, player_b,
        _("Pick two different players seated for the next round to swap."),
    )
    # Kept as words to be worded when read (parties.translation.deferred), as every correction's.
    effects = [deferred.gettext(
        # Translators: "round" is a round's name ("Set 2, round 1"); "first" and "second" are
        # the two players, each with the table and seat they sit at now.
        "%(round)s: %(first)s and %(second)s swap seats; %(first)s now sits at table "
        "%(first_table)s, seat %(first_seat)s, and %(second)s at table %(second_table)s, "
        "seat %(second_seat)s",
        round=round_said(round_.bunco_set.number, round_.number),
        first=name_said(b.player.name, b.player.is_ghost),
        first_table=b.table.number,
        first_seat=b.position,
        second=name_said(a.player.name, a.player.is_ghost),
        second_table=a.table.number,
        second_seat=a.position,
    )]
    if a.keeps_score or b.keeps_score:
        Seat.objects.filter(round=round_, table_id__in=[a.table_id, b.table_id]).update(
            keeps_score=False
        )
        effects.append(deferred.gettext("The usual scorekeeper (seat 1) keeps score there again"))
    correction = Correction.objects.create(
        party=party, round=round_, kind=Correction.Kind.RESEAT, made_by=by,
        effect_messages=effects,
    )
    party_changed(party, "seating")
    return correction


def swap_seats(party, round_, player_a, player_b, missing):
    """Swap two players' chairs in `round_` (not started), if the seating stays playable: the
    two seats as they were (each now holding the other player), or PartyError (`missing` when
    the two are not two players seated in that round)."""
    seats = list(
        Seat.objects.filter(round=round_)
        .select_related("player", "table")
        .order_by("table__number", "position")
    )
    by_player = {seat.player_id: seat for seat in seats}
    if player_a == player_b or player_a not in by_player or player_b not in by_player:
        raise PartyError(missing)
    a, b = by_player[player_a], by_player[player_b]
    a.player, b.player = b.player, a.player
    seating, ghosts = as_scoring_seating(seats)
    try:
        check_seating(seating, party.rules, ghosts)
    except SeatingError as error:
        raise PartyError(
            _("That swap cannot be played: %(problem)s.") % {"problem": rule_error_text(error)}
        ) from None
    # Both chairs are taken under a unique constraint, so clear them and seat the pair again.
    Seat.objects.filter(pk__in=[a.pk, b.pk]).delete()
    Seat.objects.bulk_create(
        Seat(round=round_, table=s.table, player=s.player, position=s.position) for s in (a, b)
    )
    return a, b


def as_scoring_seating(seats):
    """`seats` (in table and position order, with player and table) as scoring's seating of
    player ids, and which of them are ghosts."""
    tables = {}
    for seat in seats:
        tables.setdefault(seat.table.number, []).append(str(seat.player.id))
    ghosts = frozenset(str(seat.player.id) for seat in seats if seat.player.is_ghost)
    return [tables[n] for n in sorted(tables)], ghosts


@transaction.atomic
def party_pause(*, party: Party) -> None:
    lock_party(party)
    if party.paused_at or party.status != Party.Status.PLAYING:
        raise PartyError(_("Only a party in play can be paused."))
    Party.objects.filter(pk=party.pk).update(paused_at=timezone.now())
    party_changed(party, "paused")


@transaction.atomic
def party_resume(*, party: Party) -> None:
    """Resume after a pause (the clock of a timed round gets the paused time back) or a break."""
    lock_party(party)
    if party.paused_at:
        paused_for = timezone.now() - party.paused_at
        Round.objects.filter(
            party=party, status=Round.Status.PLAYING, ends_at__isnull=False
        ).update(ends_at=F("ends_at") + paused_for)
        Party.objects.filter(pk=party.pk).update(paused_at=None)
    else:
        try:
            resumed = _progress(party).resume()
        except NotAllowed as error:
            raise PartyError(_("The party is neither paused nor on a break.")) from error
        Party.objects.filter(pk=party.pk).update(status=_STATUS[resumed.state])
    party_changed(party, "resumed")


@transaction.atomic
def party_end(*, party: Party) -> None:
    """End the night early. A round in play marks no sheet, but its rolls are kept."""
    lock_party(party)
    try:
        ended = _progress(party).end_early()
    except NotAllowed as error:
        raise PartyError(_("The party is already over.")) from error
    Party.objects.filter(pk=party.pk).update(status=_STATUS[ended.state], paused_at=None)
    party_changed(party, "ended")


# The party's status for each of scoring's Progress states, and back.
_STATUS = {
    "playing": Party.Status.PLAYING,
    "break": Party.Status.BREAK,
    "over": Party.Status.FINISHED,
}


def _progress(party) -> Progress:
    """Where the night is, as scoring's `Progress` sees it, for the host's break and end
    (which ask only whether the party plays, rests or is over; a party being set up plays)."""
    state_ = {status: key for key, status in _STATUS.items()}.get(party.status, "playing")
    return Progress(party.rules, state=state_)
