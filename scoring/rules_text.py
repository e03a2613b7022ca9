"""The night's rules in plain sentences for the players' rule sheet, from a `Rules` value.

Each option changes the sentence of its own topic and no other, and a sentence speaks only of
what the night plays: with no fuzzy die the sheet names no traveling triple, and individual
play speaks of players, never of teams or partners. The topics follow docs/rules.md.
"""

from __future__ import annotations

from scoring.rules import Rules

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 6: "six"}


def rules_sentences(
    rules: Rules, tables: int | None = None, tied_prize: str = "rolloff"
) -> list[tuple[str, str]]:
    """(heading, text) for each topic of the night's rules, in the order a player needs them.

    `tables`, when known, lets "moving" speak of the night's own tables (with one table nobody
    moves; with two the ladder is a swap); without it the sentence covers any number.
    `tied_prize` is how the night settles a tied prize (scoring.pot.Pot.tied): a roll-off, or
    a split between the tied players.
    """
    return [
        ("Target", _target(rules)),
        ("Points", _points(rules)),
        ("Bunco", _bunco(rules)),
        ("Mini Bunco", _mini_bunco(rules)),
        ("Calling", _calling(rules)),
        ("End of a round", _round_end(rules)),
        ("Ties", _ties(rules)),
        ("Score sheet", _score_sheet(rules)),
        ("Moving", _moving(rules, tables)),
        ("Partners" if rules.team_size == 2 else "Playing alone", _partners(rules)),
        ("Sets", _sets(rules)),
        ("Fuzzy die", _traveling(rules)),
        ("Prizes", _prizes(rules, tied_prize)),
    ]


def _side(rules: Rules) -> str:
    return "team" if rules.team_size == 2 else "player"


def _target(rules: Rules) -> str:
    dice = _NUMBER_WORDS[rules.dice]
    return (
        f"Roll {dice} dice. Each round has a target number: round 1 rolls for 1s, round 2 for "
        "2s, and so on up to round 6 for 6s."
    )


def _points(rules: Rules) -> str:
    # Faces are never added up, the most common mistake of new players: say it with an example.
    whose = "your team's" if rules.team_size == 2 else "your own"
    example = "2-2-6" if rules.dice == 3 else "2-2-6-5"
    return (
        "The scorekeeper rolls first. Each die showing the target scores 1 point, and the other "
        f"faces score nothing, however high: in round 2, {example} is 2 points. Keep rolling "
        f"while you score; when a roll scores nothing, pass the dice to your left. Points are "
        f"{whose}."
    )


def _after(ends_turn: bool) -> str:
    return "pass the dice to your left" if ends_turn else "roll again"


def _bunco(rules: Rules) -> str:
    all_dice = "all three dice" if rules.dice == 3 else "all four dice"
    return (
        f"{all_dice.capitalize()} showing the target is a Bunco: 21 points. Then "
        f"{_after(rules.bunco_ends_turn)}. The Bunco is marked on the roller's own score sheet"
        + (" (the partner shares the points, not the mark)." if rules.team_size == 2 else ".")
    )


def _mini_bunco(rules: Rules) -> str:
    if rules.dice == 4:
        worth = (
            "Four of a kind of any other number is a mini Bunco: 5 points if that number is "
            "below the target, 7 if above. Three of a kind scores nothing special."
        )
    elif rules.mini_bunco_points == "sum":
        worth = (
            "Three of a kind of any other number is a mini Bunco, worth its three faces added "
            "up (three 4s score 12)."
        )
    else:
        worth = "Three of a kind of any other number is a mini Bunco: 5 points."
    return (
        f"{worth} Then {_after(rules.mini_bunco_ends_turn)}. The mini Bunco is marked on the "
        "roller's own sheet."
    )


