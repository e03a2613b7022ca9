"""Which language each phone reads, and which languages a party's phones read, so that every push
reaches each phone in its own language.

A phone's language is the one it chose with the switch on every page (Django's language cookie),
else the first its browser asks for (Accept-Language) that the site has, else English: what
Django's LocaleMiddleware gives its pages. A push that carries text (a table's update, a table
page's new seat after a close) is rendered once for each language a phone of the party reads,
and sent to that language's table group; the default language's group keeps its plain name.

A socket says which language it reads in the cache (shared by every server process on Redis)
when it connects and, since a cache entry may be lost (a Redis restart), again at most once a
minute while it lives. A writer reads the party's languages from the cache, at most once a second
per party in a process: a phone that arrives meanwhile misses at most the updates of that second,
and each table update carries the table's whole state, so the next one puts it right.
"""

import time

from django.conf import settings
from django.core.cache import cache
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

READER_TTL = 24 * 60 * 60  # seconds a socket's language is kept after it last said so
SAY_AGAIN_EVERY = 60  # seconds between a live socket's reminders
READ_EVERY = 1.0  # seconds a writer's process keeps a party's languages

_read = {}  # party id -> (monotonic time read, languages)


def default():
    return settings.LANGUAGE_CODE


def _supported(code):
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def of_headers(headers):
    """The language of a request or socket with these headers ((name, value) byte pairs, as an
    ASGI scope has them): its language cookie, else its Accept-Language, else the default."""
    cookies, accept = [], ""
    for name, value in headers:
        if name == b"cookie":
            cookies.append(value.decode("latin-1"))
        elif name == b"accept-language":
            accept = value.decode("latin-1")
    chosen = parse_cookie("; ".join(cookies)).get(settings.LANGUAGE_COOKIE_NAME)
    if chosen and (code := _supported(chosen)):
        return code
    for asked, _quality in parse_accept_lang_header(accept[:1000]):
        if asked != "*" and (code := _supported(asked)):
            return code
    return default()


def _key(party_id, language):
    return f"party-{party_id}-reads-{language}"


def say_read(party_id, language):
    """A socket of the party reads `language` (the default needs no saying: it is always sent)."""
    if language != default():
        cache.set(_key(party_id, language), 1, READER_TTL)


def read_at(party_id):
    """The languages the party's phones read: the default first, then the others any socket
    said. Should the cache fail, every language: a push is rendered more times, none is lost."""
    now = time.monotonic()
    kept = _read.get(party_id)
    if kept is not None and now - kept[0] < READ_EVERY:
        return kept[1]
    others = [code for code, _name in settings.LANGUAGES if code != default()]
    try:
        said = cache.get_many([_key(party_id, code) for code in others])
        found = [code for code in others if _key(party_id, code) in said]
    except Exception:  # the cache is down: the pushes go out all the same
        found = others
    languages = (default(), *found)
    if len(_read) > 10_000:
        _read.clear()  # a process serves a few parties at once; this only bounds a long run
    _read[party_id] = (now, languages)
    return languages


def forget_read():
    """Drop what this process kept (tests that change which languages a party reads)."""
    _read.clear()
