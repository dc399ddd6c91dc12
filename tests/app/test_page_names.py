"""Streamlit infers a page's URL path from its file name with leading underscores dropped: a helper module
`pages/_human.py` beside `pages/human.py` stops the whole app ("Two pages resolve to the URL pathname /human")."""
from __future__ import annotations

from pathlib import Path

PAGES = Path(__file__).resolve().parents[2] / "pages"


def test_no_helper_module_shares_a_page_url():
    pages = {p.stem for p in PAGES.glob("*.py") if not p.stem.startswith("_")}
    helpers = {p.stem.lstrip("_") for p in PAGES.glob("_*.py")}
    assert not pages & helpers, f"rename pages/_{sorted(pages & helpers)[0]}.py"


def test_no_page_script_holds_a_bare_string_after_its_docstring():
    """Streamlit's magic draws a bare string statement in a page script as markdown (only the module docstring is
    exempt): an attribute docstring there shows up as text on the page."""
    import ast

    found = [f"{p.name}:{n.lineno}" for p in sorted(PAGES.glob("*.py")) if not p.stem.startswith("_")
             for n in ast.parse(p.read_text(encoding="utf-8")).body[1:]
             if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)]
    assert not found, f"bare strings in page scripts (use comments): {found}"
