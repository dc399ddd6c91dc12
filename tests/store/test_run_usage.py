"""A model's cost and speed are summed from its runs' stored tokens and latency (V15, written with the run
counts when a cell is aggregated), not from every prediction row of the store; runs without them (an older store or
export, a run being answered, two current runs sharing a run number) are summed from their own prediction rows."""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from evaluator.usage import run_usage as cell_run_usage
from evaluator.usage import usage_summary
from tests.helpers.fixtures_store import DATA_DIR, MODELS, predictions

MODEL = "SeaLion-9B-it"
PER_RUN = """SELECT run_id, count(*), coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),
                    coalesce(sum(latency_s), 0.0), count(latency_s)
             FROM predictions GROUP BY run_id ORDER BY run_id"""


class Spy:
    """A connection that records the SQL it runs."""

    def __init__(self, con):
        self.con, self.sql = con, []

    def execute(self, sql, params=None):
        self.sql.append(sql)
        return self.con.execute(sql, params)


def _ingested(tmp_path):
    from services.ingest import ingest_predictions
    from store import db

    con = db.connect(tmp_path / "u.duckdb")
    preds = [dataclasses.replace(p, tokens_in=100 + i, tokens_out=None if i % 4 == 0 else 7 + i % 3,
                                 latency_s=None if i % 5 == 0 else 0.1 * (1 + i % 7), run=1 + i % 2)
             for i, p in enumerate(predictions(MODEL))]
    ingest_predictions(con, preds, model={"model_id": MODEL, **MODELS[MODEL], "origin": "evaluated"},
                       source={"file": "u.jsonl", "kind": "upload", "harness": "tanaw",
                               "settings": {"price_per_mtok": {"input": 0.5, "output": 2.0}}},
                       data_dir=DATA_DIR)
    return con


def _by_run(rows) -> dict:
    return {r["run_id"]: (r["requests"], r["tokens_in"], r["tokens_out"], r["latency_sum"], r["latency_n"])
            for r in rows}


def _from_predictions(con) -> dict:
    return {r[0]: tuple(r[1:]) for r in con.execute(PER_RUN).fetchall()}


