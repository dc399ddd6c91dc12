"""One real file of each format lands in the store with the scores our metrics compute; re-uploads are no-ops;
a newer upload replaces the old one and keeps history; admins can hide and delete; everything is audited."""
from __future__ import annotations

import json

import pytest

from services.upload import admin_action, ingest_upload
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from store.db import connect
from store.schema import row_counts
from tests.helpers import upload_files as U

pytestmark = pytest.mark.needs_samples


@pytest.fixture(scope="module")
def index():
    return ItemIndex(U.DATA)


def _agg(db, model, task, lang, prompt_lang, metric):
    con = connect(db, read_only=True)
    try:
        row = con.execute("SELECT value, n FROM aggregates WHERE model_id = ? AND task = ? AND lang = ? "
                          "AND prompt_lang = ? AND metric = ?", [model, task, lang, prompt_lang, metric]).fetchone()
        return row
    finally:
        con.close()


def _counts(db):
    con = connect(db, read_only=True)
    try:
        return row_counts(con)
    finally:
        con.close()


def test_pacute_bench_lands_verified_and_self_reported_apart(tmp_path, index):
    db = tmp_path / "t.duckdb"
    out = ingest_upload(db, read_upload(U.PACUTE_SAMPLE, index=index), model={"model_id": "gpt-4.1-nano"},
                        actor="test")
    assert out.status == "imported" and out.n_predictions == 5940 and out.n_summary == 24
    # verified: our re-scoring (449 of 500 exact matches on composition; 246 of 600 on hierarchical, native prompt)
    assert _agg(db, "gpt-4.1-nano", "pacute-composition-gen", "tl", "en", "exact_match") == (pytest.approx(89.8), 500)
    assert _agg(db, "gpt-4.1-nano", "pacute-hierarchical-gen", "tl", "native", "exact_match") == \
        (pytest.approx(41.0), 600)
    con = connect(db, read_only=True)
    # self-reported: pacute-bench's own hierarchical exact match (0.3717) is kept, apart, never in aggregates
    assert con.execute("SELECT value FROM self_reported_cells WHERE task = 'pacute-hierarchical-gen' "
                       "AND metric = 'exact_match'").fetchone()[0] == pytest.approx(0.37166666666666665)
    assert con.execute("SELECT count(*) FROM self_reported").fetchone()[0] == 5940 * 3
    assert con.execute("SELECT actor, action FROM audit").fetchall() == [("test", "upload")]
    con.close()
    before = _counts(db)
    again = ingest_upload(db, read_upload(U.PACUTE_SAMPLE, index=index), model={"model_id": "other-name"})
    assert again.status == "noop" and _counts(db) == before


def test_seahelm_lm_eval_and_native_land_with_our_scores(tmp_path, index):
    db = tmp_path / "t.duckdb"
    files = [
        ("inferences/id/sentiment/sea_sentiment_id.jsonl", U.jsonl(U.seahelm_sentiment_rows(10, wrong=(1, 4, 7))),
         ("sentiment", "id", "native", "accuracy", 70.0, 10)),
        ("samples_affixation_mcq_2026-03-01T10-00-00.jsonl", U.jsonl(U.lm_eval_mcq_rows(8, wrong=(0, 3))),
         ("pacute-affixation-mcq", "tl", "en", "mcq_acc", 75.0, 8)),
        ("samples_xcopa_id_2026-03-01T10-00-00.jsonl", U.jsonl(U.lm_eval_xcopa_rows(6, wrong=(2,))),
         ("causal", "id", "native", "accuracy", 500 / 6, 6)),  # XCOPA: Indonesian cloze prompt
    ]
    natives = [{"task": "causal", "lang": "vi", "item_id": it.item_id, "prompt_lang": "native",
                "prediction": it.gold if i % 4 else ("B" if it.gold == "A" else "A")}
               for i, it in enumerate(U.load_items("causal", "vi", limit=8, data_dir=U.DATA))]
    files.append(("mine.jsonl", U.jsonl(natives), ("causal", "vi", "native", "accuracy", 75.0, 8)))
    for name, data, (task, lang, pl, metric, value, n) in files:
        out = ingest_upload(db, read_upload(data, name, index=index), model={"model_id": f"m-{name[:8]}"})
        assert out.status == "imported", out.errors
        assert _agg(db, f"m-{name[:8]}", task, lang, pl, metric) == (pytest.approx(value), n), name


