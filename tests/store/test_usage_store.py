"""Cost and speed per model are stored when runs are written (V10) and only filtered by the leaderboard;
a store written before V10 gets them at start; a newer run of a cell replaces the older one's usage; hidden models
are left out."""
from __future__ import annotations

import dataclasses

import pytest

from evaluator.usage import usage_summary
from tests.helpers.fixtures_store import DATA_DIR, MODELS, predictions

MODEL = "SeaLion-9B-it"


def _ingest(con, preds, price_out: float, file: str) -> None:
    from services.ingest import ingest_predictions

    ingest_predictions(con, preds, model={"model_id": MODEL, **MODELS[MODEL], "origin": "evaluated"},
                       source={"file": file, "kind": "upload", "harness": "tanaw",
                               "settings": {"price_per_mtok": {"input": 0.5, "output": price_out}}},
                       data_dir=DATA_DIR)


def _sentiment(shift: int):
    return [dataclasses.replace(p, tokens_in=100 + i + shift, tokens_out=10 + i % 5, latency_s=0.5 + i % 3)
            for i, p in enumerate(x for x in predictions(MODEL) if x.task == "sentiment" and x.prompt_lang == "en")]


def _want(preds, price_out: float) -> dict:
    t_in, t_out = sum(p.tokens_in for p in preds), sum(p.tokens_out for p in preds)
    return usage_summary([{"requests": len(preds), "tokens_in": t_in, "tokens_out": t_out,
                           "latency_sum": sum(p.latency_s for p in preds), "latency_n": len(preds),
                           "price_in": 0.5, "price_out": price_out}])


def _stored(con, family: str = "") -> dict:
    from store.queries.leaderboard import usage_table

    df = usage_table(con, prompt_lang="en", family=family or None)
    return df.set_index("model").loc[MODEL].to_dict() if MODEL in set(df["model"]) else {}


def test_usage_is_stored_replaced_by_a_newer_run_and_backfilled(tmp_path):
    from services.usage_store import backfill_usage
    from store import db

    path = tmp_path / "u.duckdb"
    con = db.connect(path)
    first, second = _sentiment(0), _sentiment(7)
    _ingest(con, first, 2.0, "a.jsonl")
    got = _stored(con, "bhasa")
    assert got == {k: pytest.approx(v) for k, v in _want(first, 2.0).items()}
    _ingest(con, second, 3.0, "b.jsonl")  # supersedes the first run of the same cell
    want = {k: pytest.approx(v) for k, v in _want(second, 3.0).items()}
    assert _stored(con, "bhasa") == want and _stored(con) == want
    assert _stored(con, "pacute") == {}
    # a store written before V10: no model_usage table, schema at V9
    con.execute("DROP TABLE model_usage")
    con.execute("DELETE FROM schema_version WHERE version = 10")
    con.close()
    con = db.connect(path)
    assert _stored(con) == {}
    assert backfill_usage(con) == [MODEL]
    assert _stored(con) == want and backfill_usage(con) == []
    con.execute("UPDATE models SET hidden = true WHERE model_id = ?", [MODEL])
    assert _stored(con) == {}
    con.close()
