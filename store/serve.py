"""The store the app serves: its DuckDB file, or a Parquet export in its place (`$TANAW_PARQUET`), and the store's
version, which the pages' shared caches are keyed by (`pages._cached`); this module knows nothing of Streamlit."""
from __future__ import annotations

import os

import duckdb

from store import db
from store.scale import connect_parquet
from store.writer_lock import lock_path


def parquet_root() -> str | None:
    """$TANAW_PARQUET: serve a Parquet export (a folder, `hf://datasets/...` or `s3://...`) instead of the file."""
    return os.environ.get("TANAW_PARQUET") or None


def open_store() -> duckdb.DuckDBPyConnection:
    """The DuckDB file the app owns (read-write), or, with $TANAW_PARQUET, an in-memory store over that export whose
    per-item tables stay Parquet views (read-only use: changes are not written back)."""
    root = parquet_root()
    return connect_parquet(root) if root else db.connect()


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