def test_newer_upload_replaces_older_keeps_history_and_admin_can_undo(tmp_path, index):
    db = tmp_path / "t.duckdb"
    name = "inferences/id/sentiment/m_sentiment_id.jsonl"
    first = read_upload(U.jsonl(U.seahelm_sentiment_rows(10, wrong=(1, 4, 7))), name, index=index)
    second = read_upload(U.jsonl(U.seahelm_sentiment_rows(10, wrong=())), name, index=index)
    assert ingest_upload(db, first, model={"model_id": "m"}).status == "imported"
    out = ingest_upload(db, second, model={"model_id": "m"})
    assert out.status == "imported" and out.replaced == 1
    assert _agg(db, "m", "sentiment", "id", "native", "accuracy") == (pytest.approx(100.0), 10)
    con = connect(db, read_only=True)
    assert sorted(con.execute("SELECT superseded FROM runs").fetchall()) == [(False,), (True,)]
    assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == 20  # history kept
    con.close()
    assert admin_action(db, second.sha256, "hide").startswith("m: hidden")
    con = connect(db, read_only=True)
    assert con.execute("SELECT hidden FROM models WHERE model_id = 'm'").fetchone()[0] is True
    con.close()
    admin_action(db, second.sha256, "delete")
    assert _agg(db, "m", "sentiment", "id", "native", "accuracy") == (pytest.approx(70.0), 10)
    con = connect(db, read_only=True)
    assert con.execute("SELECT superseded FROM runs").fetchall() == [(False,)]
    assert [a for (a,) in con.execute("SELECT action FROM audit ORDER BY happened_at").fetchall()] == \
        ["upload", "upload", "hide", "delete"]
    con.close()


def test_refused_upload_writes_nothing_but_an_audit_row(tmp_path, index):
    db = tmp_path / "t.duckdb"
    ingest_upload(db, read_upload(U.jsonl(U.seahelm_sentiment_rows(3)), "m_sentiment_id.jsonl", index=index),
                  model={"model_id": "ok"})
    before = _counts(db)
    bad = U.jsonl(U.seahelm_sentiment_rows(3)) + b'{"id": 1, "responses": "oops"}\n'
    out = ingest_upload(db, read_upload(bad, "m_sentiment_id.jsonl", index=index), model={"model_id": "bad"})
    assert out.status == "rejected" and "m_sentiment_id.jsonl:4: responses: expected a list" in str(out.errors[0])
    assert _counts(db) == before
    con = connect(db, read_only=True)
    assert con.execute("SELECT action, model_id FROM audit ORDER BY happened_at DESC LIMIT 1").fetchone() == \
        ("reject", "bad")
    con.close()
    assert json.loads(bad.splitlines()[-1])["id"] == 1


def test_summary_only_upload_is_self_reported_only(tmp_path, index):
    db = tmp_path / "t.duckdb"
    out = ingest_upload(db, read_upload(U.lm_eval_results(), "results_2026-03-01T10-00-00.json", index=index),
                        model={"model_id": "org/lm-model"})
    assert out.status == "imported" and out.n_summary == 1 and out.n_predictions == 0
    con = connect(db, read_only=True)
    assert con.execute("SELECT task, lang, metric, value FROM self_reported_cells").fetchall() == \
        [("causal", "id", "acc,none", 0.8333)]
    assert con.execute("SELECT count(*) FROM aggregates WHERE model_id = 'org/lm-model'").fetchone()[0] == 0
    con.close()
