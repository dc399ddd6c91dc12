"""Every SELECT the pages use, as typed functions `(con, **filters) -> DataFrame`, collected in QUERIES.

Each submodule registers its functions with `@query`; pages call them through `store.cached.q(name, ...)`.
"""
from __future__ import annotations

from typing import Callable

QUERIES: dict[str, Callable] = {}


def query(fn: Callable) -> Callable:
    """Register a query function under its own name."""
    if fn.__name__ in QUERIES:
        raise ValueError(f"query {fn.__name__!r} registered twice")
    QUERIES[fn.__name__] = fn
    return fn


def _load_all() -> None:
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


_load_all()
