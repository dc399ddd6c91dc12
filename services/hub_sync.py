"""Hub sync orchestration for the app: pull the results repo (pushing unpushed work first), push after changes.

`state` is the app process's memory (the store fingerprint at the last sync and the last push status); the
Streamlit glue in pages/_hub.py keeps it and shows the banners. Every pull and push runs under the writer lock, and
a pull re-derives the roll-ups of the models it brought in.

The evaluation queue travels through its own private repo (TANAW_QUEUE_REPO, `hub.HubConfig.queue`): a pull of the
results pulls it too (and pushes queued requests a failed push left behind), and `push_queue` sends it after a
request was queued or changed status. The results repo never carries it.
"""
from __future__ import annotations

import logging

from services.ingest import refresh_rollups
from services.write import WriterBusy
from store.db import db_path, transaction
from store import hub
from store.writer_lock import writer

__all__ = ["HubConfig", "SyncStatus", "WriterBusy", "configured", "pull", "pull_queue", "push_changes", "push_queue"]
HubConfig, SyncStatus = hub.HubConfig, hub.SyncStatus
MESSAGE = "Update from the Tanaw app"
log = logging.getLogger("tanaw.hub")


def configured() -> bool:
    """Whether a results repo (TANAW_RESULTS_REPO) or a queue repo (TANAW_QUEUE_REPO) is set."""
    return bool(hub.HubConfig.from_env().repo_id or hub.HubConfig.queue().repo_id)


def _logged(status: hub.SyncStatus) -> hub.SyncStatus:
    (log.info if status.ok else log.warning)("%s", status.message)
    return status


def pull_queue(con) -> hub.SyncStatus | None:
    """Merge the queue repo's requests into the store (by request id, the later status wins), then push the queue
    when a push of it failed since the last one succeeded; None when no queue repo is set."""
    config = hub.HubConfig.queue()
    if not config.repo_id:
        return None
    status = _logged(hub.pull(con, config))
    if status.ok and hub.unpushed(con, config.repo_id):
        _logged(hub.push(con, "Queue: requests kept while the queue repo was unreachable", config))
    return status


def push_queue(con, message: str) -> hub.SyncStatus | None:
    """Push the store's `submissions` (and nothing else) to the private queue repo; None when none is set. A
    repo the Hub reports public is refused (store.hub.PublicRepo) and nothing is sent."""
    config = hub.HubConfig.queue()
    return _logged(hub.push(con, message, config)) if config.repo_id else None


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
    """Push pending work, then pull the results repo and the queue repo into the app's store (raises WriterBusy
    when busy); the status of the results pull."""
    config = hub.HubConfig.from_env()
    with writer(db_path()) as con:
        _push_pending(con, state, config)
        status = hub.pull(con, config)
        if status.ok and status.action == "pull":
            rollup_all(con)
        pull_queue(con)
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
