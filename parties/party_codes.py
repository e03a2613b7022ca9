"""A party's code: drawn at random for a new party, typed back by a player, shown on the cards."""

import secrets
import string

CODE_ALPHABET = "".join(c for c in string.ascii_uppercase + string.digits if c not in "O0I1L")
# 30**10 (about 2**49) codes: docs/security.md works out what a guesser gets at the join limits.
CODE_LENGTH = 10


def new_party_code():
    """A fresh random code; the database's unique constraint says whether it is free."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def party_code_typed(text):
    """A party code as someone typed it, the way codes are stored: the spaces and dashes the
    cards show it with dropped, in capitals."""
    return "".join(text.replace("-", " ").split()).upper()[:32]


def party_code_shown(code):
    """A code in groups of five, easier to read aloud and to type from a card."""
    return " ".join(code[i : i + 5] for i in range(0, len(code), 5))
