"""The settings file: what runs with no environment, and what production mode demands."""

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.loops import subscribed

ROOT = Path(__file__).resolve().parents[2]
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))}


def manage(*args, **env):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**BASE_ENV, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def setting_in_a_new_process(name, **env):
    """The run of a new process that prints the setting `name` with `env` added."""
    code = f"import django; django.setup(); from django.conf import settings as s; print(s.{name})"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**BASE_ENV, "DJANGO_SETTINGS_MODULE": "bunco_site.settings", **env},
    )


def test_production_mode_refuses_to_start_without_a_secret_and_hosts():
    result = manage("check", DJANGO_DEBUG="0")
    assert result.returncode != 0
    assert "needs DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS" in result.stderr
    result = manage("check", DJANGO_DEBUG="0", DJANGO_SECRET_KEY="x" * 60)
    assert result.returncode != 0
    assert "needs DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS" in result.stderr


def test_production_mode_passes_the_deployment_check_with_no_warnings():
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="a-long-random-production-secret-9f8e7d6c5b4a3928171605f4e3d2c1b0",
        DJANGO_ALLOWED_HOSTS="bunco.example.com",
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_with_no_environment_it_runs_on_sqlite_and_the_in_memory_layer():
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DEBUG, s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'],"
        " s.DATABASES['default']['OPTIONS']['transaction_mode'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**BASE_ENV, "DJANGO_SETTINGS_MODULE": "bunco_site.settings"},
    )
    assert result.stdout.split() == [
        "True", "django.db.backends.sqlite3", "channels.layers.InMemoryChannelLayer", "IMMEDIATE",
    ], result.stderr


@pytest.mark.parametrize("url", ["postgres://u@127.0.0.1:5432/bunco"])
def test_the_environment_switches_to_postgresql_and_redis(url):
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**BASE_ENV, "DJANGO_SETTINGS_MODULE": "bunco_site.settings",
             "DATABASE_URL": url, "REDIS_URL": "redis://127.0.0.1:6379/0"},
    )
    assert result.stdout.split() == [
        "django.db.backends.postgresql", "channels_redis.pubsub.RedisPubSubChannelLayer",
    ], result.stderr


@pytest.mark.parametrize("word", ["flase", "ture", "2", "debug"])
def test_a_yes_no_setting_that_is_neither_stops_the_start_and_says_so(word):
    result = manage("check", DJANGO_DEBUG=word)
    assert result.returncode != 0
    assert f"DJANGO_DEBUG={word!r}: say 1, true, yes or on, or 0, false, no or off." in (
        result.stderr
    )


@pytest.mark.parametrize("word, debug", [("Off", False), (" no ", False), ("TRUE", True)])
def test_yes_no_settings_read_the_usual_words(word, debug):
    result = manage(
        "shell", "-c", "from django.conf import settings; print(settings.DEBUG)",
        DJANGO_DEBUG=word, DJANGO_SECRET_KEY="x" * 60, DJANGO_ALLOWED_HOSTS="bunco.example.com",
    )
    assert result.stdout.strip().splitlines()[-1] == str(debug), result.stderr


def redis_settings(**env):
    """The channel layer's and the cache's settings for an environment with Redis."""
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.CHANNEL_LAYERS['default'], s.CACHES['default']]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**BASE_ENV, "DJANGO_SETTINGS_MODULE": "bunco_site.settings",
             "REDIS_URL": REDIS_URL, **env},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


def test_without_a_deployment_prefix_redis_names_stay_as_they_were():
    layer, cache = redis_settings()
    assert layer["CONFIG"]["prefix"] == "asgi" and cache["KEY_PREFIX"] == "bunco"


