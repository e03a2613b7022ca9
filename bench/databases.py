"""A database of our own, for one test session or one benchmark run: made on a PostgreSQL
server under a fresh name and dropped at the end (its connections closed by force), or, with
no PostgreSQL server named, an SQLite file in a folder of its own.

    with Database(server_url, "bunco_e2e") as database:
        env = production_env(database.env)

`server_url` is any database URL of the server (the new database is made beside it; CREATE and
DROP run on that URL's database). `owner_connection_limit`: the database is owned by a new
role of its own name, not a superuser, so that the limit holds: a server that leaks
connections then fails its own requests instead of exhausting a PostgreSQL server that others
share (bench/).
"""

import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

DROP_TRIES = 10  # a PostgreSQL server full of other clients refuses new ones for a while


class Database:
    def __init__(self, server_url=None, prefix="bunco_test", owner_connection_limit=None):
        self.server_url = server_url
        self.prefix = prefix
        self.owner_connection_limit = owner_connection_limit
        self.name = None
        self.url = None
        self.folder = None

    @property
    def env(self):
        """The environment naming it for the app: DATABASE_URL, or SQLITE_PATH."""
        if self.folder:
            return {"SQLITE_PATH": str(Path(self.folder.name) / f"{self.prefix}.sqlite3")}
        return {"DATABASE_URL": self.url}

    def create(self):
        if not self.server_url:
            self.folder = tempfile.TemporaryDirectory()
            return self
        self.name = f"{self.prefix}_{uuid.uuid4().hex[:12]}"
        server = urlparse(self.server_url)
        with self._admin() as conn:
            if self.owner_connection_limit is None:
                conn.execute(f'CREATE DATABASE "{self.name}"')
            else:
                conn.execute(f'CREATE ROLE "{self.name}" LOGIN '
                             f"CONNECTION LIMIT {int(self.owner_connection_limit)}")
                conn.execute(f'CREATE DATABASE "{self.name}" OWNER "{self.name}"')
                server = server._replace(netloc=f"{self.name}@{server.hostname}:{server.port or 5432}")
        self.url = urlunparse(server._replace(path=f"/{self.name}"))
        return self

    def drop(self):
        if self.folder:
            self.folder.cleanup()
            return
        import psycopg

        for attempt in range(DROP_TRIES):
            try:
                with self._admin() as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
                    if self.owner_connection_limit is not None:
                        conn.execute(f'DROP ROLE IF EXISTS "{self.name}"')
                return
            except psycopg.OperationalError:
                if attempt == DROP_TRIES - 1:
                    raise
                time.sleep(1)

    def _admin(self):
        import psycopg

        return psycopg.connect(self.server_url, autocommit=True, connect_timeout=5)

    def __enter__(self):
        return self.create()

    def __exit__(self, *exc):
        self.drop()
