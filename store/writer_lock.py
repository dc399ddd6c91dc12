"""One writer at a time: every write to a store file goes through `writer(path)`.

DuckDB allows one read-write process per file, and concurrent transactions in one process can conflict.
`writer` therefore takes (1) a per-file thread lock, so the app's sessions queue up instead of conflicting,
and (2) an exclusive `fcntl` lock on `<db>.lock`, so CLI processes queue up behind each other; then it opens
a short-lived connection (in the app process DuckDB shares the already-open database instance, so this works
beside the app's cached connection), yields it, and closes it. Readers only ever see committed transactions.

A CLI process cannot open the file while another process (a running app) holds it; it waits up to `timeout`,
saying so every few seconds to whoever asked (`on_wait`: the CLI prints it), and then raises `WriterBusy` with a
clear message instead of DuckDB's lock error. While an app serves the store the CLI does not wait: it queues the
write in `store/inbox.py`'s inbox, which the running app applies (services.serving).
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import duckdb

from store import db

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_GUARD = threading.Lock()
_WRITES: dict[str, int] = {}
_ON_WAIT: list[Callable[[str], None]] = []
WAIT_NOTE_S = 5.0
"""How often a waiting writer says so (seconds)."""


def writes(path: str | os.PathLike | None = None) -> int:
    """How many writer blocks this process has entered on the store at `path` (a change counter)."""
    return _WRITES.get(str(db.db_path(path).resolve()), 0)


def on_wait(say: Callable[[str], None]) -> None:
    """Have `say(message)` called about every WAIT_NOTE_S seconds while this process waits for the store (the CLI
    prints it: a command never waits in silence)."""
    if say not in _ON_WAIT:
        _ON_WAIT.append(say)


class _Notes:
    def __init__(self, path: Path, timeout: float):
        self.path, self.timeout = path, timeout
        self.start = self.last = time.monotonic()

    def __call__(self, why: str) -> None:
        now = time.monotonic()
        if _ON_WAIT and now - self.last >= WAIT_NOTE_S:
            self.last = now
            for say in _ON_WAIT:
                say(f"waiting for the store {self.path}: {why} ({now - self.start:.0f} s of {self.timeout:.0f})")


class WriterBusy(RuntimeError):
    """The store could not be opened for writing within the timeout (another process holds it)."""


def _thread_lock(key: str) -> threading.Lock:
    with _GUARD:
        return _THREAD_LOCKS.setdefault(key, threading.Lock())


def lock_path(path: Path) -> Path:
    """The sidecar lock file of a store file."""
    return path.with_name(path.name + ".lock")


@contextlib.contextmanager
def file_lock(path: Path, deadline: float, note: _Notes | None = None, *, shared: bool = False) -> Iterator[None]:
    """`fcntl.flock` on `path` until the block ends: exclusive (a writer), or `shared` (readers of a store that
    several processes serve, `store.serve.reading`); WriterBusy when not had by `deadline` (time.monotonic)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while True:
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise WriterBusy(f"another writer holds {path}; try again shortly") from None
                if note is not None:
                    note("another command is writing to it")
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _open(path: Path, deadline: float, note: _Notes) -> duckdb.DuckDBPyConnection:
    delay = 0.05
    while True:
        try:
            return db.connect(path)
        except duckdb.IOException as e:
            if "lock" not in str(e).lower():
                raise
            if time.monotonic() > deadline:
                raise WriterBusy(f"{path} is open in another process (is the app running on it?); stop it, "
                                 "or use `ingest --inbox` to queue the file for the app to import") from None
            note("another process has it open (the app, or a command that has not finished)")
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


@contextlib.contextmanager
def writer(path: str | os.PathLike | None = None, *, timeout: float = 120.0) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection to the store at `path`, held by this writer alone until the block ends."""
    if str(path) == ":memory:":
        raise ValueError("writer() serialises writes to a store file; use store.db.connect(':memory:') directly")
    p = db.db_path(path).resolve()
    deadline = time.monotonic() + timeout
    lock = _thread_lock(str(p))
    if not lock.acquire(timeout=timeout):
        raise WriterBusy(f"another upload is being written to {p}; try again shortly")
    note = _Notes(p, timeout)
    try:
        with file_lock(lock_path(p), deadline, note):
            con = _open(p, deadline, note)
            _WRITES[str(p)] = _WRITES.get(str(p), 0) + 1
            try:
                yield con
            finally:
                con.close()
                os.utime(lock_path(p))  # after the close: the store's version moves on (store.serve.version)
    finally:
        lock.release()


class Joined:
    """A connection proxy whose BEGIN/COMMIT/ROLLBACK are absorbed, so a callee that opens its own transaction
    (e.g. the pipeline) joins the caller's instead: the caller's extra rows commit or roll back with it."""

    _ABSORBED = {"BEGIN", "BEGIN TRANSACTION", "COMMIT", "ROLLBACK"}

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self._con = con

    def execute(self, sql: str, *args, **kwargs):
        if isinstance(sql, str) and sql.strip().rstrip(";").upper() in self._ABSORBED:
            return self
        return self._con.execute(sql, *args, **kwargs)

    def begin(self):
        return self

    def commit(self):
        return self

    def rollback(self):  # the callee re-raises after rolling back; the caller's transaction rolls back then
        return self

    def __getattr__(self, name: str):
        return getattr(self._con, name)
