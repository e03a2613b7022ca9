"""The one settings file: every choice comes from the environment, and no environment at all
gives a working development app (SQLite, the in-memory channel layer, DEBUG on)."""

import os
import re
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from bunco_site import home_server, switches

BASE_DIR = Path(__file__).resolve().parent.parent


FLAG_WORDS = {"1": True, "true": True, "yes": True, "on": True,
              "0": False, "false": False, "no": False, "off": False}


def env_flag(name, default):
    """A yes/no setting. A word that is neither (DJANGO_DEBUG=flase) stops the start, rather
    than silently reading as off."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return FLAG_WORDS[value.strip().lower()]
    except KeyError:
        raise ImproperlyConfigured(
            f"{name}={value!r}: say 1, true, yes or on, or 0, false, no or off."
        ) from None


def env_number(name, default, convert, low, high, what):
    """A number setting from `low` to `high`, `convert`ed from its text (int, float). Anything
    else stops the start and says what is wanted (`what`: "a whole number")."""
    value = os.environ.get(name)
    try:
        number = convert(default if value is None else value)
        if not low <= number <= high:
            raise ValueError
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r}: say {what} from {low} to {high}.") from None
    return number


def env_list(name):
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


def env_pieces(name, pieces):
    """A switch of named parts (bunco_site/switches.py); a name that is none stops the start."""
    on, unknown = switches.chosen(os.environ.get(name), pieces)
    if unknown:
        raise ImproperlyConfigured(
            f"{name}={os.environ[name]!r} names no piece: {', '.join(unknown)}"
            f" (the pieces are {', '.join(pieces)}; or say all or none)."
        )
    return frozenset(on)


# `manage.py party_server` (manage.py sets this for it): the host's laptop serving the phones on
# its Wi-Fi, as production runs (DEBUG off) but with its data in one folder and no environment.
PARTY_SERVER = env_flag("BUNCO_PARTY_SERVER", False)
DATA_DIR = home_server.data_dir() if PARTY_SERVER else None

DEBUG = env_flag("DJANGO_DEBUG", not PARTY_SERVER)

# The address in every link and QR code, when it is not the one the request came to (the party
# server sets it to the laptop's Wi-Fi address; a deployment behind a proxy may set its domain).
BASE_URL = os.environ.get("BUNCO_BASE_URL", "").strip()

if PARTY_SERVER:
    SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or home_server.secret_key(DATA_DIR)
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS") or home_server.own_hosts(
        home_server.lan_address()
    )
elif DEBUG:
    # A development secret that survives restarts (sessions stay valid) without anyone setting it.
    _secret_file = BASE_DIR / ".dev-secret"
    if not os.environ.get("DJANGO_SECRET_KEY") and not _secret_file.exists():
        _secret_file.write_text(secrets.token_urlsafe(50))
    SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _secret_file.read_text().strip()
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS") or ["localhost", "127.0.0.1", "[::1]"]
else:
    SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS")
    if not SECRET_KEY or not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "Production mode (DJANGO_DEBUG=0) needs DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS "
            "(comma-separated) in the environment."
        )

CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",  # first, so that runserver serves websockets too
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "parties",
    "clubs",  # after parties: its nights are parties
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "parties.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "parties.middleware.UnreadableFormMiddleware",  # before the CSRF check reads the form
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "parties.middleware.SyncChainMiddleware",  # last: see its docstring (one thread hop, not 18)
]

ROOT_URLCONF = "bunco_site.urls"
ASGI_APPLICATION = "bunco_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"])}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Under ASGI, Django's persistent connections pile up one per thread; a pool keeps a
        # few warm connections for every request (a new connection per write costs more than
        # the write: docs/performance.md, "Figures behind the code's choices").
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 2,
            "max_size": int(os.environ.get("DATABASE_POOL_SIZE", "10")),
            "timeout": 10,
        }
        # Parameters bound by the server and statements prepared on their second use: the
        # tap's statements cost PostgreSQL much less CPU (bench/tap_cpu.py; the figure is in
        # docs/performance.md), and a pooled connection keeps them prepared.
        DATABASES["default"]["OPTIONS"].update(server_side_binding=True, prepare_threshold=2)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get(
                "SQLITE_PATH", str((DATA_DIR or BASE_DIR) / "db.sqlite3")
            ),
            "OPTIONS": {
                # Writers queue instead of failing with "database is locked" mid-transaction.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

def deployment_prefix():
    """BUNCO_DEPLOYMENT_PREFIX: a name of this deployment's own on everything it keeps in Redis.
    Redis pub/sub ignores database numbers, so two deployments on one Redis (staging beside
    production) would otherwise hear each other's pushes: party 1 of one rings party 1 of the
    other. Unset keeps the names a single deployment has always used."""
    value = os.environ.get("BUNCO_DEPLOYMENT_PREFIX", "").strip()
    if value and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}", value):
        raise ImproperlyConfigured(
            f"BUNCO_DEPLOYMENT_PREFIX={value!r}: use 1 to 40 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit."
        )
    return value


DEPLOYMENT_PREFIX = deployment_prefix()

if os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [os.environ["REDIS_URL"]],
                "prefix": DEPLOYMENT_PREFIX or "asgi",  # channels_redis's own default
            },
        }
    }
    # Shared by every server process, so rate limits hold across all of them.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": f"bunco-{DEPLOYMENT_PREFIX}" if DEPLOYMENT_PREFIX else "bunco",
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Each phone reads its own language: its browser's Accept-Language, or the one it chose with
# the switch on every page (Django's set_language, kept in a cookie). Addresses are the same in
# every language. The catalogs are locale/<code>/LC_MESSAGES/django.po (docs/languages.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365  # a phone keeps its choice for the next party
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic writes and production serves from.
STATIC_ROOT = Path(os.environ.get("BUNCO_STATIC_ROOT") or (
    DATA_DIR / "static" if DATA_DIR else BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Without collectstatic (development, tests), serve static files straight from static/.
WHITENOISE_USE_FINDERS = DEBUG

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = 60 * 60 * 24 * 14  # a party night, with room for the prize photos after
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

# Request bodies (docs/security.md): a form's fields at most 1 MB (400 names pasted are about
# 20 KB); a file uploaded past 1 MB waits on disk, not in memory; and any body declared larger
# than its address takes is refused before it is read (parties.middleware): 1 MB, or at the
# import page a party file of IMPORT_MAX_BYTES. The largest night the app seats (400 players,
# the WBA's 4 sets) exports about 16 MB; twice that bounds the time and disk an upload may take.
# Memory does not depend on it: the import reads the file in pieces.
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
IMPORT_MAX_BYTES = 32 * 1024 * 1024
# A club's file, read whole: a season of twelve one-set nights is about 340 KB, so 8 MB holds
# some twenty seasons, and its parsing stays a few tens of MB of memory on a laptop.
CLUB_IMPORT_MAX_BYTES = 8 * 1024 * 1024
SECURE_REFERRER_POLICY = "same-origin"

# Only our own files run, style or load (docs/security.md): no template has inline script or
# style, and htmx is told not to inject its own. The websocket goes to the same host, which not
# every browser counts as 'self', hence ws: and wss:. QR codes are inline SVG with presentation
# attributes, which style-src does not govern.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "media-src 'self' data:",  # NoSleep.js's silent video keeps a scorekeeper's screen on
        "connect-src 'self' ws: wss:",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "object-src 'none'",
    ]
)

if not DEBUG:
    # Behind a TLS proxy in production. DJANGO_INSECURE_HTTP=1 is for a local plain-HTTP try of
    # the production stack (docker compose on a laptop) and makes check --deploy warn, as it should.
    # The party server is plain HTTP on the home network: no certificate a phone would trust.
    _https = not env_flag("DJANGO_INSECURE_HTTP", PARTY_SERVER)
    if not PARTY_SERVER:  # no proxy in front of the laptop: nobody's header to trust
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = _https
    # Health checks (the proxy's, Docker's) ask the process itself over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = _https
    CSRF_COOKIE_SECURE = _https
    LANGUAGE_COOKIE_SECURE = _https
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365 if _https else 0
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _https
    SECURE_HSTS_PRELOAD = _https

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Link tokens never reach a log (bunco_site/log_redaction.py): on the handler everything
    # reaches, and on the loggers that print request paths to handlers of their own too. A
    # refused request (4xx) is one line there, without Django's traceback; a 500 keeps its own.
    "filters": {
        "redact_tokens": {"()": "bunco_site.log_redaction.RedactTokens"},
        "one_line_refusals": {"()": "bunco_site.log_redaction.OneLineRefusals"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["redact_tokens", "one_line_refusals"],
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
    # One line per server-tuning patch at startup (installed, skipped and why, or off), which
    # operators must see under the root's WARNING; not propagated, so daphne's own root handler
    # does not print it twice.
    "loggers": {
        # (The party server's terminal is the host's: there it shows the addresses, not this.)
        "bunco.server_tuning": {
            "handlers": ["console"],
            "level": "WARNING" if PARTY_SERVER else "INFO",
            "propagate": False,
        },
        "bunco.fast": {  # which speed pieces run (BUNCO_FAST): one line at start, as above
            "handlers": ["console"],
            "level": "WARNING" if PARTY_SERVER else "INFO",
            "propagate": False,
        },
        # The event loop's hold-ups, when BUNCO_STALL_LOG asks for them: once each, as above.
        "bunco.stall_log": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        # "Not Found: /l/<token>/"; "Forbidden (Permission denied): <path>", with no traceback
        "django.request": {"filters": ["redact_tokens", "one_line_refusals"]},
        "django.security.csrf": {"filters": ["redact_tokens"]},  # "Forbidden (...): <path>"
        "django.channels.server": {"filters": ["redact_tokens"]},  # daphne's runserver
    },
}

# Wrong party codes allowed from one browser (the join page's signed browser-id cookie) in a
# window of ten minutes. Nothing counts per address: one device dropping its cookies would use
# up every guest's share behind the party's router. See docs/security.md for what a guesser gets.
PARTY_CODE_MAX_FAILURES = int(os.environ.get("PARTY_CODE_MAX_FAILURES", "10"))
PARTY_CODE_FAILURE_WINDOW = 600

# How many parties one address (an IPv6 /64) may create in an hour: anyone may host, so this is
# what stops a script filling the database.
PARTY_CREATE_MAX_PER_ADDRESS = int(os.environ.get("PARTY_CREATE_MAX_PER_ADDRESS", "20"))
PARTY_CREATE_WINDOW = 60 * 60

# Guests waiting at once for the host to seat them, at a party that lets guests add themselves
# (Party.self_join): anyone with the code may ask, so a script could otherwise fill the host's
# list. Far more than arrive together at a real party; the host seats or turns them away.
GUESTS_WAITING_MAX = 100

# Party sockets one session may hold open at once in a server process (parties/live/consumers.py):
# about three times the busiest real session (docs/security.md).
PARTY_SOCKETS_PER_SESSION = 20

# The speed machinery (bunco_site/fast/README.md): unset, "1" or "all" turns every piece on;
# "0", "off" or "none" turns every one off (the game runs the same, slower under load); a
# comma-separated list of names turns those on. The server patches have their own switch
# (BUNCO_SERVER_TUNING, read by the launcher).
FAST_PIECES = (
    "lean_door", "gate", "kept_threads", "layer_batch", "socket_loop", "listen_backlog"
)
FAST = env_pieces("BUNCO_FAST", FAST_PIECES)

# The gate (bunco_site/fast/gate.py; docs/deploy.md says when to change these). A tap not started
# within TAP_WAIT seconds of its arrival is answered busy (503, Retry-After) and its phone sends it
# again; a started tap holds one of at most TAP_SLOTS slots until its pushes are sent, fewer while
# the typical tap holds its slot longer than TAP_SLOW. Pages: REQUESTS_AT_ONCE in Django at once.
TAP_WAIT = env_number("BUNCO_TAP_WAIT", "0.3", float, 0.01, 60, "a number of seconds")
TAP_SLOW = env_number("BUNCO_TAP_SLOW", "0.035", float, 0.005, 60, "a number of seconds")
TAP_SLOTS = env_number("BUNCO_TAP_SLOTS", "64", int, 2, 4096, "a whole number")
REQUESTS_AT_ONCE = env_number("BUNCO_REQUESTS_AT_ONCE", "4", int, 1, 256, "a whole number")

# A diagnostic: log the event loop's hold-ups of BUNCO_STALL_LOG seconds and more, with what the
# loop was running (bunco_site/fast/stall_log.py, docs/deploy.md). 0, the default: off.
STALL_LOG = env_number("BUNCO_STALL_LOG", "0", float, 0, 60, "a number of seconds")
if 0 < STALL_LOG < 0.05:  # the watch looks every 20 ms: shorter would log every look
    raise ImproperlyConfigured(
        f"BUNCO_STALL_LOG={os.environ['BUNCO_STALL_LOG']!r}: say 0 (off), or from 0.05 to 60 "
        "seconds."
    )
