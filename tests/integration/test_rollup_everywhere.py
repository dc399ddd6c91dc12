"""One roll-up rule, computed once (evaluator.rollup at ingest), shown the same on the leaderboard page, the CLI
and the Methodology page: MT en→xx 80, xx→en 60 and summarisation 10 give NLG 40 (the two translation directions
are one sub-task), not 50 (the mean of three tasks, which the page showed before roll-ups were stored)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evaluator.aggregate import CellScore
from evaluator.rollup import rollup_rows
from services.ingest import refresh_rollups, sync_registry
from store import writer
from store.db import connect, transaction
from tests.helpers.fixtures_store import pages_on

REPO = Path(__file__).resolve().parents[2]
CELLS = {"translation-en-xx": 80.0, "translation-xx-en": 60.0, "abssum": 10.0}
MODEL = "rollup-model"


def _cell(metric: str, value: float) -> CellScore:
    return CellScore(metric=metric, value=value, ci_low=value - 1, ci_high=value + 1, n=10, n_runs=1,
                     parse_fail_rate=0.0, chance=0.0, normalized=value, is_headline=True, status="ok")


def _build(path: Path) -> Path:
    from evaluator.registry import TASKS

    con = connect(path)
    with transaction(con):
        sync_registry(con)
        writer.upsert_model(con, {"model_id": MODEL, "origin": "evaluated"})
        for task, value in CELLS.items():  # the aggregates an ingest stores, then the wiring's roll-up step
            writer.save_aggregates(con, MODEL, task, "id", "en", [_cell(TASKS[task].headline_metric("id"), value)])
        refresh_rollups(con, [MODEL])
    con.close()
    return path


@pytest.fixture()
def store_path(tmp_path):
    """A store file of its own per test (the page test's app process keeps its file open)."""
    return _build(tmp_path / "tanaw.duckdb")


def test_rollup_rows_pin_nlg_40():
    cells = [{"task": t, "lang": "id", "prompt_lang": "en", "value": v, "normalized": v, "status": "ok"}
             for t, v in CELLS.items()]
    rows = {(r["family"], r["score"], r["level"], r["key"]): r for r in rollup_rows(cells)}
    assert rows[("bhasa", "normalized", "competency", "NLG")]["value"] == pytest.approx(40.0)
    assert rows[("", "value", "overall", "")]["value"] == pytest.approx(40.0)
    assert rows[("bhasa", "value", "language", "id")]["coverage"] == 3


def test_leaderboard_page_shows_nlg_40(store_path):
    with pages_on(store_path):
        at = AppTest.from_file(str(REPO / "pages" / "leaderboard.py"), default_timeout=120)
        at.query_params["score"] = "Raw"
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    board = at.dataframe[0].value.set_index("model")
    assert board.loc[MODEL, "NLG"] == pytest.approx(40.0)
    assert board.loc[MODEL, "overall"] == pytest.approx(40.0) and board.loc[MODEL, "lang:id"] == pytest.approx(40.0)
    assert board.loc[MODEL, "coverage"] == 3 and board.loc[MODEL, "rank"] == 1


def _cli(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "evaluator", *args], cwd=REPO, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_cli_prints_nlg_40(store_path):
    rows = json.loads(_cli("leaderboard", "--db", str(store_path), "--averages", "--json", "--prompt-lang", "en",
                           "--family", "bhasa"))
    by = {(r["level"], r["key"]): r["value"] for r in rows}
    assert by[("competency", "NLG")] == pytest.approx(40.0) and by[("overall", "")] == pytest.approx(40.0)
    table = _cli("leaderboard", "--db", str(store_path), "--averages")
    assert any(line.split()[:6] == [MODEL, "en", "all", "competency", "NLG", "40.0"] for line in table.splitlines())


def test_methodology_page_states_nlg_40():
    at = AppTest.from_file(str(REPO / "pages" / "methodology.py"), default_timeout=60)
    at.query_params["section"] = "Aggregation"
    at.run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "NLG = (70 + 10) / 2 = 40" in text and "not 50" in text
