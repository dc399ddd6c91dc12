"""The papers' reported rows (BHASA, PACUTE, the human rows they report) are part of every store: a store that
`tanaw ingest` created, with no app start and no demo, holds them normalised, and the board shows them."""
from __future__ import annotations

import csv
import subprocess
import sys
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from store.reference import REPORTED_CSV
from tests.helpers.fixtures_store import app_test, pages_on

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"


def _csv_counts() -> Counter:
    with REPORTED_CSV.open(encoding="utf-8", newline="") as f:
        return Counter((r["benchmark"], r["system"]) for r in csv.DictReader(f))


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    """A store created by `tanaw ingest` alone (the demo model's result file on the demo items)."""
    path = tmp_path_factory.mktemp("ingest-only") / "tanaw.duckdb"
    done = subprocess.run([sys.executable, "-m", "tanaw_cli", "ingest", str(DEMO / "gemma-3-270m.results.jsonl"),
                           "--model", "first-upload", "--db", str(path), "--data-dir", str(DEMO)],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return path


def test_a_store_ingest_created_holds_every_reported_row_normalised(ingested):
    con = duckdb.connect(str(ingested), read_only=True)
    try:
        stored = Counter(dict(((s, m), n) for s, m, n in con.execute(
            "SELECT source, system, count(*) FROM reported GROUP BY ALL").fetchall()))
        assert stored == _csv_counts()
        assert stored[("PACUTE", "human")] == 3 and stored[("BHASA", "human")] == 6
        assert con.execute("SELECT model_id FROM models").fetchall() == [("first-upload",)]  # and no demo
        assert con.execute("SELECT count(*) FROM reported_normalized").fetchone()[0] == sum(stored.values())
        # normalised like the aggregates: BHASA Thai sentiment (macro F1, three classes: chance 100/3)
        row = con.execute("SELECT value, chance, normalized FROM reported_normalized WHERE task = 'sentiment' "
                          "AND lang = 'th' AND system = 'gpt-3.5-turbo-0301' AND prompt_lang = 'en'").fetchone()
        assert row == (44.09, pytest.approx(100 / 3), pytest.approx((44.09 - 100 / 3) / (200 / 3) * 100))
    finally:
        con.close()


def test_the_board_of_an_ingest_created_store_shows_the_papers_and_the_human_rows(ingested):
    with pages_on(ingested):
        board = app_test("leaderboard", bench="PACUTE")
        assert not board.exception, board.exception
        captions = [c.value for c in board.caption]
        assert not any("The papers report no" in c for c in captions), captions
        reported = next(d.value for d in board.dataframe if "system" in d.value.columns)
        assert "human" in set(reported["system"])
        human = app_test("human")
        assert not human.exception, human.exception
        assert not any("No reported human rows" in m.value for m in human.markdown)
        rows = next(d.value for d in human.dataframe if {"system", "metric"} <= set(d.value.columns))
        assert rows["metric"].str.startswith("human_").all() and len(rows) >= 1


def test_a_start_reloads_the_papers_rows_and_keeps_a_pulled_human_baseline(tmp_path):
    """The CSV's sources are replaced at every start; rows another command loaded (`results pull`'s PACUTE human
    baseline) stay."""
    from services.reported import ensure_reported
    from store import db
    from store.db import transaction
    from store.reference import HUMAN_BASELINE_SOURCE, replace_reported_source

    con = db.connect(tmp_path / "t.duckdb")
    try:
        baseline = {"citation": "c", "task": "pacute-affixation-gen", "lang": "tl", "metric": "exact_match",
                    "paper_metric": "accuracy", "system": "human (mean of 3)", "prompt_lang": "n/a", "value": 90.0,
                    "note": None}
        with transaction(con):
            replace_reported_source(con, HUMAN_BASELINE_SOURCE, [baseline])
            con.execute("DELETE FROM reported WHERE source = 'BHASA' AND system = 'human'")  # an older CSV's rows
        assert ensure_reported(con, refresh=True) == sum(_csv_counts().values())
        stored = Counter(dict(((s, m), n) for s, m, n in con.execute(
            "SELECT source, system, count(*) FROM reported GROUP BY ALL").fetchall()))
        assert stored == _csv_counts() + Counter({(HUMAN_BASELINE_SOURCE, "human (mean of 3)"): 1})
        assert con.execute("SELECT normalized FROM reported_normalized WHERE source = ?",
                           [HUMAN_BASELINE_SOURCE]).fetchone() == (pytest.approx(90.0),)  # exact match: chance 0
    finally:
        con.close()
