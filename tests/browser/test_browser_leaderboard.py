"""The app from a fresh machine's point of view: first start builds the embedded default, answers on
/_stcore/health, and the leaderboard shows model rows and scores in a real headless Chromium (read from the grid as
drawn, `tests/helpers/browser.py` `rendered_grids`: no missing value printed as text)."""
import urllib.request

import pytest

from tests.helpers.browser import (chromium_available, chromium_page, grid_problems, rendered_grids, screenshot,
                                   serve_app, wait_for_app)

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("fresh") / "tanaw.duckdb"  # does not exist yet: first start builds it
    with serve_app(db) as url:
        yield url


def test_health_answers_200(app_url):
    with urllib.request.urlopen(f"{app_url}/_stcore/health", timeout=10) as r:
        assert r.status == 200 and r.read().strip() == b"ok"


def test_leaderboard_shows_baseline_rows_scores_and_reported_rows(app_url):
    with chromium_page(1280, 1800) as page:
        page.goto(app_url)
        wait_for_app(page, timeout_ms=180000)
        page.get_by_text("Reported in the papers (not ranked)").wait_for(timeout=180000)
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60000)
        page.wait_for_timeout(3000)
        path = screenshot(page, "leaderboard")
        body = page.inner_text("body")
        assert "Baseline · majority class (demo)" in body or "majority class" in page.content()
        assert "Reported in the papers" in body
        assert "Demo data." in body and "Gemma 3 270M" in body  # the real model's demo run, marked as demo
        assert path.stat().st_size > 20000


def test_native_prompt_and_raw_score_switches_come_from_the_url(app_url):
    with chromium_page(1280, 1800) as page:
        page.goto(f"{app_url}/?bench=PACUTE&prompt=Native&score=Raw")
        wait_for_app(page, timeout_ms=180000)
        page.get_by_text("PACUTE · raw scores · Native prompt").wait_for(timeout=180000)
        page.wait_for_timeout(1000)
        screenshot(page, "leaderboard-pacute-native-raw")
        grids = rendered_grids(page)
        board = {col["title"]: [text for text, _ in col["cells"]] for col in grids[0]["columns"]}
        assert "Gemma 3 270M base · Q4_K_M (demo run)" in board["model"] and len(board["model"]) >= 2
        assert all(0 <= float(v) <= 100 for v in board["overall"])  # raw scores: the metric itself on 0-100
        assert grid_problems(grids, widths=False) == []
