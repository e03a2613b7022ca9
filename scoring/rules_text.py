"""The night's rules in plain sentences for the players' rule sheet, from a `Rules` value.

Each option changes the sentence of its own topic and no other, and a sentence speaks only of
what the night plays: with no fuzzy die the sheet names no traveling triple, and individual
play speaks of players, never of teams or partners. The topics follow docs/rules.md.

Every sentence is translatable without Django here: the caller passes its `gettext` and
`ngettext` (English by default), and each sentence is written whole, at a call `makemessages`
finds by name (`_("...")`, `ngettext("...", "...", n)`), its values in named placeholders.
Sentences of one topic are joined by a space.
"""

from __future__ import annotations

from collections.abc import Callable

from scoring.rules import Rules

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def _identity(message: str) -> str:
    return message


def _identity_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def rules_sentences(
    rules: Rules,
    tables: int | None = None,
    tied_prize: str = "rolloff",
    *,
    gettext: Gettext = _identity,
    ngettext: Ngettext = _identity_plural,
) -> list[tuple[str, str]]:
    """(heading, text) for each topic of the night's rules, in the order a player needs them.

    `tables`, when known, lets "moving" speak of the night's own tables (with one table nobody
    moves; with two the ladder is a swap); without it the sentence covers any number.
    `tied_prize` is how the night settles a tied prize (scoring.pot.Pot.tied): a roll-off, or
    a split between the tied players. `gettext` and `ngettext` translate (django.utils.
    translation's, say); without them the sheet is in English.
    """
    _ = gettext
    return [
        (_("Target"), _target(rules, _)),
        (_("Points"), _points(rules, _)),
        ("Bunco", _bunco(rules, _)),  # the game's name, in every language
        (_("Mini Bunco"), _mini_bunco(rules, _)),
        (_("Calling"), _calling(rules, _)),
        (_("End of a round"), _round_end(rules, _, ngettext)),
        (_("Ties"), _ties(rules, _)),
        (_("Score sheet"), _score_sheet(rules, _)),
        (_("Moving"), _moving(rules, tables, _)),
        (_("Partners") if rules.team_size == 2 else _("Playing alone"), _partners(rules, _)),
        (_("Sets"), _sets(rules, _)),
        (_("Fuzzy die"), _traveling(rules, _)),
        (_("Prizes"), _prizes(rules, tied_prize, _)),
    ]


def _sentences(*texts: str) -> str:
    return " ".join(text for text in texts if text)


def _target(rules: Rules, _: Gettext) -> str:
    roll = _("Roll three dice.") if rules.dice == 3 else _("Roll four dice.")
    return _sentences(
        roll,
        _(
            "Each round has a target number: round 1 rolls for 1s, round 2 for 2s, and so on "
            "up to round 6 for 6s."
        ),
    )


def _points(rules: Rules, _: Gettext) -> str:
    # Faces are never added up, the most common mistake of new players: say it with an example.
    example = "2-2-6" if rules.dice == 3 else "2-2-6-5"
    whose = _("Points are your team's.") if rules.team_size == 2 else _("Points are your own.")
    return _sentences(
        _(
            "The scorekeeper rolls first. Each die showing the target scores 1 point, and the "
            "other faces score nothing, however high: in round 2, %(example)s is 2 points. Keep "
            "rolling while you score; when a roll scores nothing, pass the dice to your left."
        )
        % {"example": example},
        whose,
    )


def _then(ends_turn: bool, _: Gettext) -> str:
    return _("Then pass the dice to your left.") if ends_turn else _("Then roll again.")


def _bunco(rules: Rules, _: Gettext) -> str:
    if rules.dice == 3:
        worth = _("All three dice showing the target is a Bunco: 21 points.")
    else:
        worth = _("All four dice showing the target is a Bunco: 21 points.")
    if rules.team_size == 2:
        mark = _(
            "The Bunco is marked on the roller's own score sheet (the partner shares the points, "
            "not the mark)."
        )
    else:
        mark = _("The Bunco is marked on the roller's own score sheet.")
    return _sentences(worth, _then(rules.bunco_ends_turn, _), mark)


