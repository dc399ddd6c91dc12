"""Hub sync for the app (Streamlit glue around store.hub): pull on start and every five minutes, push after a
page changed the store, and a banner when the results repo cannot be reached (the app keeps its last good data)."""
from __future__ import annotations

import os

import streamlit as st

from store import cached, db, hub
from store.writer_lock import WriterBusy, writer

PULL_EVERY_S = int(os.environ.get("TANAW_HUB_PULL_EVERY_S") or 300)  # the first page view after start pulls
MESSAGE = "Update from the Tanaw app"


@st.cache_resource
def _state() -> dict:
    """Per-process memory: the store fingerprint at the last sync and the last push status."""
    return {}


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


@st.cache_resource(ttl=PULL_EVERY_S, show_spinner="Pulling results from the Hub…")
def _pull() -> hub.SyncStatus:
    config, state = hub.HubConfig.from_env(), _state()
    with writer(db.db_path()) as con:
        _push_pending(con, state, config)
        status = hub.pull(con, config)
        state["fingerprint"] = hub.fingerprint(con)
    cached.clear()
    return status


def sync_banner() -> None:
    """Pull when due; warn on every page while the results repo is unreachable."""
    if not hub.HubConfig.from_env().repo_id:
        return
    try:
        status = _pull()
    except WriterBusy as e:
        status = hub.SyncStatus("pull", False, f"Could not pull results ({e}); serving the last good data.")
    if not status.ok:
        st.warning(status.message, icon=":material/cloud_off:")
    pushed = _state().get("push")
    if pushed is not None and not pushed.ok:
        st.warning(pushed.message, icon=":material/cloud_off:")


def push_changes() -> None:
    """After a page ran: push the store to the results repo if it changed since the last sync (checked on a read
    cursor, so page runs that changed nothing never wait for the writer lock)."""
    config, state = hub.HubConfig.from_env(), _state()
    if not config.repo_id or hub.fingerprint(cached.connection().cursor()) == state.get("fingerprint"):
        return
    try:
        with writer(db.db_path(), timeout=10) as con, st.spinner("Saving the results to the Hub…"):
            status = _push_pending(con, state, config)
    except WriterBusy:
        return  # another writer is busy; the next page run pushes
    if status is not None and status.ok:
        st.toast(status.message, icon=":material/cloud_done:")
    elif status is not None:
        st.warning(status.message, icon=":material/cloud_off:")
