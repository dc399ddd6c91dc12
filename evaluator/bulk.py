"""Contexts around bulk row work: a pause of Python's cyclic garbage collector (reading, scoring and writing an
upload) and BLAS held to the calling thread (the resample products of a refresh).

The rows an ingest builds (hundreds of thousands of predictions, results and column values) hold no reference
cycles and are freed by reference counting; with the collector on, its repeated passes over all of them while they
are alive cost about a quarter of an ingest's CPU time.
"""
from __future__ import annotations

import contextlib
import gc
import threading
from typing import Any, Iterator

_blas: Any = None
_held = threading.local()


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


def _controller() -> Any:
    global _blas
    if _blas is None:
        from threadpoolctl import ThreadpoolController

        _blas = ThreadpoolController()
    return _blas


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run BLAS on the calling thread only for the block (threadpoolctl): the resample sums are small products, and
    OpenBLAS's helper threads spin while they wait, costing more CPU than they save (4x the aggregate's CPU on a busy
    2-core machine; the live runner refreshes on a thread beside its event loop). Nested uses on a thread keep the
    outer limit: a limit and its restore are calls into OpenBLAS that cost 0.3-0.7 ms each on a loaded machine, so
    a cell's products share one."""
    if getattr(_held, "limiter", None) is not None:
        yield
        return
    with _controller().limit(limits=1, user_api="blas") as limiter:
        _held.limiter = limiter
        try:
            yield
        finally:
            _held.limiter = None


@contextlib.contextmanager
def usual_blas() -> Iterator[None]:
    """BLAS with its threads as they were before an enclosing `one_blas_thread` on this thread (none: as they are),
    for a product whose bits depend on them (OpenBLAS sums some products differently on 1 and 2 threads)."""
    limiter = getattr(_held, "limiter", None)
    if limiter is None:
        yield
        return
    with _controller().limit(limits=limiter.get_original_num_threads()["blas"], user_api="blas"):
        yield
