"""Deep links that reach a page before app.py has ever run in this server process.

Streamlit keeps its legacy `pages/`-folder mode on until the first `st.navigation` call of the process, so the very
first visitor of a URL such as `/methodology` would get the page file run on its own: no top menu, no store
preparation. Every page calls `ensure_app()` first; in that case it switches the process to `st.navigation` mode
and reruns, so app.py draws the page as usual.
"""
from __future__ import annotations

import streamlit as st


def ensure_app() -> None:
    """Rerun through app.py when Streamlit ran this page without it (legacy pages/ mode)."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def embedded() -> bool:
    """Whether the URL asks for the embed view (`?embed=1`, or Streamlit's own `?embed=true`): the leaderboard
    table alone, for iframes. Streamlit hides `embed` from `st.query_params`, so it is read from the request."""
    from urllib.parse import parse_qs

    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    values = parse_qs(getattr(ctx, "query_string", "") or "").get("embed", [])
    return any(v.strip().lower() in ("1", "true") for v in values)


LEADERBOARD_PATH = "leaderboard"
"""The leaderboard's own path: it is the default page (served at /), and /leaderboard reaches it too."""


def route_default_alias() -> None:
    """Before `st.navigation`: a visit to /leaderboard asks for the default page, whose Streamlit path is the
    root, so Streamlit would say "Page not found"; point the request at the default page instead."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    if manager is not None and not manager.intended_page_script_hash \
            and (manager.intended_page_name or "").strip("/") == LEADERBOARD_PATH:
        manager.set_script_intent("", "")


def requested(page) -> bool:
    """Whether this run asks for `page` (an `st.Page`), by URL path on a first load or by its script hash when the
    browser reruns or navigates, before `st.navigation` resolves it."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    if manager is None:
        return False
    if manager.intended_page_script_hash:
        return manager.intended_page_script_hash == page._script_hash
    return (manager.intended_page_name or "").strip("/") == page.url_path
