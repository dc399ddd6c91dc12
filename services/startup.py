"""Once per app process: bring the store up to date before the first page renders.

Mirrors the registries, rolls up models stored before roll-ups were, builds the demo content in an empty store,
reloads the papers' reported rows, imports the uploads the CLI queued in the inbox (`ingest --inbox`) while the app
held the store, and starts the watcher that applies what the CLI queues from then on and keeps the store's snapshot
for CLI reads (services.serving).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from services.demo import ensure_default_db


def prepare_store(con, db_path: str | Path | None = None, *, drain: bool = True,
                  on_change: Callable[[], None] | None = None) -> dict:
    """Prepare the store behind `con` (the app's connection); returns what was done, for the log.

    `db_path`: the store file, for the inbox (None = the default store); `drain=False` skips the inbox and the
    watcher (a read-only Parquet store has neither); `on_change`: called after the watcher applied queued writes
    (the pages drop their cached results)."""
    done = {"built": ensure_default_db(con)}
    if drain:
        from services.upload import drain_inbox
        from store.writer_lock import WriterBusy

        try:
            done["inbox"] = drain_inbox(db_path)
        except WriterBusy:
            done["inbox"] = []
        from services.serving import watch

        watch(db_path, on_change)
    return done
