"""The rules of Bunco as a pure core: options, scoring, table and round state, seating, prizes.

No Django, I/O, randomness or clock lives here (the simulator in `scoring.simulate` owns its
seeded dice).

Public API
----------
Rules and presets (`scoring.rules`):
    Rules(...)                  frozen dataclass of every RULES.md option; `Rules()` is standard.
                                Each field's metadata holds {"help": str, "choices": tuple}.
                                Raises RulesError for wrong types, ranges or contradictions.
    Rules.to_options() -> dict  JSON-ready (tuples as lists).
    Rules.from_options(d) -> Rules   unknown keys raise RulesError; missing keys take defaults.
    PRESETS: dict[str, Rules]   standard, wba, quick, short, boxed4, tournament.
    PRESET_HELP: dict[str, str] one line a host reads about each preset.
    PRIZE_CATEGORIES: tuple[str, ...]   the RULES.md section 9 keys, in order.
    RulesError(ValueError)
"""

from scoring.rules import PRESET_HELP, PRESETS, PRIZE_CATEGORIES, Rules, RulesError

__all__ = ["PRESETS", "PRESET_HELP", "PRIZE_CATEGORIES", "Rules", "RulesError"]