def _close(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for run_id, (requests, t_in, t_out, lat, lat_n) in want.items():
        assert got[run_id][:3] == (requests, t_in, t_out) and got[run_id][4] == lat_n
        assert got[run_id][3] == pytest.approx(lat, rel=1e-12, abs=1e-12)


def test_a_refreshed_model_sums_its_runs_without_reading_a_prediction_row(tmp_path):
    from store.usage import run_usage

    con = _ingested(tmp_path)
    spy = Spy(con)
    rows = run_usage(spy, MODEL)
    assert not any("predictions" in sql for sql in spy.sql)
    assert len(rows) > 2 and any(r["latency_n"] < r["requests"] for r in rows)  # some answers were not timed
    _close(_by_run(rows), _from_predictions(con))
    assert {r["price_out"] for r in rows} == {2.0}


def test_runs_without_stored_sums_are_summed_from_their_predictions_until_filled(tmp_path):
    from store.usage import fill_run_usage, run_usage

    con = _ingested(tmp_path)
    want = _by_run(run_usage(con, MODEL))
    lacking = sorted(want)[::2]
    con.execute("UPDATE run_counts SET tokens_in = NULL, tokens_out = NULL, latency_sum = NULL, latency_n = NULL "
                "WHERE list_contains(?, run_id)", [lacking])  # as an export written before V15 leaves them
    spy = Spy(con)
    _close(_by_run(run_usage(spy, MODEL)), want)
    assert sum("FROM predictions" in sql for sql in spy.sql) == 1
    fill_run_usage(con)
    spy = Spy(con)
    _close(_by_run(run_usage(spy, MODEL)), want)
    assert not any("predictions" in sql for sql in spy.sql)


def test_two_current_runs_sharing_a_run_number_are_summed_from_their_own_rows(tmp_path):
    from store.usage import run_usage

    con = _ingested(tmp_path)
    run_id, = con.execute("SELECT run_id FROM runs WHERE run_no = 1 ORDER BY run_id LIMIT 1").fetchone()
    twin = "twin-" + run_id
    con.execute("INSERT INTO runs SELECT * REPLACE (? AS run_id) FROM runs WHERE run_id = ?", [twin, run_id])
    con.execute("INSERT INTO predictions SELECT * REPLACE (? AS run_id, 5 AS tokens_in, 0.25 AS latency_s) "
                "FROM predictions WHERE run_id = ?", [twin, run_id])
    con.execute("INSERT INTO run_counts SELECT * REPLACE (? AS run_id) FROM run_counts WHERE run_id = ?",
                [twin, run_id])  # the counts a refresh of the cell would write: both runs' rows under one number
    _close(_by_run(run_usage(con, MODEL)), _from_predictions(con))


def test_a_store_at_v14_gets_its_runs_sums_from_their_predictions(tmp_path):
    from store import db
    from store.usage import run_usage

    con = _ingested(tmp_path)
    want = _by_run(run_usage(con, MODEL))
    for column in ("tokens_in", "tokens_out", "latency_sum", "latency_n"):
        con.execute(f"ALTER TABLE run_counts DROP COLUMN {column}")
    con.execute("DELETE FROM schema_version WHERE version = 15")
    con.close()
    con = db.connect(tmp_path / "u.duckdb")
    assert con.execute("SELECT count(*) FROM run_counts WHERE latency_n IS NULL").fetchone()[0] == 0
    _close(_by_run(run_usage(con, MODEL)), want)


def test_run_usage_of_a_cells_rows_by_hand():
    nan = float("nan")
    got = cell_run_usage(np.array([1, 2]), np.array([1, 0, 0, 1]), {"tokens_in": np.array([5, 10, nan, 1.0]),
                                                                    "tokens_out": np.array([nan, 1, 2, nan]),
                                                                    "latency_s": np.array([0.25, 0.5, nan, 0.125])})
    assert got == {1: (10, 3, 0.5, 1), 2: (6, 0, 0.375, 2)}


def test_the_model_sums_do_not_depend_on_the_order_of_its_runs():
    rng = random.Random(7)
    runs = [{"requests": 10, "tokens_in": rng.randrange(1000), "tokens_out": rng.randrange(100),
             "latency_sum": rng.random() * 10 ** rng.randrange(-3, 4), "latency_n": 10, "price_in": 0.3,
             "price_out": 1.7} for _ in range(200)]
    want = usage_summary(runs)
    for _ in range(5):
        rng.shuffle(runs)
        assert usage_summary(runs) == want  # exactly rounded sums: the same bits in any order


def test_an_export_before_v15_imports_attaches_and_gets_its_runs_sums(tmp_path):
    from services.usage_store import backfill_usage
    from store import db
    from store.parquet import export_store, import_store
    from store.scale import connect_parquet
    from store.usage import run_usage

    con = _ingested(tmp_path)
    want = _by_run(run_usage(con, MODEL))
    usage = con.execute("SELECT * FROM model_usage ORDER BY ALL").fetchall()
    for column in ("tokens_in", "tokens_out", "latency_sum", "latency_n"):
        con.execute(f"ALTER TABLE run_counts DROP COLUMN {column}")
    export_store(con, tmp_path / "export")  # run counts as a store before V15 exported them
    con.close()
    attached = connect_parquet(tmp_path / "export")
    assert attached.execute("SELECT count(*), count(latency_n) FROM run_counts").fetchone()[0] == len(want)
    _close(_by_run(run_usage(attached, MODEL)), want)  # summed from the prediction views
    attached.close()
    dst = db.connect(tmp_path / "copy.duckdb")
    import_store(dst, tmp_path / "export")
    assert dst.execute("SELECT count(latency_n) FROM run_counts").fetchone()[0] == 0
    backfill_usage(dst)  # as after every pull
    assert dst.execute("SELECT count(*) FROM run_counts WHERE latency_n IS NULL").fetchone()[0] == 0
    _close(_by_run(run_usage(dst, MODEL)), want)
    assert dst.execute("SELECT * FROM model_usage ORDER BY ALL").fetchall() == usage


def test_sums_beyond_the_float_range_are_infinite_not_an_error():
    runs = [{"requests": 1, "tokens_in": 0, "tokens_out": 0, "latency_sum": 1e308, "latency_n": 1}] * 2
    assert usage_summary(runs)["mean_latency_s"] == float("inf")  # as a pulled store's absurd sums would give
