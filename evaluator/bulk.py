"""A pause of Python's cyclic garbage collector around bulk row work (reading, scoring and writing an upload).

The rows an ingest builds (hundreds of thousands of predictions, results and column values) hold no reference
cycles and are freed by reference counting; with the collector on, its repeated passes over all of them while they
are alive cost about a quarter of an ingest's CPU time (issue 14).
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector for the block (nested uses are fine), restoring its state after."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
