"""Streamlit infers a page's URL path from its file name with leading underscores dropped: a helper module
`pages/_human.py` beside `pages/human.py` stops the whole app ("Two pages resolve to the URL pathname /human")."""
from __future__ import annotations

from pathlib import Path

PAGES = Path(__file__).resolve().parents[2] / "pages"


def test_no_helper_module_shares_a_page_url():
    pages = {p.stem for p in PAGES.glob("*.py") if not p.stem.startswith("_")}
    helpers = {p.stem.lstrip("_") for p in PAGES.glob("_*.py")}
    assert not pages & helpers, f"rename pages/_{sorted(pages & helpers)[0]}.py"
