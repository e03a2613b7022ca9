"""The production topology for the fault tests: deploy/haproxy.cfg run by Debian's haproxy
(bench/haproxy.py) in front of daphne processes started as production starts them
(bunco_site.serve with --proxy-headers), on the fault tests' PostgreSQL database and
redis-server."""

from bench.servers import Daphne, production_env


def proxied_daphne(env):
    """A daphne process as docker-compose.yml runs it: behind the proxy, trusting its headers
    (the client's address, the scheme), stopped gracefully (proxied_env's drain)."""
    return Daphne(env, options=["--proxy-headers"])


def proxied_env(pg, redis, **extra):
    """The fault tests' database and Redis, and production's graceful stop: 3 s for the proxy
    to mark a stopping process down, then up to 8 s for what it holds to finish."""
    return production_env({"DATABASE_URL": pg.url}, redis.url, drain_linger="3",
                          BUNCO_DRAIN_TIMEOUT="8", **extra)
