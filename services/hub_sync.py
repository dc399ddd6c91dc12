"""Hub sync orchestration for the app: pull the results repo (pushing unpushed work first), push after changes.

`state` is the app process's memory (the store fingerprint at the last sync and the last push status); the
Streamlit glue in pages/_hub.py keeps it and shows the banners. Every pull and push runs under the writer lock, and
a pull re-derives the roll-ups of the models it brought in.
"""
from __future__ import annotations

from services.ingest import refresh_rollups
from services.write import WriterBusy
from store.db import db_path, transaction
from store import hub
from store.writer_lock import writer

__all__ = ["HubConfig", "SyncStatus", "WriterBusy", "configured", "pull", "push_changes"]
HubConfig, SyncStatus = hub.HubConfig, hub.SyncStatus
MESSAGE = "Update from the Tanaw app"


def configured() -> bool:
    """Whether a results repo is set (TANAW_RESULTS_REPO)."""
    return bool(hub.HubConfig.from_env().repo_id)


def _push_pending(con, state: dict, config: hub.HubConfig) -> hub.SyncStatus | None:
    """Push when the store changed since the last sync or the last push failed (so a pull never runs over
    unpushed changes); None when there was nothing to push."""
    if "fingerprint" not in state:  # first sync of this process: the pull decides (it merges unpushed work)
        return None
    now = hub.fingerprint(con)
    failed = state.get("push") is not None and not state["push"].ok
    if now == state["fingerprint"] and not failed:
        return None
    status = hub.push(con, MESSAGE, config)
    state["fingerprint"], state["push"] = now, status
    return status


def rollup_all(con) -> None:
    """Re-derive every model's roll-ups from its aggregates and the stale human-evaluation figures (after an import
    replaced or merged rows)."""
    from services.derived import backfill_derived

    models = [r[0] for r in con.execute("SELECT DISTINCT model_id FROM aggregates").fetchall()]
    with transaction(con):
        refresh_rollups(con, models)
    backfill_derived(con)  # derived tables of the pulled rows (never merged from the other store)


def pull(state: dict) -> hub.SyncStatus:
    """Push pending work, then pull the results repo into the app's store (raises WriterBusy when busy)."""
    config = hub.HubConfig.from_env()
    with writer(db_path()) as con:
        _push_pending(con, state, config)
        status = hub.pull(con, config)
        if status.ok:
            rollup_all(con)
        state["fingerprint"] = hub.fingerprint(con)
    return status


def changed(state: dict, read_con) -> bool:
    """Whether the store changed since the last sync (checked on a read cursor, no lock taken)."""
    return configured() and hub.fingerprint(read_con) != state.get("fingerprint")


def push_changes(state: dict, *, timeout: float = 10) -> hub.SyncStatus | None:
    """Push the store if it changed since the last sync; None when there was nothing to push (WriterBusy when
    another writer holds the store)."""
    with writer(db_path(), timeout=timeout) as con:
        return _push_pending(con, state, hub.HubConfig.from_env())
