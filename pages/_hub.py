"""Hub sync for the app (Streamlit glue around services.hub_sync): pull on start and every five minutes, push after a
page changed the store, and a banner when the results repo cannot be reached (the app keeps its last good data).

Visitors see fixed sentences only: a status message carries text from the results repo (a manifest's table names)
and the Hub's answers, so it goes to the operator's log and to `hub_sync`, never to a banner or a toast."""
from __future__ import annotations

import logging
import os

import streamlit as st

from pages import _cached as cached
from services import hub_sync

PULL_EVERY_S = int(os.environ.get("TANAW_HUB_PULL_EVERY_S") or 300)  # the first page view after start pulls
PULL_FAILED = "The results repository could not be read; serving the last good data."
PUSH_FAILED = "The latest changes could not be saved to the results repository; they are kept here."
PUSHED = "Saved to the results repository."
log = logging.getLogger("tanaw.hub")


@st.cache_resource
def _state() -> dict:
    """Per-process memory: the store fingerprint at the last sync, the last push status and the last store version
    found unchanged since that sync."""
    return {}


@st.cache_resource(ttl=PULL_EVERY_S, show_spinner="Pulling results from the Hub…")
def _pull() -> hub_sync.SyncStatus:
    status = hub_sync.pull(_state())
    cached.clear()
    return status


def sync_banner() -> None:
    """Pull when due; warn on every page while the results repo is unreachable."""
    if not hub_sync.configured():
        return
    try:
        ok = _pull().ok  # a failed pull's detail is already in the log and in hub_sync
    except hub_sync.WriterBusy as e:
        log.warning("Hub pull skipped: %s", e)
        ok = False
    if not ok:
        st.warning(PULL_FAILED, icon=":material/cloud_off:")
    pushed = _state().get("push")
    if pushed is not None and not pushed.ok:
        st.warning(PUSH_FAILED, icon=":material/cloud_off:")


def push_changes() -> None:
    """After a page ran: push the store to the results repo if it changed since the last sync. The fingerprint
    (row counts and a hash over every table) is taken once per store version, not per view: a version already
    found unchanged is skipped; checked on a read cursor, so page runs that changed nothing never wait for the
    writer lock."""
    state = _state()
    now = cached.version()
    if state.get("checked") == now:
        return
    with cached.reading() as con:
        unchanged = not hub_sync.changed(state, con)
    if unchanged:
        state["checked"] = now
        return
    try:
        with st.spinner("Saving the results to the Hub…"):
            status = hub_sync.push_changes(state)
    except hub_sync.WriterBusy:
        return  # another writer is busy; the next page run pushes
    if status is not None and status.ok:
        log.info("%s", status.message)
        st.toast(PUSHED, icon=":material/cloud_done:")
    elif status is not None:
        log.warning("%s", status.message)
        st.warning(PUSH_FAILED, icon=":material/cloud_off:")
