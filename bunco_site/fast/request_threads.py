"""Django's ASGI handler, with the thread that runs a request's sync code kept for a later
request instead of started and joined for every one.

Django runs each request in a `ThreadSensitiveContext` of its own, for which asgiref starts a
new thread (the request's middleware and view run there, one call at a time) and, at the
request's end, joins it from yet another new thread. Both starts happen on the server's event
loop, and a thread's start waits until the new thread has run: while a busy thread holds the
interpreter, the loop waits with it, and every websocket push waits behind it. In a big
party's round close, 400 pages refetch within a few seconds, and profiles of the server showed
the loop spending more time starting and joining these threads than serving the pages
(docs/performance.md, S6).

Here each request gets a single-thread executor from a free list (a new one only when every
kept one is busy) and gives it back at its end: the same guarantee Django asks for (a request's
sync calls in one thread, one at a time), as a WSGI server's worker threads give it. A request
whose view outlives it (the client went away mid-view) gives back an executor still running
that view; the next request there starts once it has finished.

At most `REQUESTS_AT_ONCE` requests (settings, `BUNCO_REQUESTS_AT_ONCE`) are in Django at once;
the others wait their turn, in order of arrival, holding no thread and no database connection.
A request holds a pooled connection from its first query to its end, and renders share one
interpreter. When hundreds of pages came at once (a big party's phones after its round
closes) on a slow machine, pages got 500 after waiting the pool's 10 s for a connection, and
sockets' handshakes, which read through the same pool, were dropped (bench/ S6,
docs/performance.md): the connections held, as we read it, by pages that all started at once
and each took seconds to render. Queued instead, a page waits only for those ahead of it.
"""

import asyncio
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

# Executors kept idle at most; more are shut down once done (a burst's extra threads).
KEPT_IDLE = 64

# Paths that do not wait their turn: the proxy's health check (deploy/haproxy.cfg) gives a
# process a second to answer, and a process busy with a queue of pages is slow, not down: marked
# down, its parties would move to another process in the middle of their round.
UNQUEUED_PATHS = frozenset({"/healthz"})


class _Executors:
    def __init__(self, kept_idle=KEPT_IDLE):
        self.kept_idle = kept_idle
        self.idle = []
        self.started = 0  # executors made so far: what the tests count
        # Taken on the event loop only, in a server; a lock all the same, so that a handler
        # called from several loops (tests run each on a loop of its own) stays consistent.
        self._lock = threading.Lock()

    def take(self):
        with self._lock:
            if self.idle:
                return self.idle.pop()
            self.started += 1
            number = self.started
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"request-{number}")

    def give_back(self, executor):
        with self._lock:
            if len(self.idle) < self.kept_idle:
                self.idle.append(executor)
                return
        executor.shutdown(wait=False)  # its thread ends once its last call has returned


class _Turns:
    """At most `size` holders at once on each event loop; the others wait, first come first
    served (asyncio's semaphore), on the loop they run on."""

    def __init__(self, size):
        self.size = size
        self._by_loop = weakref.WeakKeyDictionary()  # loop -> its semaphore

    def __call__(self):
        loop = asyncio.get_running_loop()
        semaphore = self._by_loop.get(loop)
        if semaphore is None:
            semaphore = self._by_loop[loop] = asyncio.Semaphore(self.size)
        return semaphore


class ReusedThreadsASGIHandler(ASGIHandler):
    """Django's ASGIHandler; its requests' sync code runs in kept threads, a few requests at
    a time."""

    def __init__(self):
        super().__init__()
        self.executors = _Executors()
        self.turns = _Turns(settings.REQUESTS_AT_ONCE)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        # daphne hands a request over once its whole body has arrived, and takes the answer
        # into its buffers without waiting for the client: a turn is not held by a slow phone.
        if scope["path"] in UNQUEUED_PATHS:
            return await self._handle_in_kept_thread(scope, receive, send)
        async with self.turns():
            await self._handle_in_kept_thread(scope, receive, send)

    async def _handle_in_kept_thread(self, scope, receive, send):
        executor = self.executors.take()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.executors.give_back(executor)


def get_asgi_application():
    """As django.core.asgi.get_asgi_application, with the kept threads."""
    django.setup(set_prefix=False)
    return ReusedThreadsASGIHandler()
