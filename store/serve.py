"""The store the app serves: its DuckDB file, or a Parquet export in its place (`$TANAW_PARQUET`), how a serving
process reads it, and the store's version, which the pages' shared caches are keyed by (`pages._cached`); this
module knows nothing of Streamlit.

One app process (`streamlit run app.py`, `tanaw app`) keeps one read-write connection open for its whole life, as
DuckDB allows one read-write process per file (the CLI queues uploads in the inbox meanwhile). Several serving
processes on one store (the Space image, `deploy/serve.sh`, sets $TANAW_SERVE_SHARED=1) cannot: each reads through
`reading`, a read-only connection opened under a shared lock on `<db>.lock` and closed after the read, while every
write takes that lock exclusively (`store.writer_lock.writer`), so readers and a writer never hold the file at once
and any process, the CLI included, can write while they serve. Reads are rare there: the pages cache every result
per store version."""
from __future__ import annotations

import contextlib
import os
import time
from typing import Iterator

import duckdb

from store import db
from store.scale import connect_parquet
from store.writer_lock import file_lock, lock_path

READ_WAIT_S = 30.0
"""How long a read waits for a writer to finish before giving up (`store.writer_lock.WriterBusy`)."""


def parquet_root() -> str | None:
    """$TANAW_PARQUET: serve a Parquet export (a folder, `hf://datasets/...` or `s3://...`) instead of the file."""
    return os.environ.get("TANAW_PARQUET") or None


def open_store() -> duckdb.DuckDBPyConnection:
    """The DuckDB file the app owns (read-write), or, with $TANAW_PARQUET, an in-memory store over that export whose
    per-item tables stay Parquet views (read-only use: changes are not written back)."""
    root = parquet_root()
    return connect_parquet(root) if root else db.connect()


def shared() -> bool:
    """Whether this process shares the store file with other serving processes ($TANAW_SERVE_SHARED=1): it then
    reads through `reading` and holds no connection between reads."""
    return os.environ.get("TANAW_SERVE_SHARED") == "1" and not parquet_root()


@contextlib.contextmanager
def reading(path: str | os.PathLike | None = None, *, timeout: float = READ_WAIT_S
            ) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the store file, held under a shared lock on `<db>.lock` (readers share it, a writer
    waits for them and they for it) and closed when the block ends."""
    p = db.db_path(path).resolve()
    with file_lock(lock_path(p), time.monotonic() + timeout, shared=True):
        con = duckdb.connect(str(p), read_only=True)
        try:
            yield con
        finally:
            con.close()


class ReadEach:
    """A connection stand-in for a caller that reads between its own writes (a token check that audits a refusal):
    every `execute` runs in its own `reading` block and returns its rows already fetched, so no connection is held
    when the caller writes."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = path

    def execute(self, sql: str, parameters=None) -> "Rows":
        with reading(self.path) as con:
            return Rows(con.execute(sql, parameters).fetchall())

    def cursor(self) -> "ReadEach":
        return self


class Rows:
    """Fetched rows with the fetch methods of a DuckDB result."""

    def __init__(self, rows: list[tuple]):
        self._rows = rows

    def fetchone(self) -> tuple | None:
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[tuple]:
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self):
        return iter(self.fetchall())


def _stamp(path) -> tuple | None:
    try:
        s = os.stat(path)
    except FileNotFoundError:
        return None
    return s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns


def version(path: str | os.PathLike | None = None) -> tuple:
    """The store's version: a value that changes with every committed write, whoever makes it (a page's upload,
    hide or queue request, a Hub pull, a run, a CLI command in another process). DuckDB appends each commit to
    `<db>.wal` and a checkpoint rewrites the file, and `store.writer_lock.writer` touches `<db>.lock` after its
    connection closed, so the file, WAL and lock stamps (inode, size, times) change; reading changes none. A few
    system calls, no query: cheap enough for every page view. A Parquet export is read-only: its name is its
    version."""
    root = parquet_root()
    if root:
        return ("parquet", root)
    p = db.db_path(path)
    return tuple(_stamp(f) for f in (p, p.with_name(p.name + ".wal"), lock_path(p)))
