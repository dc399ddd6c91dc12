"""The pages' shared caches: one store connection per app process, and query results and drawn sections kept per
store version (`store.serve.version`, which moves on with every committed write, pull or hide), so every session
sees a write on its next view and no session waits for a time-to-live. What depends only on the store's contents
is built once per version and shared by every session; the store itself knows nothing of Streamlit."""
from __future__ import annotations

import contextlib
from typing import Callable, Iterator, TypeVar

import pandas as pd
import streamlit as st

from store.queries import QUERIES, run_many
from store.serve import ReadEach, open_store, parquet_root, shared
from store.serve import reading as shared_reading
from store.serve import version as store_version

__all__ = ["clear", "connection", "parquet_root", "q", "q_many", "reader", "reading", "section", "shared",
           "version"]
T = TypeVar("T")

ENTRIES = 512
"""Query results and drawn sections kept per cache (least recently used dropped first); a new store version drops
every older entry at once (`version`)."""


@st.cache_resource
def connection():
    """One connection per app process, a cursor per query: `store.serve.open_store` (the DuckDB file, or the
    Parquet export named by $TANAW_PARQUET). Not for a process that shares the store (`store.serve.shared`): read
    through `reading`."""
    return open_store()


@contextlib.contextmanager
def reading() -> Iterator:
    """A connection to read the store for the length of the block: a cursor of this process's own connection, or,
    when several serving processes share the store file, a read-only connection under the readers' lock
    (`store.serve.reading`)."""
    if shared():
        with shared_reading() as con:
            yield con
    else:
        yield connection().cursor()


def reader():
    """A connection for a page that reads and may write in between (token checks audit refusals through the
    writer): a cursor of this process's own connection, or, when the store is shared, one short read per statement
    (`store.serve.ReadEach`)."""
    return ReadEach() if shared() else connection().cursor()


@st.cache_resource
def _seen() -> dict:
    return {}


def version() -> tuple:
    """The store version this view reads; when it moved on since the last view of any session, every cached query
    and section of the older version is dropped (they can never be asked for again)."""
    now = store_version()
    seen = _seen()
    if seen.get("version") != now:
        if "version" in seen:
            clear()
        seen["version"] = now
    return now


def q(name: str, **params) -> pd.DataFrame:
    """Run the registered query `name` with hashable filter params, cached for the store version (each caller gets
    its own copy)."""
    return _q(version(), name, **params)


@st.cache_data(show_spinner=False, max_entries=ENTRIES)
def _q(at_version: tuple, name: str, **params) -> pd.DataFrame:
    with reading() as con:
        return QUERIES[name](con, **params)


def q_many(*calls: tuple[str, dict]) -> tuple[pd.DataFrame, ...]:
    """Several registered queries `(name, params)` that do not depend on each other, run at the same time
    (`store.queries.run_many`) and cached together for the store version: their results, in order."""
    return _many(version(), tuple((name, tuple(sorted(params.items()))) for name, params in calls))


@st.cache_data(show_spinner=False, max_entries=ENTRIES)
def _many(at_version: tuple, calls: tuple[tuple[str, tuple], ...]) -> tuple[pd.DataFrame, ...]:
    with reading() as con:
        return tuple(run_many(con, [(name, dict(params)) for name, params in calls]))


def section(key: tuple, draw: Callable[[], T]) -> T:
    """A page section drawn once per store version and `key` and replayed to every session: Streamlit records the
    elements a cached function draws and sends the same messages again on a hit, so a styled table or a figure is
    built once, not per view. `draw()` draws elements only, never a widget (download buttons stay outside), and
    `key` (page, section, and every choice the drawing reads) must say everything it depends on besides the store.
    What `draw` returns is shared by every session: read it, never change it."""
    return _section(version(), key, draw)


@st.cache_resource(show_spinner=False, max_entries=ENTRIES)
def _section(at_version: tuple, key: tuple, _draw: Callable[[], T]) -> T:
    return _draw()


def clear() -> None:
    """Drop every cached result and section (a new store version does this itself; kept for explicit callers)."""
    _q.clear()
    _many.clear()
    _section.clear()