def _calling(rules: Rules) -> str:
    uncalled = "scores nothing, gets no mark and ends the turn"
    bunco, mini = rules.bunco_must_be_called, rules.mini_bunco_must_be_called
    if bunco and mini:
        return (
            'Call it out: shout "Bunco!" for a Bunco and "mini Bunco!" for a mini Bunco. One '
            f"not called {uncalled}."
        )
    if bunco:
        return (
            f'Shout "Bunco!" when you roll one: a Bunco not called {uncalled}. A mini Bunco '
            "scores whether you call it or not."
        )
    if mini:
        return (
            f'Shout "mini Bunco!" when you roll one: a mini Bunco not called {uncalled}. A Bunco '
            "scores whether you call it or not."
        )
    return "A Bunco or a mini Bunco scores whether you call it out or not."


def _round_end(rules: Rules) -> str:
    side = _side(rules)
    leader = (
        f"the {side} with more points at each table wins the round there"
        if rules.team_size == 2
        else "the highest scorer at each table wins the round there"
    )
    finish = (
        "After the bell, whoever holds the dice finishes their turn, and those points count; "
        if rules.finish_turn_after_bell
        else "Every table stops the moment the bell rings; "
    )
    everywhere = rules.bunco_ends_round == "everywhere"
    if rules.round_end == "each_table":
        text = (
            f"Each table plays on its own: the first {side} to reach {rules.play_to} points wins "
            "the round at that table (a Bunco wins at once). The round is over when every table "
            "has finished."
        )
        if everywhere:
            text += (
                " A Bunco at any table rings the bell for every table at once: "
                + finish[0].lower()
                + finish[1:]
                + f"then {leader}."
            )
        return text
    if rules.round_end == "timed":
        start = (
            f"Each round lasts {rules.round_minutes} minute"
            f"{'' if rules.round_minutes == 1 else 's'} on the host's clock, and the bell rings "
            "when time is up (the host may ring it sooner). Reaching a score ends nothing."
        )
    else:
        start = (
            f"The head table (table 1) starts each round. When a {side} there reaches "
            f"{rules.play_to} points, the bell rings on every phone; at the other tables reaching "
            "the score ends nothing."
        )
    if everywhere:
        start += " A Bunco at any table rings the bell for every table at once."
    return f"{start} {finish}then {leader}."


def _ties(rules: Rules) -> str:
    tied = "teams" if rules.team_size == 2 else "players"
    if rules.tie_break == "rolloff_dice_total":
        thrower = "each tied team throws" if rules.team_size == 2 else "each tied player throws"
        return (
            f"A table whose {tied} are level when play stops settles it in a roll-off: "
            f"{thrower} three dice once, the higher total of the faces wins, and level totals "
            "throw again. The roll-off adds no points and no marks."
        )
    who = "every player of the tied teams" if rules.team_size == 2 else "every tied player"
    one = "one team" if rules.team_size == 2 else "one player"
    return (
        f"A table whose {tied} are level when play stops settles it in a roll-off: starting "
        f"with the scorekeeper, {who} takes one turn for the target; if {one} is ahead once "
        "everyone has rolled, it wins, else they go round again. Roll-off points only settle "
        "the tie (a Bunco rolled in it still gets its mark)."
    )


def _score_sheet(rules: Rules) -> str:
    if rules.team_size == 2:
        won = "your team won at your table, else an L; partners get the same mark"
    else:
        won = "you won at your table, else an L"
    return (
        f"After each round your sheet gets a W if {won}. Your Buncos and mini Buncos are "
        "counted on it too, and so are your personal points, the points of the rolls you threw. "
        "Table scores start again at 0 every round."
    )


def _moving(rules: Rules, tables: int | None) -> str:
    if rules.rotation == "none" or tables == 1:
        return "Nobody changes tables."
    if rules.small_group == "boxed_plans":
        return (
            "After each round the winners stay at their table and the losers move down one. "
            "The last table's players go up to table 1: all of them where two play alone there "
            "(5, 6, 9 and 10 players), only its losers with 7 and 8. At one table nobody moves."
        )
    after = "After each round, "
    if tables == 2:
        swap = {
            "ladder": "the head table's losers and table 2's winners change tables",
            "head_losers_to_bottom": "the head table's losers and table 2's winners change tables",
            "losers_down_wrap": "the losers of the two tables change tables",
        }[rules.rotation]
        return f"{after}{swap}; everyone else stays."
    text = {
        "ladder": "the head table's winners stay and its losers go down to table 2. At the "
        "other tables the winners move up one table and the losers down one; at the bottom "
        "table the losers stay.",
        "head_losers_to_bottom": "the head table's winners stay and its losers go to the bottom "
        "table. At every other table the winners move up one table and the losers stay.",
        "losers_down_wrap": "the winners stay at their table and the losers move down one; the "
        "bottom table's losers go up to the head table.",
    }[rules.rotation]
    return after + text