def _mini_bunco(rules: Rules, _: Gettext) -> str:
    if rules.dice == 4:
        worth = _(
            "Four of a kind of any other number is a mini Bunco: 5 points if that number is "
            "below the target, 7 if above. Three of a kind scores nothing special."
        )
    elif rules.mini_bunco_points == "sum":
        worth = _(
            "Three of a kind of any other number is a mini Bunco, worth its three faces added "
            "up (three 4s score 12)."
        )
    else:
        worth = _("Three of a kind of any other number is a mini Bunco: 5 points.")
    return _sentences(
        worth,
        _then(rules.mini_bunco_ends_turn, _),
        _("The mini Bunco is marked on the roller's own sheet."),
    )


def _calling(rules: Rules, _: Gettext) -> str:
    bunco, mini = rules.bunco_must_be_called, rules.mini_bunco_must_be_called
    if bunco and mini:
        return _(
            'Call it out: shout "Bunco!" for a Bunco and "mini Bunco!" for a mini Bunco. One '
            "not called scores nothing, gets no mark and ends the turn."
        )
    if bunco:
        return _(
            'Shout "Bunco!" when you roll one: a Bunco not called scores nothing, gets no mark '
            "and ends the turn. A mini Bunco scores whether you call it or not."
        )
    if mini:
        return _(
            'Shout "mini Bunco!" when you roll one: a mini Bunco not called scores nothing, gets '
            "no mark and ends the turn. A Bunco scores whether you call it or not."
        )
    return _("A Bunco or a mini Bunco scores whether you call it out or not.")


def _round_end(rules: Rules, _: Gettext, ngettext: Ngettext) -> str:
    points = {"points": rules.play_to}
    teams = rules.team_size == 2
    if rules.round_end == "each_table":
        if teams:
            start = _(
                "Each table plays on its own: the first team to reach %(points)s points wins the "
                "round at that table (a Bunco wins at once). The round is over when every table "
                "has finished."
            )
        else:
            start = _(
                "Each table plays on its own: the first player to reach %(points)s points wins "
                "the round at that table (a Bunco wins at once). The round is over when every "
                "table has finished."
            )
        everywhere = _bell_everywhere(rules, _) if rules.bunco_ends_round == "everywhere" else ""
        return _sentences(start % points, everywhere)
    if rules.round_end == "timed":
        start = ngettext(
            "Each round lasts %(minutes)s minute on the host's clock, and the bell rings when "
            "time is up (the host may ring it sooner). Reaching a score ends nothing.",
            "Each round lasts %(minutes)s minutes on the host's clock, and the bell rings when "
            "time is up (the host may ring it sooner). Reaching a score ends nothing.",
            rules.round_minutes,
        ) % {"minutes": rules.round_minutes}
    elif teams:
        start = _(
            "The head table (table 1) starts each round. When a team there reaches %(points)s "
            "points, the bell rings on every phone; at the other tables reaching the score ends "
            "nothing."
        ) % points
    else:
        start = _(
            "The head table (table 1) starts each round. When a player there reaches "
            "%(points)s points, the bell rings on every phone; at the other tables reaching the "
            "score ends nothing."
        ) % points
    if rules.bunco_ends_round == "everywhere":
        start = _sentences(start, _("A Bunco at any table rings the bell for every table at once."))
    return _sentences(start, _after_bell(rules, _))


def _after_bell(rules: Rules, _: Gettext) -> str:
    """What happens once the bell rings, and who wins each table."""
    if rules.finish_turn_after_bell and rules.team_size == 2:
        return _(
            "After the bell, whoever holds the dice finishes their turn, and those points count; "
            "then the team with more points at each table wins the round there."
        )
    if rules.finish_turn_after_bell:
        return _(
            "After the bell, whoever holds the dice finishes their turn, and those points count; "
            "then the highest scorer at each table wins the round there."
        )
    if rules.team_size == 2:
        return _(
            "Every table stops the moment the bell rings; then the team with more points at each "
            "table wins the round there."
        )
    return _(
        "Every table stops the moment the bell rings; then the highest scorer at each table wins "
        "the round there."
    )


def _bell_everywhere(rules: Rules, _: Gettext) -> str:
    """A Bunco that rings the bell everywhere, where each table plays to the score on its own."""
    if rules.finish_turn_after_bell and rules.team_size == 2:
        return _(
            "A Bunco at any table rings the bell for every table at once: after the bell, "
            "whoever holds the dice finishes their turn, and those points count; then the team "
            "with more points at each table wins the round there."
        )
    if rules.finish_turn_after_bell:
        return _(
            "A Bunco at any table rings the bell for every table at once: after the bell, "
            "whoever holds the dice finishes their turn, and those points count; then the "
            "highest scorer at each table wins the round there."
        )
    if rules.team_size == 2:
        return _(
            "A Bunco at any table rings the bell for every table at once: every table stops the "
            "moment the bell rings; then the team with more points at each table wins the round "
            "there."
        )
    return _(
        "A Bunco at any table rings the bell for every table at once: every table stops the "
        "moment the bell rings; then the highest scorer at each table wins the round there."
    )


