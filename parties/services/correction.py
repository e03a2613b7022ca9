"""The steps every correction shares (roll_undo in parties.services.roll, roll_void and
roll_correct in parties.services.roll_correction, late_tap_apply and late_tap_dismiss in
parties.services.late_tap): they run inside those writes, under the party's lock, and are no
services of their own.

A roll is a fact that is voided, never edited; every change is a Correction that says who made
it, when, and what it changed (`effect_messages`: words for people, kept as message ids and
their values by parties.translation.deferred, and worded when read, in the reader's language).
Each correction locks the party's row first, as every live write does, so it is serialised with
the taps, the bell and the round's close. It decides on the round's rolls as the change would
leave them, replayed in memory (`decide`), and only then saves: refused, it has changed nothing.

The replay reads a round's rolls in the order they were played (parties.state.replay_order):
a corrected roll is entered again with the place of the roll it corrects, so the rolls after
it, and the bell, keep theirs.
"""

import uuid

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from parties import state
from parties.live import announce
from parties.models import Correction, Party, Roll, Round
from parties.selectors import reopen_refusal
from parties.services.changes import seq_bump
from parties.services.errors import PartyError
from parties.services.round import bump_round
from parties.services.round_close import (
    close_round,
    recompute_closed,
    reopen_round,
    starting_holder,
)
from parties.translation import deferred, round_said, rule_error_text
from scoring import InvalidRoll, NotAllowed
from scoring.quick import quick_outcomes


def decide(party, round_, rows, doing, rollers=None):
    """What a correction would leave of `round_`, decided before anything is saved: the round
    replayed from `rows` (state.roll_rows, as the change would leave them). Refused (PartyError)
    when the host has ended the party while the round was in play, when a roll could no longer
    be played, or when a closed round would be left unfinished after its next round started.
    `doing` says what was asked, for the refusal, in the reader's language ("void that roll");
    a dict as `rollers` learns who threw each roll (state.replayed)."""
    if round_.status == Round.Status.PLAYING and party.status == Party.Status.FINISHED:
        raise PartyError(_("The host ended the party; the round in play no longer counts."))
    live = replay_as(round_, party.rules, rows, doing, rollers)
    if round_.status == Round.Status.PLAYING or live.state.over:
        return live
    refusal = reopen_refusal(party, round_)
    if refusal:
        unfinished = [n for n, t in enumerate(live.state.tables, 1) if not t.done]
        raise PartyError(
            ngettext(
                # Translators: "tables" is a list of table numbers ("2, 5"); "round" is
                # "round 3" or "round 3 of set 2"; "refusal" says why ("the host ended the
                # party").
                "That would leave table %(tables)s of %(round)s unfinished, and %(refusal)s; "
                "nothing was changed.",
                "That would leave table %(tables)s of %(round)s unfinished, and %(refusal)s; "
                "nothing was changed.",
                len(unfinished),
            )
            % {
                "tables": unfinished_tables(live),
                "round": round_words(round_),
                "refusal": refusal,
            }
        )
    return live


def replay_as(round_, rules, rows, doing, rollers=None):
    """The round replayed from `rows` (nothing saved), or PartyError when a roll of it could
    then not be played."""
    try:
        return state.replayed(round_, rules, rows, state.bell_positions(round_), rollers)
    except (InvalidRoll, NotAllowed) as error:
        raise PartyError(
            _(
                # Translators: "doing" is what was asked, e.g. "void that roll"; "round" is
                # "round 3" or "round 3 of set 2"; "problem" is the rules' refusal.
                "Cannot %(doing)s: a roll of %(round)s could not be played after it "
                "(%(problem)s). Nothing was changed."
            )
            % {"doing": doing, "round": round_words(round_), "problem": rule_error_text(error)}
        ) from error


def settle(party, round_, before, correction, tables):
    """After the facts of `round_` changed (as `decide` found they may): replay it and bring
    everything derived from it in line (the live tables, or a closed round's sheets, rotation
    and fuzzy die). `before` is its replay from before the change, read first."""
    if round_.status == Round.Status.PLAYING:
        return settle_playing(party, round_, correction, tables, before)
    rules = party.rules
    taker_before = before.state.fuzzy_die
    bump_round(round_)
    live = state.load(round_, rules, written=True)
    if live.state.over:
        save_effects(correction, recompute_closed(party, round_, live, rules, taker_before))
        return live
    reopen_round(party, round_, live, starting_holder(round_, taker_before))
    unfinished = sum(not t.done for t in live.state.tables)
    save_effects(correction, [deferred.ngettext(
        # Translators: "round" is a round's name ("Set 1, round 3"); "tables" a list of table
        # numbers ("2, 5").
        "%(round)s is in play again: table %(tables)s plays on",
        "%(round)s is in play again: tables %(tables)s play on",
        unfinished, round=round_name(round_), tables=unfinished_tables(live),
    )])
    announce.on_commit_tables(party, live, list(range(1, len(live.seating) + 1)))
    return live


