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
