"""Late taps: a roll a phone entered for a round that closed before the roll reached the server.

The phone may have been offline, or a few seconds behind the dice when the last table finished.
Such a roll is never thrown away and never counted on its own: it is kept as a `LateTap` for
the host, who applies it to its round (a correction: parties.corrections) or dismisses it.
The phone is told where its roll went. Called by `play.roll_record`, under the party's lock.
"""

from dataclasses import dataclass

from parties import state
from parties.models import LateTap, Party, Round, Table
from parties.services import PartyError
from scoring import InvalidRoll, NotAllowed, RollFact
from scoring.quick import entry_words, quick_dice
from scoring.roll import check_dice


@dataclass(frozen=True)
class Held:
    late_tap: LateTap
    message: str
    new: bool  # False for a resent tap, held already


def hold(*, party_id, round_id, table_number, tap_id, roll, seen, bell_seen, entered_by):
    """Keep a tap for round `round_id` if that round of this party has closed: the `Held` tap
    (a resent one is held once), or None when that round is not a closed round of the party.
    `roll` is {"dice": [...], "outcome", "face", "called"} as the phone sent it. A roll that
    could never be played there (wrong dice, a quick button this game has not) is refused with
    PartyError, as it would be on time."""
    round_ = (
        Round.objects.select_related("bunco_set")
        .filter(pk=round_id, party_id=party_id, status=Round.Status.CLOSED)
        .first()
    )
    if round_ is None:
        return None
    earlier = LateTap.objects.select_related("table").filter(tap_id=tap_id).first()
    if earlier is not None:
        if earlier.party_id != party_id or earlier.table.number != table_number:
            raise PartyError("That tap id belongs to another table.")
        return Held(earlier, _message(round_, earlier.description), new=False)
    table = Table.objects.filter(party_id=party_id, number=table_number).first()
    if table is None:
        raise PartyError(f"There is no table {table_number}.")
    rules = Party.objects.only("options").get(pk=party_id).rules
    live = state.load(round_, rules)
    if not 1 <= table_number <= len(live.seating):
        raise PartyError(f"Table {table_number} did not play in that round.")
    played = live.table(table_number)
    if bell_seen is False and played.at_bell is not None:
        played = played.at_bell  # the table as its phone last knew it
    entry = _check(roll, round_.target, played)
    roller = played.roller
    who = f" for {live.names[roller][0]}" if roller is not None else ""
    when = ", made before the bell" if bell_seen is False else ""
    # A roll entered on a table another phone had changed since may be that phone's roll again
    # (two phones, one throw): the host is told, and decides.
    since = live.extras[table_number - 1].version != seen
    other = "; another phone had entered rolls at that table since" if since else ""
    description = f"{entry}{who}{when}{other}"
    late = LateTap.objects.create(
        party_id=party_id,
        round=round_,
        table=table,
        tap_id=tap_id,
        fields={**roll, "seen": seen, "bell_seen": bell_seen},
        description=description[:200],
        entered_by=entered_by,
    )
    return Held(late, _message(round_, description), new=True)


def _check(roll, target, table):
    """The roll in words, if it is a roll this game can have; else PartyError. A table that is
    done takes no more rolls: whether this one fits there is the host's call, later."""
    try:
        if roll["outcome"]:
            quick_dice(roll["outcome"], target, table.rules, roll["face"])
            return entry_words(roll["outcome"], roll["face"])
        dice = tuple(roll["dice"])
        if table.done:
            check_dice(dice, table.rules.dice)
        else:
            table.check(RollFact(dice, True))
        return entry_words(dice=dice)
    except (InvalidRoll, NotAllowed) as error:
        raise PartyError(str(error)) from error


def _message(round_, description):
    return (
        f"Set {round_.bunco_set.number}, round {round_.number} had closed before this roll "
        f"arrived, so it went to the host, who can add it to that round: {description}."
    )
