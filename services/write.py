"""The one write path into a store file: the writer lock, one transaction, and an audit row naming who did what.

Every write the app or the CLI makes (uploads, admin actions, queue requests, ratings, Hub pulls and pushes,
the worker's claims) goes through `locked`; pages never take the lock themselves.
"""
from __future__ import annotations

import contextlib
import os
from typing import Iterator

from store import audit
from store.db import db_path, transaction
from store.writer_lock import Joined, WriterBusy, writer

__all__ = ["Joined", "WriterBusy", "db_path", "locked", "token_ok", "transaction"]


@contextlib.contextmanager
def locked(path: str | os.PathLike | None = None, *, actor: str | None = None, action: str | None = None,
           detail: str = "", timeout: float = 120.0, model_id: str | None = None,
           file_name: str | None = None) -> Iterator:
    """A connection held by this writer alone (`store.writer_lock.writer`) for one transaction; with `action`,
    an audit row (actor, action, detail) commits with the write, and nothing is written when the block raises."""
    with writer(path, timeout=timeout) as con, transaction(con):
        yield Joined(con)
        if action:
            audit.record(con, actor or "unknown", action, model_id=model_id, file_name=file_name, detail=detail)


def token_ok(env: str, given: str | None) -> bool:
    """Whether `given` matches the secret in environment variable `env` (constant-time); no secret set = open."""
    import hmac

    want = os.environ.get(env)
    return not want or hmac.compare_digest(want.encode(), (given or "").encode())
