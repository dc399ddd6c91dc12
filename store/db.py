"""Opening the DuckDB file: default path, schema on open, and one-transaction writes."""
from __future__ import annotations

import contextlib
import os
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
