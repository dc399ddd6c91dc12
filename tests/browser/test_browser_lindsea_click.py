"""LINDSEA: clicking a bar of the drill-down lists the items of that node (real Chromium click on the Plotly bar)."""
import pytest

from tests.helpers.browser import chromium_available, chromium_page, screenshot, serve_app, wait_for_app
from tests.helpers.fixtures_store import fixture_db

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")


def _items_line(page) -> str:
    return next(line for line in page.inner_text("body").split("\n") if " items under " in line)


def test_clicking_a_category_bar_lists_its_items():
    with serve_app(fixture_db()) as url, chromium_page(1280, 1800) as page:
        page.goto(f"{url}/lindsea?branch=syntax&phenomenon=morphology")
        wait_for_app(page, 120000)
        bars = page.locator(".js-plotly-plot .barlayer .point path")
        bars.first.wait_for(timeout=60000)
        assert _items_line(page).startswith("40 items under morphology")
        assert bars.count() == 8  # four categories × two prompt languages
        bars.nth(2).click(force=True)
        page.wait_for_function("() => [...document.querySelectorAll('p')].some("
                               "p => /^10 items under /.test(p.innerText))", timeout=60000)
        line = _items_line(page)
        screenshot(page, "lindsea_click")
        assert line.startswith("10 items under ") and "morphology" not in line.split(" with ")[0]
