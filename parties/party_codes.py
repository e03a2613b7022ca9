"""A party's code: drawn at random for a new party, typed back by a player, shown on the cards."""

import secrets
import string

CODE_ALPHABET = "".join(c for c in string.ascii_uppercase + string.digits if c not in "O0I1L")
# 31**12 (about 2**59.4) codes: docs/security.md works out what a guesser gets at the join page.
# Parties made before keep the code they were given (10 symbols, or 6 before those): a code is
# looked up as it is stored, whatever its length.
CODE_LENGTH = 12


def new_party_code():
    """A fresh random code; the database's unique constraint says whether it is free."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def party_code_typed(text):
    """A party code as someone typed it, the way codes are stored: the spaces and dashes the
    cards show it with dropped, in capitals."""
    return "".join(text.replace("-", " ").split()).upper()[:32]


def party_code_shown(code):
    """A code in even groups, easier to read aloud and to type from a card: a new code of 12 in
    three groups of four (`ABCD EFGH JKMN`); an older party's code of 10 in two groups of five,
    as its cards were printed (`ABCDE FGHJK`); a code of 6 from before those in threes."""
    size = next((size for size in (4, 5, 3) if len(code) % size == 0), 4)
    return " ".join(code[i : i + size] for i in range(0, len(code), size))
