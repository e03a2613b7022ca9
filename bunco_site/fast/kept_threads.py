"""Django's ASGI handler, each request in its turn at the gate (bunco_site.fast.gate), and the
thread that runs a request's sync code kept for a later request instead of started and joined
for every one.

Django runs each request in a `ThreadSensitiveContext` of its own, for which asgiref starts a
thread on the server's event loop and, at the request's end, joins it from yet another new
thread. A thread's start waits until the new thread runs: while a busy thread holds the
interpreter, the loop waits with it, and every websocket push waits behind it. When 400 pages
refetch after a big party's round closes, the loop spent more time starting and joining these
threads than serving the pages (docs/performance.md, S6).

Here each request gets a single-thread executor from a free list (a new one only when every
kept one is busy) and gives it back at its end: the guarantee Django asks for (a request's sync
calls in one thread, one at a time), as a WSGI server's worker threads give it. A request whose
view outlives it (the client went away mid-view) gives back an executor still running that
view; the next request there starts once it has finished. With "kept_threads" left out of
BUNCO_FAST, Django starts its threads as it does by default.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from bunco_site.fast import gate

KEPT_IDLE = 64  # executors kept idle at most; more are shut down once done (a burst's extra)


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


class GatedASGIHandler(ASGIHandler):
    """Django's ASGIHandler; its requests go in at the gate's page turns, and their sync code
    runs in kept threads."""

    def __init__(self):
        super().__init__()
        self.executors = _Executors() if "kept_threads" in settings.FAST else None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        # daphne hands a request over once its whole body has arrived, and takes the answer
        # into its buffers without waiting for the client: a turn is not held by a slow phone.
        async with gate.of_loop().page(scope["path"]):
            if self.executors is None:
                return await super().__call__(scope, receive, send)
            await self._handle_in_kept_thread(scope, receive, send)

    async def _handle_in_kept_thread(self, scope, receive, send):
        executor = self.executors.take()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.executors.give_back(executor)


def get_asgi_application():
    """As django.core.asgi.get_asgi_application, with the gate and the kept threads."""
    django.setup(set_prefix=False)
    return GatedASGIHandler()