def _ties(rules: Rules, _: Gettext) -> str:
    teams = rules.team_size == 2
    if rules.tie_break == "rolloff_dice_total" and teams:
        return _(
            "A table whose teams are level when play stops settles it in a roll-off: each tied "
            "team throws three dice once, the higher total of the faces wins, and level totals "
            "throw again. The roll-off adds no points and no marks."
        )
    if rules.tie_break == "rolloff_dice_total":
        return _(
            "A table whose players are level when play stops settles it in a roll-off: each "
            "tied player throws three dice once, the higher total of the faces wins, and level "
            "totals throw again. The roll-off adds no points and no marks."
        )
    if teams:
        return _(
            "A table whose teams are level when play stops settles it in a roll-off: starting "
            "with the scorekeeper, every player of the tied teams takes one turn for the target; "
            "if one team is ahead once everyone has rolled, it wins, else they go round again. "
            "Roll-off points only settle the tie (a Bunco rolled in it still gets its mark)."
        )
    return _(
        "A table whose players are level when play stops settles it in a roll-off: starting "
        "with the scorekeeper, every tied player takes one turn for the target; if one player is "
        "ahead once everyone has rolled, it wins, else they go round again. Roll-off points only "
        "settle the tie (a Bunco rolled in it still gets its mark)."
    )


def _score_sheet(rules: Rules, _: Gettext) -> str:
    if rules.team_size == 2:
        return _(
            "After each round your sheet gets a W if your team won at your table, else an L; "
            "partners get the same mark. Your Buncos and mini Buncos are counted on it too, and "
            "so are your personal points, the points of the rolls you threw. Table scores start "
            "again at 0 every round."
        )
    return _(
        "After each round your sheet gets a W if you won at your table, else an L. Your Buncos "
        "and mini Buncos are counted on it too, and so are your personal points, the points of "
        "the rolls you threw. Table scores start again at 0 every round."
    )


def _moving(rules: Rules, tables: int | None, _: Gettext) -> str:
    if rules.rotation == "none" or tables == 1:
        return _("Nobody changes tables.")
    if rules.small_group == "boxed_plans":
        return _(
            "After each round the winners stay at their table and the losers move down one. "
            "The last table's players go up to table 1: all of them where two play alone there "
            "(5, 6, 9 and 10 players), only its losers with 7 and 8. At one table nobody moves."
        )
    if tables == 2 and rules.rotation == "losers_down_wrap":
        return _(
            "After each round, the losers of the two tables change tables; everyone else stays."
        )
    if tables == 2:  # the ladder, and the head losers' drop to the bottom, are one swap
        return _(
            "After each round, the head table's losers and table 2's winners change tables; "
            "everyone else stays."
        )
    if rules.rotation == "ladder":
        return _(
            "After each round, the head table's winners stay and its losers go down to table 2. "
            "At the other tables the winners move up one table and the losers down one; at the "
            "bottom table the losers stay."
        )
    if rules.rotation == "head_losers_to_bottom":
        return _(
            "After each round, the head table's winners stay and its losers go to the bottom "
            "table. At every other table the winners move up one table and the losers stay."
        )
    return _(
        "After each round, the winners stay at their table and the losers move down one; the "
        "bottom table's losers go up to the head table."
    )


def _partners(rules: Rules, _: Gettext) -> str:
    if rules.team_size == 1:
        return _(
            "Everyone plays for themself, two to four players a table, and the highest scorer "
            "wins the table."
        )
    if rules.small_group == "boxed_plans":
        return _(
            "A table of 4 plays in two teams, partners across from each other, and the pairs "
            "split up after every round so everyone has a new partner. At a table of 2 or 3, "
            "and at the one-table game, everyone plays alone and the highest scorer wins the "
            "table. There are no ghosts."
        )
    if rules.partners == "movers_keep_partners":
        pairs = _(
            "Your partner sits across from you. Two pairs who arrive at a table together stay "
            "partners; where one pair stayed, both pairs split up, so everyone there gets a "
            "new partner."
        )
    else:
        pairs = _(
            "Your partner sits across from you. After every round the two pairs at each table "
            "split up, so everyone has a new partner every round; your phone shows where to sit."
        )
    return _sentences(
        pairs,
        _(
            "An empty chair holds a ghost: its partner rolls its turn too, and a ghost wins no "
            "prize."
        ),
    )


