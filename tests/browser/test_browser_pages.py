"""Every explorer page in headless Chromium at 1280×900 on the fixture store: key text present, screenshots saved
to tests/_screenshots/ (look at them after a change)."""
from __future__ import annotations

import os
import shutil
from urllib.parse import urlencode

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from store import db as store_db
from store.ratings import ingest_ratings
from tests.helpers.browser import chromium_available, chromium_page, screenshot, serve_app, wait_for_app
from tests.helpers.fixtures_store import fixture_db

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs /usr/bin/chromium and playwright")

NAV = "header >> text=Explore"
"""The top navigation of app.py: present once st.navigation has run (before that Streamlit lists pages/ files)."""

DEEP_LINK = {"task": "lindsea-mp", "lang": "id", "sys": ["SeaLion-9B-it|en", "Gemma-2B|en"],
             "slice": "a_right_b_wrong", "item": "morphology-13"}

VIEWS = [
    # (screenshot name, url path, query params, texts that must be visible)
    ("lindsea", "lindsea", {"model": "Gemma-2B", "lang": "id", "branch": "syntax", "phenomenon": "morphology"},
     ["LINDSEA linguistic diagnostics", "Where it breaks", "chance 50%", "Minimal pairs answered wrongly"]),
    ("pacute", "pacute", {}, ["Hierarchy L0-L5", "chance 25%", "Gemma-2B scores 20% at L2", "Main suite and controls"]),
    ("cultural", "cultural", {"lang": "ta", "item": "0"},
     ["Cultural probes", "ஒற்றுமையே பலம்", "<script>alert('x')</script>", "Mean per model and criterion"]),
    ("compare_deep_link", "compare", DEEP_LINK,
     ["17 items", "Paired test, A vs B on all 40 items", "only narrow the table", "morphology-13",
      "Hmm, both could be fine depending on context."]),
    ("compare_three", "compare", {"task": "lindsea-mp", "lang": "id",
                                  "sys": ["Closed-XL|native", "SeaLion-9B-it|en", "Gemma-2B|native"]},
     ["Paired test, A vs B", "Download paired_tests_lindsea-mp_id (CSV)"]),
    ("compare_thai", "compare", {"task": "sentiment", "lang": "th", "sys": ["Closed-XL|en", "Gemma-2B|native"]},
     ["Compare generations", "ซื้อแต่ผ้าอนามัย"]),
    ("model", "model", {"model": "Gemma-2B"},
     ["Every cell", "Instruction-following failures", "Data-quality flags", "Provenance"]),
]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("browser") / "explorer.duckdb"
    shutil.copy(fixture_db(), db)
    con = store_db.connect(db)
    ingest_ratings(con, "item,model,rater,lang,accuracy,sensitivity\n0,Gemma-2B,r1,ta,2,3\n0,Closed-XL,r1,ta,5,4\n",
                   "ratings.csv")
    con.close()
    with serve_app(db) as url:
        yield url


@pytest.fixture(scope="module")
def browser_page(app_url):
    """One headless Chromium tab for the module, after a first run of app.py has registered the pages."""
    with chromium_page(1280, 900) as page:
        page.goto(app_url)
        page.wait_for_selector(NAV, timeout=90000)
        yield page


def _full_length(page, name: str) -> None:
    """With TANAW_FULL_SCREENSHOTS=1, a second screenshot `<name>_full` of the whole page (the main area scrolls,
    so the viewport is stretched to its height, then restored)."""
    if not os.environ.get("TANAW_FULL_SCREENSHOTS"):
        return
    height = page.evaluate(
        "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').scrollHeight + 250")
    page.set_viewport_size({"width": 1280, "height": max(900, height)})
    page.wait_for_timeout(2000)  # tables and charts redraw after a resize
    screenshot(page, f"{name}_full")
    page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.parametrize("name, path, params, texts", VIEWS, ids=[v[0] for v in VIEWS])
def test_page_renders_key_text(app_url, browser_page, name, path, params, texts):
    page = browser_page
    page.goto(f"{app_url}/{path}?{urlencode(params, doseq=True)}")
    page.wait_for_selector(NAV, timeout=60000)
    wait_for_app(page)
    page.wait_for_selector('[data-testid="stMainBlockContainer"] h1', timeout=30000)
    for text in texts:
        try:
            page.wait_for_function("t => document.body.innerText.includes(t)", arg=text, timeout=15000)
        except PlaywrightTimeout:
            screenshot(page, name)
            raise AssertionError(f"{name}: {text!r} not on the page") from None
    page.wait_for_timeout(1000)  # plotly charts and data grids finish drawing
    screenshot(page, name)
    assert not page.query_selector('[data-testid="stException"]'), f"{name}: the page raised"
    assert not page.query_selector("script:has-text(\"alert('x')\")")
    _full_length(page, name)


def test_deep_link_keeps_its_state_in_the_url(app_url, browser_page):
    """The URL after loading still names the view (defaults drop out), and reopening it shows the same item."""
    page = browser_page
    page.goto(f"{app_url}/compare?{urlencode(DEEP_LINK, doseq=True)}")
    wait_for_app(page)
    page.wait_for_function("t => document.body.innerText.includes(t)", arg="Item morphology-13", timeout=15000)
    url = page.url
    for value in ("slice=a_right_b_wrong", "item=morphology-13", "sys=SeaLion-9B-it%7Cen", "sys=Gemma-2B%7Cen"):
        assert value in url
    page.goto(url)
    wait_for_app(page)
    page.wait_for_function("t => document.body.innerText.includes(t)", arg="Item morphology-13", timeout=15000)
    assert "17 items" in page.inner_text("body")