def _partners(rules: Rules) -> str:
    if rules.team_size == 1:
        return (
            "Everyone plays for themself, two to four players a table, and the highest scorer "
            "wins the table."
        )
    if rules.small_group == "boxed_plans":
        return (
            "A table of 4 plays in two teams, partners across from each other, and the pairs "
            "split up after every round so everyone has a new partner. At a table of 2 or 3, "
            "and at the one-table game, everyone plays alone and the highest scorer wins the "
            "table. There are no ghosts."
        )
    ghost = (
        " An empty chair holds a ghost: its partner rolls its turn too, and a ghost wins no prize."
    )
    if rules.partners == "movers_keep_partners":
        return (
            "Your partner sits across from you. Two pairs who arrive at a table together stay "
            "partners; where one pair stayed, both pairs split up, so everyone there gets a "
            "new partner." + ghost
        )
    return (
        "Your partner sits across from you. After every round the two pairs at each table split "
        "up, so everyone has a new partner every round; your phone shows where to sit." + ghost
    )


def _sets(rules: Rules) -> str:
    if rules.sets == 1:
        text = "The night is one set of 6 rounds."
    else:
        text = (
            f"The night is {_NUMBER_WORDS[rules.sets]} sets of 6 rounds; each set starts again "
            "at round 1."
        )
    if rules.break_after_set:
        text += f" There is a break after set {rules.break_after_set}."
    return text


def _traveling(rules: Rules) -> str:
    if rules.traveling == "off":
        return "No fuzzy die tonight."
    if rules.traveling == "triple":
        face = rules.traveling_triple
        takes = f"Whoever rolls {face}-{face}-{face}, in any round, takes the fuzzy die."
    else:
        takes = "Whoever rolls a Bunco takes the fuzzy die."
    if rules.fuzzy_die_starts == "head_table":
        start = " It starts with the head table's scorekeeper of the first round."
    else:
        start = " Nobody holds it until someone first takes it."
    end = (
        " Whoever holds it at the end of the night wins a prize."
        if "traveling" in rules.prizes
        else ""
    )
    return takes + start + end


def _prizes(rules: Rules, tied_prize: str = "rolloff") -> str:
    if not rules.prizes:
        return "No prizes tonight."
    phrases = [_prize(key, rules) for key in rules.prizes]
    if len(phrases) == 1:
        listed = phrases[0]
    elif any("," in phrase for phrase in phrases):  # the overall prize explains its tie
        listed = "; ".join(phrases)
    else:
        listed = ", ".join(phrases[:-1]) + " and " + phrases[-1]
    if tied_prize == "split":
        return f"Prizes for {listed}. A prize still tied at the end is shared by the tied players."
    return (
        f"Prizes for {listed}. A prize still tied at the end is settled by a roll-off: each "
        "tied player throws three dice once and the highest total wins."
    )


def _prize(key: str, rules: Rules) -> str:
    if key == "overall":
        if rules.team_size == 1:
            second = "Buncos" if rules.overall_tiebreak == "buncos" else "wins"
            return (
                f"the overall winner (the most personal points, a tie going to the most {second})"
            )
        second = "Buncos" if rules.overall_tiebreak == "buncos" else "personal points"
        return f"the overall winner (the most wins, a tie going to the most {second})"
    return {
        "most_wins": "the most wins",
        "most_buncos": "the most Buncos",
        "most_losses": "the most losses",
        "most_mini_buncos": "the most mini Buncos",
        "even_wins_losses": "everyone whose wins equal their losses",
        "last_bunco": "the night's last Bunco",
        "traveling": "whoever holds the fuzzy die at the end",
        "highest_points": "the most personal points",
        "lowest_points": "the fewest personal points",
    }[key]
