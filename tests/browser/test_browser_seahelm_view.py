"""The leaderboard's SEA-HELM view in a real headless Chromium: the demo store plus the shared SEA-HELM results file
and the two whole-suite fixtures (one without Burmese), read from the grid as drawn and saved as a screenshot."""
from __future__ import annotations

import json

import pytest

from services.demo import ensure_default_db
from services.upload import ingest_upload, read_upload
from store.db import connect
from tests.helpers import tool_files as T
from tests.helpers.browser import (chromium_available, chromium_page, grid_problems, rendered_grids, screenshot,
                                   serve_app, wait_for_app)
from tests.helpers.samples import SAMPLES

pytestmark = [pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed"),
              pytest.mark.needs_samples]
REAL = SAMPLES / "real-results" / "seahelm" / "gemma-4-E4B-it_seahelm_results.json"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("seahelm") / "tanaw.duckdb"
    con = connect(db)
    assert ensure_default_db(con)
    con.close()
    files = {"gemma-4-E4B-it": REAL.read_bytes(),
             "suite-complete": json.dumps(T.seahelm_suite_results()).encode(),
             "suite-no-burmese": json.dumps(T.seahelm_suite_results(tuple(T.SEAHELM_SUITE)[:-1])).encode()}
    for model, data in files.items():
        out = ingest_upload(db, read_upload(data, f"{model}_seahelm_results.json"), model={"model_id": model})
        assert out.status == "imported", out.errors
    with serve_app(db) as url:
        yield url


def test_seahelm_view_in_chromium(app_url):
    with chromium_page(1400, 1400) as page:
        page.goto(f"{app_url}/?view=SEA-HELM+rule")
        wait_for_app(page, timeout_ms=180000)
        page.get_by_text("SEA-HELM view · normalised scores · Native prompt").wait_for(timeout=180000)
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60000)
        page.get_by_text("Each language: its competencies").click()
        page.wait_for_timeout(3000)
        path = screenshot(page, "leaderboard-seahelm-view")
        grids = rendered_grids(page)
        board = {col["title"]: [text for text, _ in col["cells"]] for col in grids[0]["columns"]}
        assert board["model"][0] == "suite-complete" and board["SEA average"][0] == "47.9"  # 47.8699 by hand
        row = board["model"].index("suite-no-burmese")
        assert board["SEA average"][row] == "—" and board["my"][row] == "—" and board["id"][row] == "48.8"
        gemma = board["model"].index("gemma-4-E4B-it")
        assert board["SEA average"][gemma] == "—"
        comps = {col["title"]: [text for text, _ in col["cells"]] for col in grids[1]["columns"]}
        shown = [(m, lg, c, s) for m, lg, c, s in zip(comps["model"], comps["lang"], comps["competency"],
                                                      comps["score"]) if m == "gemma-4-E4B-it" and s != "—"]
        assert shown == [("gemma-4-E4B-it", "id", "knowledge", "59.8"), ("gemma-4-E4B-it", "vi", "knowledge", "52.6"),
                         ("gemma-4-E4B-it", "th", "knowledge", "43.3"), ("gemma-4-E4B-it", "tl", "knowledge", "55.3"),
                         ("gemma-4-E4B-it", "ms", "knowledge", "53.5"), ("gemma-4-E4B-it", "my", "knowledge", "42.6")]
        assert grid_problems(grids, widths=False) == []
        assert path.stat().st_size > 20000
        page.get_by_text("The SEA-HELM files' own totals").scroll_into_view_if_needed()
        page.wait_for_timeout(1000)
        page.screenshot(path=str(path.with_name("leaderboard-seahelm-view-totals.png")))
        totals = {col["title"]: [text for text, _ in col["cells"]] for col in grids[2]["columns"]}
        mine = [(lg, lv, v) for m, lg, lv, v in zip(totals["model"], totals["lang"], totals["level"],
                                                    totals["file's value"]) if m == "gemma-4-E4B-it"]
        assert ("id", "language", "7.5") in mine and ("sea", "sea", "6.2") in mine  # as the file gives them