@pytest.mark.needs_redis
def test_two_deployments_with_their_own_prefixes_on_one_redis_never_hear_each_other():
    """Both layers on the same Redis, a group of the same name (party 1's): a message sent in
    one deployment reaches its own listener only. (Redis pub/sub ignores database numbers,
    so without prefixes the other deployment would hear it too.)"""
    import asyncio

    from channels_redis.pubsub import RedisPubSubChannelLayer

    from tests.loops import run_alone

    suffix = uuid.uuid4().hex[:8]
    (layer_a, cache_a), (layer_b, cache_b) = (
        redis_settings(BUNCO_DEPLOYMENT_PREFIX=f"{name}-{suffix}") for name in ("staging", "prod")
    )
    assert cache_a["KEY_PREFIX"] == f"bunco-staging-{suffix}" != cache_b["KEY_PREFIX"]

    async def exchange():
        a = RedisPubSubChannelLayer(**layer_a["CONFIG"])
        b = RedisPubSubChannelLayer(**layer_b["CONFIG"])
        try:
            heard_a, heard_b = await a.new_channel(), await b.new_channel()
            await a.group_add("party-1", heard_a)
            await b.group_add("party-1", heard_b)
            await subscribed(REDIS_URL, a, "party-1")
            await subscribed(REDIS_URL, b, "party-1")
            await a.group_send("party-1", {"type": "bell", "from": "staging"})
            got = await asyncio.wait_for(a.receive(heard_a), 5)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(b.receive(heard_b), 1)
            return got
        finally:
            await a.flush()
            await b.flush()

    got = run_alone(exchange())
    assert got == {"type": "bell", "from": "staging"}


@pytest.mark.parametrize("prefix", ["has space", "-leading", "x" * 41, "a/b"])
def test_a_deployment_prefix_redis_cannot_hold_cleanly_stops_the_start(prefix):
    result = manage("check", BUNCO_DEPLOYMENT_PREFIX=prefix, REDIS_URL=REDIS_URL)
    assert result.returncode != 0
    assert f"BUNCO_DEPLOYMENT_PREFIX={prefix!r}: use 1 to 40 letters" in result.stderr


@pytest.mark.parametrize(
    "value, said",
    [
        ("soon", "say a number of seconds from 0 to 60."),
        ("0.01", "say 0 (off), or from 0.05 to 60 seconds."),  # shorter than the watch's look
    ],
)
def test_a_stall_log_threshold_it_cannot_keep_stops_the_start_and_says_so(value, said):
    result = setting_in_a_new_process("STALL_LOG", BUNCO_STALL_LOG=value)
    assert result.returncode != 0
    assert f"BUNCO_STALL_LOG={value!r}: {said}" in result.stderr


def test_the_stall_log_is_off_unless_asked_and_takes_seconds():
    assert setting_in_a_new_process("STALL_LOG").stdout.strip() == "0.0"
    assert setting_in_a_new_process("STALL_LOG", BUNCO_STALL_LOG="0.2").stdout.strip() == "0.2"


@pytest.mark.parametrize(
    "value, pieces",
    [
        (None, "gate kept_threads layer_batch lean_door listen_backlog socket_loop"),
        ("all", "gate kept_threads layer_batch lean_door listen_backlog socket_loop"),
        ("0", ""),
        ("none", ""),
        ("gate, lean_door", "gate lean_door"),
    ],
)
def test_the_speed_machinery_is_all_on_unless_bunco_fast_says_which(value, pieces):
    env = {} if value is None else {"BUNCO_FAST": value}
    result = setting_in_a_new_process("FAST", **env)
    assert result.returncode == 0, result.stderr
    assert " ".join(sorted(re.findall(r"'(\w+)'", result.stdout))) == pieces  # frozenset({...})


def test_a_speed_piece_that_does_not_exist_stops_the_start_and_names_them_all():
    result = setting_in_a_new_process("FAST", BUNCO_FAST="gate,turbo")
    assert result.returncode != 0
    assert "BUNCO_FAST='gate,turbo' names no piece: turbo" in result.stderr
    assert "lean_door, gate, kept_threads, layer_batch, socket_loop, listen_backlog" in result.stderr
