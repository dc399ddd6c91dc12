"""The leaderboard in a real headless Chromium: /leaderboard is the leaderboard, ?embed=1 shows the table alone, and the
leaderboard and PACUTE pages on a store of evaluated models (Thai and Tamil cells, a model of unknown size) show no
None and nothing cut off: every rendered table is read as its grid draws it (`tests/helpers/browser.py`
`rendered_grids`: every row's display text and each column's width) and no title or cell prints a missing value
("None", "nan", ...) or is wider than its column; nor does the page's own text print one. Screenshots under
tests/_screenshots/board-*.png are kept to be looked at (scripts readable)."""
from __future__ import annotations

import pytest

from tests.helpers.browser import (MISSING_TEXT, chromium_available, chromium_page, grid_problems, rendered_grids,
                                   screenshot, serve_app, wait_for_app)

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    from services.ingest import ingest_predictions
    from store import db
    from tests.helpers.fixtures_store import DATA_DIR, MODELS, predictions

    path = tmp_path_factory.mktemp("board") / "t.duckdb"
    con = db.connect(path)
    for model, meta in MODELS.items():  # the explorer fixture's answers, as evaluated (ranked) models
        ingest_predictions(con, predictions(model), model={"model_id": model, **meta, "origin": "evaluated"},
                           source={"file": f"{model}.jsonl", "kind": "upload", "harness": "tanaw",
                                   "settings": {"temperature": 0.0}}, data_dir=DATA_DIR)
    con.close()
    with serve_app(path) as url:
        yield url


def _open(page, url: str, text: str) -> None:
    page.goto(url)
    wait_for_app(page, timeout_ms=180000)
    page.get_by_text(text).first.wait_for(timeout=180000)
    page.wait_for_timeout(2500)


def _shows_no_none_and_nothing_cut(page, cut: tuple[str, ...] = ()) -> None:
    """The promise of this module on the page as rendered: the tables' grids (all rows) and the main area's text."""
    grids = rendered_grids(page)
    assert grids and all(col["cells"] for grid in grids for col in grid["columns"]), "no table rendered with rows"
    assert list(dict.fromkeys(grid_problems(grids))) == list(cut)
    text = page.inner_text('[data-testid="stMain"]')
    assert not MISSING_TEXT.search(text), MISSING_TEXT.search(text)


def test_leaderboard_has_its_own_path(app_url):
    with chromium_page(1400, 1400) as page:
        _open(page, f"{app_url}/leaderboard?bench=LINDSEA", "LINDSEA · normalized scores")
        body = page.inner_text("body")
        assert "Page not found" not in body and "You have requested page" not in body
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60000)
        screenshot(page, "board-leaderboard-lindsea")
        _shows_no_none_and_nothing_cut(page)


def test_embed_shows_the_table_alone(app_url):
    with chromium_page(1100, 500) as page:
        _open(page, f"{app_url}/leaderboard?embed=1&bench=BHASA", "Tanaw · BHASA")
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60000)
        body = page.inner_text("body")
        assert "Reported in the papers" not in body and "Model filters" not in body
        assert not page.locator('[data-testid="stPlotlyChart"]').count()
        screenshot(page, "board-embed-bhasa")
        _shows_no_none_and_nothing_cut(page)


def test_pacute_page(app_url):
    with chromium_page(1400, 1400) as page:
        _open(page, f"{app_url}/pacute", "Where it breaks")
        screenshot(page, "board-pacute")
        _shows_no_none_and_nothing_cut(page)
        _open(page, f"{app_url}/?bench=PACUTE", "PACUTE · normalized scores")
        screenshot(page, "board-leaderboard-pacute")
        _shows_no_none_and_nothing_cut(page)
