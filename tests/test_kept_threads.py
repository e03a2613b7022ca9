"""The ASGI handler keeps the threads its requests' sync code runs in (bunco_site.fast.kept_threads):
each request runs in one thread, requests at the same time in different threads, and a thread
is used again by a later request instead of a new one started for each. At most
REQUESTS_AT_ONCE requests are in Django at once; the others wait their turn."""

import asyncio
import threading
import time

import pytest
from asgiref.testing import ApplicationCommunicator
from django.http import HttpResponse
from django.test import override_settings
from django.urls import path

from bunco_site.fast.kept_threads import GatedASGIHandler
from tests.loops import run_alone
from tests.parties.test_settings import setting_in_a_new_process

ran_in = []  # (path, thread name) of every view call
threads_in = []  # the thread of every view call
both_in = threading.Barrier(2, timeout=5)


def where(request):
    ran_in.append((request.path, threading.current_thread().name))
    return HttpResponse("ok")


def together(request):
    ran_in.append((request.path, threading.current_thread().name))
    threads_in.append(threading.current_thread())
    both_in.wait()  # returns only once a second request is in the view at the same time
    return HttpResponse("ok")


def broken(request):
    raise RuntimeError("a view that fails")


held_in = []  # the path of every call of `held`, as it starts
let_go = threading.Event()


def held(request, n):
    held_in.append(request.path)
    let_go.wait(5)
    return HttpResponse("ok")


urlpatterns = [
    path("where/", where), path("together/", together), path("broken/", broken),
    path("held/<int:n>/", held), path("healthz", where),
]


async def _get(handler, url):
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": url, "raw_path": url.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }
    communicator = ApplicationCommunicator(handler, scope)
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(10)
    await communicator.receive_output(10)  # the body
    await communicator.wait(10)
    return start["status"]


@pytest.fixture
def handler(settings):
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.DEBUG_PROPAGATE_EXCEPTIONS = False
    ran_in.clear()
    threads_in.clear()
    both_in.reset()
    held_in.clear()
    let_go.clear()
    with override_settings(ROOT_URLCONF=__name__):
        yield GatedASGIHandler()
    let_go.set()  # a test that failed midway lets its held views end


@pytest.fixture
def two_at_once(settings, handler):
    settings.REQUESTS_AT_ONCE = 2
    return GatedASGIHandler()


async def until(condition, seconds=5):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


def test_requests_one_after_another_run_in_one_kept_thread(handler):
    statuses = [run_alone(_get(handler, "/where/")) for _ in range(3)]
    assert statuses == [200, 200, 200]
    names = {name for _, name in ran_in}
    assert len(ran_in) == 3 and len(names) == 1, ran_in
    assert handler.executors.started == 1
    assert len(handler.executors.idle) == 1


def test_requests_at_the_same_time_run_in_threads_of_their_own(handler):
    async def two():
        return await asyncio.gather(_get(handler, "/together/"), _get(handler, "/together/"))

    assert run_alone(two()) == [200, 200]  # each waited in its view for the other: two threads
    assert len({name for _, name in ran_in}) == 2
    assert handler.executors.started == 2 and len(handler.executors.idle) == 2
    run_alone(_get(handler, "/where/"))
    assert handler.executors.started == 2  # a later request takes a kept one


def test_a_failing_view_gives_its_thread_back(handler):
    assert run_alone(_get(handler, "/broken/")) == 500
    assert run_alone(_get(handler, "/where/")) == 200
    assert handler.executors.started == 1


def test_threads_beyond_those_kept_end(handler):
    handler.executors.kept_idle = 1

    async def two():
        return await asyncio.gather(_get(handler, "/together/"), _get(handler, "/together/"))

    assert run_alone(two()) == [200, 200]
    assert len(handler.executors.idle) == 1
    # The executor not kept was shut down: its thread ends; the kept one's stays for later.
    deadline = time.monotonic() + 5
    while sum(t.is_alive() for t in threads_in) > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(set(threads_in)) == 2 and sum(t.is_alive() for t in threads_in) == 1


def test_requests_beyond_those_at_once_wait_their_turn_then_are_served(two_at_once):
    async def five():
        requests = [asyncio.create_task(_get(two_at_once, f"/held/{n}/")) for n in range(5)]
        await until(lambda: len(held_in) == 2)
        await asyncio.sleep(0.3)  # time enough for a third to start, were it let in
        assert sorted(held_in) == ["/held/0/", "/held/1/"]  # first come, first served
        let_go.set()
        return await asyncio.gather(*requests)

    assert run_alone(five()) == [200] * 5
    assert len(held_in) == 5
    # Waiting for a turn holds no thread: two at once never needed a third.
    assert two_at_once.executors.started == 2


def test_a_failing_view_gives_its_turn_back(settings, handler):
    settings.REQUESTS_AT_ONCE = 1
    one_at_once = GatedASGIHandler()

    async def both():
        return [await _get(one_at_once, "/broken/"), await _get(one_at_once, "/where/")]

    assert run_alone(both()) == [500, 200]


def test_the_health_check_does_not_wait_behind_pages(two_at_once):
    async def check_while_held():
        requests = [asyncio.create_task(_get(two_at_once, f"/held/{n}/")) for n in range(3)]
        await until(lambda: len(held_in) == 2)
        status = await asyncio.wait_for(_get(two_at_once, "/healthz"), 2)
        assert len(held_in) == 2  # the pages still hold both turns, the third waits
        let_go.set()
        return [status, *await asyncio.gather(*requests)]

    assert run_alone(check_while_held()) == [200] * 4


@pytest.mark.parametrize("value", ["0", "-2", "257", "many", "2.5"])
def test_the_settings_refuse_requests_at_once_that_admit_none_or_are_not_a_count(value):
    result = setting_in_a_new_process("REQUESTS_AT_ONCE", BUNCO_REQUESTS_AT_ONCE=value)
    assert result.returncode != 0
    assert "BUNCO_REQUESTS_AT_ONCE" in result.stderr


def test_by_default_four_requests_are_in_django_at_once():
    assert setting_in_a_new_process("REQUESTS_AT_ONCE").stdout.split() == ["4"]
    assert setting_in_a_new_process("REQUESTS_AT_ONCE", BUNCO_REQUESTS_AT_ONCE="8").stdout.split() == ["8"]
