"""An append hands many rows over as one Arrow table, few as list parameters (`store.live.LIST_VALUES`);
both store the same rows: run counts (computed_at being the transaction's start), and a live run's predictions,
scores and items with their JSON, list and missing values."""
from __future__ import annotations

import json

import pytest

from store import db, drilldown, live


def _columns(n: int) -> list[list]:
    return [[f"run-{i:04d}" for i in range(n)], [50 + i for i in range(n)], [i % 3 for i in range(n)],
            [None if i % 4 == 0 else 1000 * i for i in range(n)], [None if i % 5 == 0 else 2 ** 40 + i for i in range(n)],
            [None if i % 6 == 0 else (float("inf") if i == 7 else 0.125 * i) for i in range(n)],
            [None if i % 6 == 0 else i for i in range(n)]]


def _both_ways(tmp_path, monkeypatch, name: str, write, read: str) -> dict[str, list]:
    stored = {}
    for way, threshold in (("lists", 10 ** 9), ("arrow", 1)):
        monkeypatch.setattr(live, "LIST_VALUES", threshold)
        con = db.connect(tmp_path / f"{way}-{name}.duckdb")
        with db.transaction(con):
            write(con)
        stored[way] = con.execute(read).fetchall()
        con.close()
    return stored


@pytest.mark.parametrize("n", [8, 300])
def test_run_counts_both_ways_store_the_same_rows(tmp_path, monkeypatch, n):
    began = {}

    def write(con):
        drilldown._insert_run_counts(con, [list(r) for r in zip(*_columns(n))])
        began[len(began)] = con.execute("SELECT current_timestamp::TIMESTAMP").fetchone()[0]
        assert con.execute("SELECT DISTINCT computed_at FROM run_counts").fetchall() == [(began[len(began) - 1],)]

    stored = _both_ways(tmp_path, monkeypatch, f"counts-{n}", write,
                        "SELECT * EXCLUDE (computed_at) FROM run_counts ORDER BY run_id")
    assert stored["lists"] == stored["arrow"]
    assert len(stored["arrow"]) == n and stored["arrow"][7][5] == float("inf")
    assert [tuple(r) for r in stored["arrow"][:2]] == [("run-0000", 50, 0, None, None, None, None),
                                                       ("run-0001", 51, 1, 1000, 2 ** 40 + 1, 0.125, 1)]


def _prediction(i: int) -> tuple:
    return (f"run-{i % 3}", f"item-{i}", "ba" if i % 2 else "ab", f"prompt ü {i}", None if i == 1 else f"out {i}",
            "A" if i % 4 else None, bool(i % 5), None if i % 3 else "thinking", None if i == 2 else 10 + i, 1,
            float("nan") if i == 3 else 0.25 * i, "stop", None if i % 2 else [-0.5, -1.0 * i],
            None if i % 3 else json.dumps({"attempts": 1 + i, "note": "é"}, ensure_ascii=False))


def test_live_rows_both_ways_store_the_same_values(tmp_path, monkeypatch):
    preds = [_prediction(i) for i in range(12)]
    scores = [(p[0], p[1], p[2], m, 0.5 * (i % 3)) for i, p in enumerate(preds) for m in ("accuracy", "f1")]
    items = [("sentiment", "id", f"item-{i}", json.dumps({"text": f"t {i}"}), json.dumps("A"),
              None if i % 2 else json.dumps(["A", "B"]), json.dumps({}), [] if i % 3 else ["short", "dup"],
              None, "cat" if i % 2 else None, None, None if i % 4 else i, f"h{i}") for i in range(12)]

    def write(con):
        live.append(con, "predictions", preds, replace=False)
        live.append(con, "predictions", preds[:3], replace=True)  # a rerun replaces what it asks again
        live.append(con, "scores", scores, replace=False)
        live.append(con, "items", items, replace=True)

    read = ("SELECT 'p', run_id, item_id, ord, prompt, output, answer, parsed, reasoning, tokens_in, tokens_out, "
            "CAST(latency_s AS VARCHAR), finish_reason, option_logprobs::VARCHAR, extras::VARCHAR, NULL, NULL "
            "FROM predictions UNION ALL "
            "SELECT 's', run_id, item_id, ord, metric, CAST(value AS VARCHAR), NULL, NULL, NULL, NULL, NULL, NULL, "
            "NULL, NULL, NULL, NULL, NULL FROM scores UNION ALL "
            "SELECT 'i', task, lang, item_id, inputs::VARCHAR, gold::VARCHAR, options::VARCHAR, NULL, "
            "metadata::VARCHAR, level, NULL, NULL, category, warnings::VARCHAR, content_hash, "
            "json_type(inputs), typeof(inputs) FROM items ORDER BY ALL")
    stored = _both_ways(tmp_path, monkeypatch, "live", write, read)
    assert stored["lists"] == stored["arrow"]
    got = stored["lists"]
    assert len([r for r in got if r[0] == "p"]) == 12 and len([r for r in got if r[0] == "s"]) == 24
    item0 = next(r for r in got if r[0] == "i" and r[3] == "item-0")
    assert item0[4] == '{"text": "t 0"}' and item0[13] == "[short, dup]" and item0[15:] == ("OBJECT", "JSON")
    nan_row = next(r for r in got if r[0] == "p" and r[2] == "item-3")
    assert nan_row[11] == "nan" and json.loads(nan_row[14]) == {"attempts": 4, "note": "é"}
    p4 = next(r for r in got if r[0] == "p" and r[2] == "item-4")
    assert next(r for r in got if r[0] == "p" and r[2] == "item-1")[14] is None
    assert p4[13] == "[-0.5, -4.0]" and json.loads(next(r for r in got if r[0] == "p" and r[2] == "item-0")[14]) == {
        "attempts": 1, "note": "é"}


def test_the_rule_counts_values_not_rows(monkeypatch):
    calls = []

    class Spy:
        def execute(self, sql, params=None):
            calls.append(sql)

        def register(self, name, frame):
            calls.append(f"register {frame.num_rows}")

        def unregister(self, name):
            pass

    few = [_prediction(i) for i in range(live.LIST_VALUES // len(live.PREDICTION_COLUMNS))]
    live.append(Spy(), "predictions", few)
    live.append(Spy(), "predictions", few + [_prediction(99)] * len(live.PREDICTION_COLUMNS))
    assert "unnest(?)" in calls[0] and calls[1] == f"register {len(few) + len(live.PREDICTION_COLUMNS)}"