def settle_playing(party, round_, correction, tables, before):
    """settle for the round in play: its tables' pages, the bell if it was undone, and the
    round's close if the change finished it. `before`: its replay from before the change."""
    bump_round(round_)
    live = state.load(round_, party.rules, written=True)  # a void changes history: replay
    if not live.state.bell and round_.bell_at:
        Round.objects.filter(pk=round_.pk).update(bell_at=None)
    seq_bump(party)  # the bell, or a table's result, may have been undone
    save_effects(correction, table_changes(round_name(round_), before, live, tables))
    announce.on_commit_tables(party, live, tables)
    announce.on_commit_round(party, "corrected")
    if live.state.over:
        close_round(party, round_, live, party.rules, timezone.now())
    return live


def table_changes(name, before, live, tables):
    """A round in play's tables after a change, kept: the points, and each player's own points
    that changed ("Set 1, round 1, table 3: 12 – 9 → 10 – 9; Gail 2 → 0"). Numbers and names
    only, so the changes themselves are the same in every language (a ghost has no points of
    its own: its partner's are)."""
    effects = []
    for n in tables:
        was, now = before.table(n), live.table(n)
        words = [f"{' – '.join(map(str, was.points))} → {' – '.join(map(str, now.points))}"
                 if was.points != now.points else ' – '.join(map(str, now.points))]
        for player, points in now.personal_points.items():
            if was.personal_points.get(player, 0) != points:
                words.append(f"{live.names[player][0]} {was.personal_points.get(player, 0)} → "
                             f"{points}")
        effects.append(deferred.gettext(
            "%(round)s, table %(table)s: %(changes)s",
            round=name, table=n, changes="; ".join(words),
        ))
    return effects


def unfinished_tables(live):
    return ", ".join(str(n) for n, t in enumerate(live.state.tables, 1) if not t.done)


def new_correction(party, round_, kind, by, note):
    return Correction.objects.create(
        party=party, round=round_, kind=kind, made_by=by, note=note[:200]
    )


def save_effects(correction, effects):
    """Keep `effects` (kept values, parties.translation.deferred) as what `correction` changed."""
    correction.effect_messages = list(effects)
    Correction.objects.filter(pk=correction.pk).update(effect_messages=correction.effect_messages)


def round_name(round_):
    """The round's name at the start of a correction's line, kept: "Set 2, round 3"."""
    return round_said(round_.bunco_set.number, round_.number)


def round_words(round_):
    """The round's name in the middle of a sentence, in the reader's language: "round 3", or
    "round 3 of set 2" after the first set (round_name, lower case, for a refusal)."""
    if round_.bunco_set.number > 1:
        return _("round %(round)s of set %(set)s") % {
            "round": round_.number,
            "set": round_.bunco_set.number,
        }
    return _("round %(round)s") % {"round": round_.number}


def enter_again(old, entered_by, fresh, place=None):
    """A live roll entered again, with `fresh` columns if given: after the correction, or in
    `place` (the key of the roll it stands for: state.RollRow.key)."""
    row = Roll.objects.create(
        round_id=old.round_id,
        table_id=old.table_id,
        phase=old.phase,
        before_bell=old.before_bell,
        tap_id=uuid.uuid4(),
        entered_by=entered_by,
        place=place,
        **{**columns_of(old), "called": old.called, "roller_id": old.roller_id, **fresh},
    )
    Roll.objects.filter(pk=row.pk).update(created_at=old.created_at)  # when it was rolled
    return row.id


def columns_of(roll):
    return {
        "die1": roll.die1,
        "die2": roll.die2,
        "die3": roll.die3,
        "die4": roll.die4,
        "outcome": roll.outcome,
        "face": roll.face,
    }


def columns_dice(columns):
    return tuple(columns[f"die{i}"] for i in range(1, 5) if columns[f"die{i}"] is not None)


def entry_columns(rules, *, dice=None, outcome="", face=None):
    """A roll as the host (or a late tap) gives it, as Roll's columns: the dice, or a quick
    button's outcome and face. PartyError if it is not a roll this game can have."""
    none = {"die1": None, "die2": None, "die3": None, "die4": None, "outcome": "", "face": None}
    if outcome:
        if outcome not in quick_outcomes(rules):
            raise PartyError(_("That is not one of this game's quick buttons."))
        if face is not None and not 1 <= int(face) <= 6:
            raise PartyError(_("A mini Bunco's number is 1 to 6."))
        return {**none, "outcome": outcome, "face": int(face) if face is not None else None}
    try:
        faces = [int(d) for d in dice or ()]
    except (TypeError, ValueError):
        raise PartyError(_("Enter the dice as numbers, e.g. 2 2 6.")) from None
    if len(faces) != rules.dice or not all(1 <= d <= 6 for d in faces):
        raise PartyError(
            ngettext(
                "Enter %(count)s die, each 1 to 6.",
                "Enter %(count)s dice, each 1 to 6.",
                rules.dice,
            )
            % {"count": rules.dice}
        )
    return {**none, **{f"die{i}": d for i, d in enumerate(faces, start=1)}}