def _sets(rules: Rules, _: Gettext) -> str:
    if rules.sets == 1:
        night = _("The night is one set of 6 rounds.")
    elif rules.sets == 2:
        night = _("The night is two sets of 6 rounds; each set starts again at round 1.")
    elif rules.sets == 3:
        night = _("The night is three sets of 6 rounds; each set starts again at round 1.")
    else:
        night = _("The night is four sets of 6 rounds; each set starts again at round 1.")
    rest = (
        _("There is a break after set %(set)s.") % {"set": rules.break_after_set}
        if rules.break_after_set
        else ""
    )
    return _sentences(night, rest)


def _traveling(rules: Rules, _: Gettext) -> str:
    if rules.traveling == "off":
        return _("No fuzzy die tonight.")
    if rules.traveling == "triple":
        takes = _(
            "Whoever rolls %(face)s-%(face)s-%(face)s, in any round, takes the fuzzy die."
        ) % {"face": rules.traveling_triple}
    else:
        takes = _("Whoever rolls a Bunco takes the fuzzy die.")
    if rules.fuzzy_die_starts == "head_table":
        start = _("It starts with the head table's scorekeeper of the first round.")
    else:
        start = _("Nobody holds it until someone first takes it.")
    end = (
        _("Whoever holds it at the end of the night wins a prize.")
        if "traveling" in rules.prizes
        else ""
    )
    return _sentences(takes, start, end)


def _prizes(rules: Rules, tied_prize: str, _: Gettext) -> str:
    if not rules.prizes:
        return _("No prizes tonight.")
    listed = {"prizes": _listed([_prize(key, rules, _) for key in rules.prizes], rules, _)}
    if tied_prize == "split":
        return _(
            "Prizes for %(prizes)s. A prize still tied at the end is shared by the tied players."
        ) % listed
    return _(
        "Prizes for %(prizes)s. A prize still tied at the end is settled by a roll-off: each "
        "tied player throws three dice once and the highest total wins."
    ) % listed


def _listed(phrases: list[str], rules: Rules, _: Gettext) -> str:
    """The prizes as one list: "a, b and c", or "a; b; c" where the overall prize (which
    explains its tie with a comma) is among them."""
    if "overall" in rules.prizes:
        listed = phrases[0]
        for phrase in phrases[1:]:
            # Translators: joins the prizes when one of them has commas of its own.
            listed = _("%(list)s; %(prize)s") % {"list": listed, "prize": phrase}
        return listed
    listed = phrases[0]
    for phrase in phrases[1:-1]:
        # Translators: joins the prizes of a list, but the last.
        listed = _("%(list)s, %(prize)s") % {"list": listed, "prize": phrase}
    if len(phrases) > 1:
        # Translators: joins the last prize to the list.
        listed = _("%(list)s and %(prize)s") % {"list": listed, "prize": phrases[-1]}
    return listed


def _prize(key: str, rules: Rules, _: Gettext) -> str:
    if key == "overall":
        return _overall(rules, _)
    return {
        "most_wins": _("the most wins"),
        "most_buncos": _("the most Buncos"),
        "most_losses": _("the most losses"),
        "most_mini_buncos": _("the most mini Buncos"),
        "even_wins_losses": _("everyone whose wins equal their losses"),
        "last_bunco": _("the night's last Bunco"),
        "traveling": _("whoever holds the fuzzy die at the end"),
        "highest_points": _("the most personal points"),
        "lowest_points": _("the fewest personal points"),
    }[key]


def _overall(rules: Rules, _: Gettext) -> str:
    buncos = rules.overall_tiebreak == "buncos"
    if rules.team_size == 1 and buncos:
        return _("the overall winner (the most personal points, a tie going to the most Buncos)")
    if rules.team_size == 1:
        return _("the overall winner (the most personal points, a tie going to the most wins)")
    if buncos:
        return _("the overall winner (the most wins, a tie going to the most Buncos)")
    return _("the overall winner (the most wins, a tie going to the most personal points)")
