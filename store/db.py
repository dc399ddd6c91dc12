"""Opening the DuckDB file: default path, schema on open, one-transaction writes, and reads that never need the
write lock.

DuckDB lets one process open a file read-write, and then no other process can open it at all. The serving app
keeps its connection open, so it also keeps a consistent copy beside the file (`write_snapshot`, refreshed after
its writes by services.serving), and `reader` opens the file read-only, or that snapshot while the file is held."""
from __future__ import annotations

import contextlib
import datetime as dt
import os
import time
from pathlib import Path
from typing import Callable, Iterator

import duckdb

from store.schema import ensure_schema

DEFAULT_DB = Path(os.environ.get("TANAW_HOME", Path.home() / ".tanaw")) / "tanaw.duckdb"


_ON_OPEN: list[Callable[[duckdb.DuckDBPyConnection], object]] = []
"""Called with every read-write connection to a store file once its schema is current (`on_open`)."""


def on_open(hook: Callable[[duckdb.DuckDBPyConnection], object]) -> None:
    """Run `hook(con)` on every read-write open of a store file, after the schema: how the layers above give every
    store the rows it is created with (services registers the papers' reported rows) without the store knowing
    them. Registering the same hook twice runs it once."""
    if hook not in _ON_OPEN:
        _ON_OPEN.append(hook)


def db_path(path: str | os.PathLike | None = None) -> Path:
    """The database path: the argument, else $TANAW_DB, else ~/.tanaw/tanaw.duckdb."""
    return Path(path or os.environ.get("TANAW_DB") or DEFAULT_DB)


def connect(path: str | os.PathLike | None = None, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (creating if needed) the store and bring its schema up to date (read-write opens only)."""
    if str(path) == ":memory:":
        con = duckdb.connect(":memory:")
        ensure_schema(con)
        return con
    p = db_path(path)
    if read_only:
        return duckdb.connect(str(p), read_only=True)
    p.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(p))
    try:
        ensure_schema(con)
        for hook in _ON_OPEN:
            hook(con)
    except BaseException:
        con.close()
        raise
    return con


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN … COMMIT, rolling back on any exception so nothing is half-written."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


class StoreBusy(RuntimeError):
    """The store file is held by another process and no snapshot of it can be read."""


def snapshot_path(path: str | os.PathLike | None = None) -> Path:
    """The serving app's consistent copy of the store file, beside it."""
    p = db_path(path).resolve()
    return p.with_name(p.name + ".snapshot")


def write_snapshot(con: duckdb.DuckDBPyConnection, path: str | os.PathLike | None = None) -> Path:
    """Copy the store behind `con` (every table and view, as one transaction sees them) to `snapshot_path(path)`,
    through a temporary file renamed into place, so a reader has the old copy or the new one, never half of one."""
    target = snapshot_path(path)
    tmp = target.with_name(target.name + ".tmp")
    for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
        stale.unlink(missing_ok=True)
    source = con.execute("SELECT current_database()").fetchone()[0]
    con.execute(f"ATTACH '{str(tmp).replace(chr(39), chr(39) * 2)}' AS tanaw_snapshot_copy")  # our own path
    try:
        con.execute(f'COPY FROM DATABASE "{source.replace(chr(34), chr(34) * 2)}" TO tanaw_snapshot_copy')
    finally:
        con.execute("DETACH tanaw_snapshot_copy")
    os.replace(tmp, target)
    return target


def _held(e: duckdb.Error) -> bool:
    return "lock" in str(e).lower()


def reader(path: str | os.PathLike | None = None, *, wait: float = 0.0,
           say=None) -> tuple[duckdb.DuckDBPyConnection, str | None]:
    """A read-only connection that never takes or waits on the write lock: the store file, or, while another process
    holds it, the serving app's snapshot; returns (connection, None) or (connection, a note naming the snapshot and
    its time). Without a snapshot it retries for `wait` seconds (`say(message)` about every five), then raises
    StoreBusy with a clear message."""
    p = db_path(path)
    if not p.exists():  # nothing stored yet: an empty store of the current schema
        return connect(":memory:"), None
    deadline = time.monotonic() + wait
    told = 0.0
    while True:
        try:
            return duckdb.connect(str(p), read_only=True), None
        except duckdb.IOException as e:
            if not _held(e):
                raise
        snap = snapshot_path(p)
        if snap.is_file():
            try:
                con = duckdb.connect(str(snap), read_only=True)
            except duckdb.Error:
                pass  # being replaced this instant: try again
            else:
                at = dt.datetime.fromtimestamp(snap.stat().st_mtime).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")
                return con, f"{p} is held by the serving app; read its snapshot of {at}"
        now = time.monotonic()
        if now > deadline:
            raise StoreBusy(f"{p} is held by another process and has no snapshot to read (the app writes one "
                            "when it starts serving); try again when that process ends")
        if say and now - told >= 5:
            say(f"waiting for {p}: another process holds it ({now - deadline + wait:.0f} s of {wait:.0f})")
            told = now
        time.sleep(0.2)
