"""What a roll the phone has not sent yet would score, so the phone can show it as pending
("+2 not yet saved") without knowing the rules: the scores come from `scoring`, as a small
table the page reads (points, and whether the roller keeps the dice)."""

import json

from scoring import score_roll
from scoring.quick import mini_face_matters, quick_dice, quick_outcomes


def _worth(dice, target, rules):
    score = score_roll(dice, target, rules, called=True)
    return [score.points, bool(score.keeps_turn)]


def pending_points(rules, target):
    """JSON: `hits[k]` for k target dice among dice not all alike, `same[face]` for all
    dice alike (a Bunco on the target), `quick[outcome]` for the quick buttons (a mini Bunco
    whose face matters is read from `same`)."""
    n = rules.dice
    others = [f for f in range(1, 7) if f != target]
    hits = [_worth((target,) * k + tuple(others[: n - k]), target, rules) for k in range(n)]
    same = {face: _worth((face,) * n, target, rules) for face in range(1, 7)}
    quick = {}
    for outcome in quick_outcomes(rules):
        if outcome == "mini" and mini_face_matters(rules):
            continue
        quick[outcome] = _worth(quick_dice(outcome, target, rules), target, rules)
    return json.dumps({"hits": hits, "same": same, "quick": quick}, separators=(",", ":"))
