"""Cost and speed per model equal hand sums over stored usage (tokens, latency, operator prices)."""
from __future__ import annotations

import dataclasses

import pytest

from evaluator.usage import usage_summary
from tests.helpers.fixtures_store import DATA_DIR, MODELS, app_test, pages_on, predictions


def test_usage_summary_by_hand():
    groups = [dict(requests=3, tokens_in=300, tokens_out=30, latency_sum=6.0, latency_n=3, price_in=1.0,
                   price_out=4.0),
              dict(requests=2, tokens_in=200, tokens_out=20, latency_sum=1.0, latency_n=1, price_in=2.0,
                   price_out=8.0)]
    got = usage_summary(groups)
    assert got["requests"] == 5 and got["tokens_in"] == 500 and got["tokens_out"] == 50
    assert got["mean_latency_s"] == pytest.approx(7.0 / 4)
    assert got["cost"] == pytest.approx((300 * 1 + 30 * 4 + 200 * 2 + 20 * 8) / 1e6)
    assert usage_summary([{**groups[0], "price_out": None}])["cost"] is None  # no price: no cost, never 0


def test_leaderboard_usage_columns_equal_hand_sums(tmp_path):
    from services.ingest import ingest_predictions
    from store import db

    con = db.connect(tmp_path / "u.duckdb")
    expected = {}
    for k, model in enumerate(("SeaLion-9B-it", "Closed-XL")):
        preds = [dataclasses.replace(p, tokens_in=100 + i, tokens_out=10 + (i % 5), latency_s=0.5 + k + i % 3)
                 for i, p in enumerate(x for x in predictions(model) if x.task == "sentiment" and x.prompt_lang == "en")]
        ingest_predictions(con, preds, model={"model_id": model, **MODELS[model], "origin": "evaluated"},
                           source={"file": f"{model}.jsonl", "kind": "upload", "harness": "tanaw",
                                   "settings": {"temperature": 0.0,
                                                "price_per_mtok": {"input": 0.5, "output": 2.0 + k}}},
                           data_dir=DATA_DIR)
        t_in, t_out = sum(p.tokens_in for p in preds), sum(p.tokens_out for p in preds)
        expected[model] = (len(preds), t_in, t_out, sum(p.latency_s for p in preds) / len(preds),
                           (t_in * 0.5 + t_out * (2.0 + k)) / 1e6)
    con.close()
    with pages_on(tmp_path / "u.duckdb"):
        at = app_test("leaderboard", bench="BHASA", prompt="English")
        assert not at.exception, [e.value for e in at.exception]
        assert "Cost and speed" in [h.value for h in at.subheader]
        usage = next(d.value for d in at.dataframe if "tokens_out" in d.value.columns).set_index("model")
        assert len(at.get("plotly_chart")) == 2  # heatmap and the score-vs-cost scatter
    for model, (n, t_in, t_out, lat, cost) in expected.items():
        row = usage.loc[model]
        assert (row["requests"], row["tokens_in"], row["tokens_out"]) == (n, t_in, t_out)
        assert row["mean_latency_s"] == pytest.approx(lat) and row["cost"] == pytest.approx(cost)


def test_missing_usage_is_not_an_error():
    nan = float("nan")
    got = usage_summary([dict(requests=4, tokens_in=nan, tokens_out=nan, latency_sum=nan, latency_n=0,
                              price_in=nan, price_out=nan)])
    assert got == {"requests": 4, "tokens_in": 0, "tokens_out": 0, "mean_latency_s": None, "cost": None}
