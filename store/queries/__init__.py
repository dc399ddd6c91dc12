"""Every SELECT the pages use, as typed functions `(con, **filters) -> DataFrame`, collected in QUERIES.

Each submodule registers its functions with `@query`; pages call them through `pages._cached.q(name, ...)`, or
several that do not depend on each other at once through `pages._cached.q_many` (`run_many`).
"""
from __future__ import annotations

import concurrent.futures
import threading
from typing import Any, Callable, Mapping, Sequence

QUERIES: dict[str, Callable] = {}

AT_ONCE = 4
"""Queries `run_many` runs at the same time at most (a page's widest group is three)."""
_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def query(fn: Callable) -> Callable:
    """Register a query function under its own name."""
    if fn.__name__ in QUERIES:
        raise ValueError(f"query {fn.__name__!r} registered twice")
    QUERIES[fn.__name__] = fn
    return fn


def run_many(con, calls: Sequence[tuple[str, Mapping[str, Any]]]) -> list:
    """The results of several registered queries `(name, params)`, in order, run at the same time on cursors of
    `con`: DuckDB releases the GIL while it binds, plans and runs a statement, so on two cores one small query's
    fixed cost overlaps another's. The first failure is raised."""
    global _pool
    if len(calls) < 2:
        return [QUERIES[name](con.cursor(), **params) for name, params in calls]
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(AT_ONCE, thread_name_prefix="tanaw-query")
    cursors = [con.cursor() for _ in calls]
    futures = [_pool.submit(QUERIES[name], cur, **params) for (name, params), cur in zip(calls, cursors)]
    try:
        return [f.result() for f in futures]
    finally:
        concurrent.futures.wait(futures)  # none still runs on a cursor closed here
        for cur in cursors:
            cur.close()


def _load_all() -> None:
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


_load_all()
