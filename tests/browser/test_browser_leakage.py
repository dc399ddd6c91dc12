"""A flagged cell in a real headless Chromium: the leaderboard's Leakage signals section shows the memorising model's
translation cell with its badge, its evidence (8 of 12 items, the share's interval) and its flagged items, and the
clean-items view beside the full score. Screenshot tests/_screenshots/leakage-flagged-cell.png is kept to be looked
at."""
from __future__ import annotations

import pytest

from tests.helpers.browser import chromium_available, chromium_page, rendered_grids, screenshot, serve_app, wait_for_app

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    from store import db
    from tests.helpers.leakage_fixture import ingest_memoriser

    path = tmp_path_factory.mktemp("leak") / "t.duckdb"
    con = db.connect(path)
    ingest_memoriser(con)
    con.close()
    with serve_app(path) as url:
        yield url


def test_a_flagged_cell_shows_its_badge_evidence_and_clean_score(app_url):
    with chromium_page(1400, 1000) as page:
        page.goto(f"{app_url}/leaderboard?bench=BHASA&prompt=English")
        wait_for_app(page, timeout_ms=180000)
        heading = page.get_by_text("Leakage signals").first
        heading.wait_for(timeout=180000)
        page.get_by_text("Clean items of a flagged cell").first.wait_for(timeout=60000)
        page.wait_for_timeout(2500)
        heading.scroll_into_view_if_needed()
        grids = rendered_grids(page)
        texts = [[c[0] for c in col["cells"]] for grid in grids for col in grid["columns"]]
        flat = [t for col in texts for t in col]
        assert "⚠ leakage" in flat and "mt_verbatim" in flat
        assert any(t.startswith("mt_verbatim: 8 of 12 items (66.7%, 95% CI 39.1–86.2%)") for t in flat)
        assert "clean items (no signal flagged)" in flat and "all items" in flat
        section = page.locator('[data-testid="stVerticalBlock"]').filter(has_text="Leakage signals").last
        screenshot(page, "leakage-flagged-cell-page")
        box = heading.bounding_box()
        page.screenshot(path=str(screenshot(page, "leakage-flagged-cell")), full_page=True,
                        clip={"x": 0, "y": box["y"] - 20, "width": 1400, "height": 900})
        assert section.count() >= 1
