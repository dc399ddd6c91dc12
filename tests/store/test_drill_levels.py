"""The LINDSEA / PACUTE drill-down levels are stored when a model's cells are written (V11), pooled by
evaluator.drill_levels; a store written before V11 gets them at start, and stale ones are recomputed."""
from __future__ import annotations

import pytest

from evaluator.drill_levels import pooled_levels
from tests.helpers.fixtures_store import DATA_DIR, MODELS, predictions

MODEL = "Gemma-2B"


def test_pooled_levels_by_hand():
    rows = pooled_levels([{"a": "x", "n": 10, "correct": 5.0, "chance": 50.0},
                          {"a": "y", "n": 10, "correct": 10.0, "chance": 0.0}], ("a",))
    root = next(r for r in rows if r["depth"] == 0)
    assert (root["n"], root["value"], root["chance"], root["parts"]) == (20, 75.0, 50.0, 2)
    assert root["macro"] == pytest.approx(75.0) and root["ci_low"] == pytest.approx(53.1299, abs=1e-3)
    leaf = next(r for r in rows if r["keys"] == ("x",))
    assert (leaf["value"], leaf["macro"], leaf["parts"]) == (50.0, None, 0)


def _levels(con):
    return con.execute("SELECT * EXCLUDE (ci_low, ci_high, value, macro, correct), round(value, 9), "
                       "round(ci_low, 9), round(macro, 9) FROM drill_levels ORDER BY ALL").fetchall()


def test_levels_stored_at_ingest_and_backfilled(tmp_path):
    from services.drill_levels import backfill_levels
    from services.ingest import ingest_predictions
    from store import db

    path = tmp_path / "l.duckdb"
    con = db.connect(path)
    preds = [p for p in predictions(MODEL) if p.task.startswith(("lindsea-", "pacute-hierarchical-"))]
    ingest_predictions(con, preds, model={"model_id": MODEL, **MODELS[MODEL], "origin": "evaluated"},
                       source={"file": "g.jsonl", "kind": "upload", "harness": "tanaw"}, data_dir=DATA_DIR)
    stored = _levels(con)
    scopes = {r[0] for r in con.execute("SELECT scope FROM drill_levels WHERE depth = 0").fetchall()}
    assert {"lindsea", "pacute-hierarchical-mcq"} <= scopes and backfill_levels(con) == []
    con.execute("DROP TABLE drill_levels")  # a store written before V11
    con.execute("DELETE FROM schema_version WHERE version = 11")
    con.close()
    con = db.connect(path)
    assert _levels(con) == [] and backfill_levels(con) == [MODEL]
    assert _levels(con) == stored
    con.execute("UPDATE drill_levels SET n = n + 1 WHERE depth = 0 AND scope = 'lindsea'")  # stale
    assert backfill_levels(con) == [MODEL] and _levels(con) == stored
    con.close()


def test_a_cells_refresh_recomputes_only_its_groups_and_equals_a_full_recompute(tmp_path):
    """refresh_aggregates recomputes the levels of the LINDSEA / PACUTE groups its cells pool into and
    the usage of their prompt languages only; the stored rows equal a recompute of the whole model, bit for bit."""
    import dataclasses

    from services.drill_levels import refresh_levels
    from services.ingest import ingest_predictions
    from services.usage_store import refresh_usage
    from store import db
    from store.drill_levels import level_groups

    con = db.connect(tmp_path / "i.duckdb")
    preds = [dataclasses.replace(p, tokens_in=10 + i % 7, latency_s=0.25 * (i % 5)) for i, p in
             enumerate(predictions(MODEL))]
    batches = [[p for p in preds if p.prompt_lang == "en" and p.task.startswith("lindsea-")],
               [p for p in preds if p.prompt_lang != "en"],
               [p for p in preds if p.prompt_lang == "en" and not p.task.startswith("lindsea-")],
               [dataclasses.replace(p, run=2, output="A") for p in preds if p.task == "lindsea-mp"][:20]]
    for k, batch in enumerate(batches):
        ingest_predictions(con, batch, model={"model_id": MODEL, **MODELS[MODEL], "origin": "evaluated"},
                           source={"file": f"{k}.jsonl", "kind": "upload", "harness": "tanaw"}, data_dir=DATA_DIR)
    tables = ("drill_levels", "model_usage")
    incremental = [con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables]
    assert all(incremental)
    refresh_levels(con, [MODEL])
    refresh_usage(con, [MODEL])
    assert [con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables] == incremental
    lindsea, pacute = level_groups(con, [("lindsea-mp", "id", "en"), ("sentiment", "id", "en"),
                                         ("pacute-hierarchical-mcq", "tl", "native")])
    assert (lindsea, pacute) == ([["id", "en"]], [["pacute-hierarchical-mcq", "tl", "native"]])
    assert level_groups(con, [("sentiment", "id", "en")]) == ([], [])
