"""Stored paired tests (schema V13): written by ingest for every pair of systems on a cell in both orders, equal to
`pair_tests.paired_test` on the stored item outcomes; only the pairs of a re-ingested model's cells are recomputed;
back-filled for a store written before V13 and when stale; removed with the runs an upload deletion removes; and
recomputed, never merged, after a Hub merge."""
from __future__ import annotations

import pytest

from evaluator.pair_tests import paired_test
from services.ingest import ingest_predictions
from services.pair_tests import backfill_pair_tests
from store import db
from tests.helpers.fixtures_store import DATA_DIR, MODELS, predictions

TASK, LANG = "sentiment", "th"
COLS = "task, lang, metric, model_a, prompt_lang_a, model_b, prompt_lang_b, n, diff, ci_low, ci_high, p_value, method"


def _preds(model: str, task: str = TASK):
    return [p for p in predictions(model) if p.task == task]


def _ingest(con, model: str, preds=None, source: str | None = None) -> None:
    ingest_predictions(con, preds or _preds(model), model={"model_id": model, "origin": "evaluated", **MODELS[model]},
                       source={"file": f"{source or model}.jsonl", "kind": "upload", "harness": "tanaw",
                               "hash": source}, data_dir=DATA_DIR)


def _rows(con) -> list[tuple]:
    return con.execute(f"SELECT {COLS} FROM pair_tests ORDER BY ALL").fetchall()


def _outcomes(con, model: str, prompt_lang: str) -> dict[str, float]:
    return dict(con.execute("""
        SELECT o.item_id, o.value FROM item_outcomes o JOIN drill_cells d USING (cell_no)
        WHERE d.model_id = ? AND d.prompt_lang = ? AND d.task = ? AND d.lang = ? AND o.metric = 'accuracy'""",
                            [model, prompt_lang, TASK, LANG]).fetchall())


def test_ingest_stores_every_pair_in_both_orders_as_paired_test_gives_it(tmp_path):
    con = db.connect(tmp_path / "p.duckdb")
    for model in ("SeaLion-9B-it", "Gemma-2B"):
        _ingest(con, model)
    rows = con.execute("SELECT model_a, prompt_lang_a, model_b, prompt_lang_b, n, diff, ci_low, ci_high, p_value, "
                       "method, a_only, b_only FROM pair_tests WHERE metric = 'accuracy'").fetchall()
    assert len(rows) == 4 * 3  # four systems, every ordered pair
    for ma, pa, mb, pb, n, diff, lo, hi, p, method, a_only, b_only in rows:
        want = paired_test(_outcomes(con, ma, pa), _outcomes(con, mb, pb))
        assert (diff, lo, hi) == pytest.approx((want.diff, want.ci_low, want.ci_high), abs=1e-9, rel=0)
        assert (n, p, method, a_only, b_only) == (want.n, want.p_value, want.method, want.a_only, want.b_only)
    con.close()


def test_reingest_recomputes_only_that_models_pairs(tmp_path):
    con = db.connect(tmp_path / "p.duckdb")
    for model in MODELS:
        _ingest(con, model)
    con.execute("UPDATE pair_tests SET method = 'untouched' WHERE model_a <> 'Gemma-2B' AND model_b <> 'Gemma-2B'")
    flipped = [p for p in _preds("Gemma-2B") if p.prompt_lang == "en"]
    _ingest(con, "Gemma-2B", [type(p)(**{**p.__dict__, "output": "Positive"}) for p in flipped], source="again")
    methods = dict(con.execute("SELECT model_a <> 'Gemma-2B' AND model_b <> 'Gemma-2B', list(DISTINCT method) "
                               "FROM pair_tests GROUP BY ALL").fetchall())
    assert methods[True] == ["untouched"] and "untouched" not in methods[False]
    con.execute("UPDATE pair_tests SET method = 'mcnemar-exact' WHERE method = 'untouched'")
    after = _rows(con)
    con.execute("DELETE FROM pair_tests")
    assert backfill_pair_tests(con) and _rows(con) == after  # the incremental result is the whole recomputation
    con.close()


def test_store_written_before_v13_is_backfilled_and_stale_rows_recomputed(tmp_path):
    path = tmp_path / "p.duckdb"
    con = db.connect(path)
    for model in ("SeaLion-9B-it", "Closed-XL"):
        _ingest(con, model)
    stored = _rows(con)
    assert stored and backfill_pair_tests(con) == []
    con.execute("DROP TABLE pair_tests")  # a store written before V13
    con.execute("DELETE FROM schema_version WHERE version = 13")
    con.close()
    con = db.connect(path)
    assert _rows(con) == []
    assert len(backfill_pair_tests(con)) == 4 and _rows(con) == stored
    con.execute("UPDATE pair_tests SET cell_b = cell_b + 1000, diff = 99 WHERE model_a = 'Closed-XL'")  # stale
    con.execute("INSERT INTO pair_tests (task, lang, metric, model_a, prompt_lang_a, model_b, prompt_lang_b, cell_a, "
                "cell_b, n) VALUES (?, ?, 'accuracy', 'gone', 'en', 'gone-too', 'en', 998, 999, 0)", [TASK, LANG])
    assert backfill_pair_tests(con) and _rows(con) == stored  # stale rows recomputed, orphans of any model dropped
    con.close()


def test_deleting_an_upload_removes_its_pairs(tmp_path):
    from evaluator.formats.mapping import ItemIndex
    from evaluator.formats.read import read_upload
    from services.upload import admin_action, ingest_upload
    from tests.helpers.upload_files import jsonl

    path, index, hashes = tmp_path / "p.duckdb", ItemIndex(DATA_DIR), {}
    for model in MODELS:
        rows = [{"task": p.task, "lang": p.lang, "item_id": p.item_id, "prompt_lang": p.prompt_lang,
                 "prediction": p.output} for p in _preds(model) if p.prompt_lang == "en"]
        upload = read_upload(jsonl(rows), f"{model}.jsonl", index=index)
        assert ingest_upload(path, upload, model={"model_id": model}, data_dir=DATA_DIR).status == "imported"
        hashes[model] = upload.sha256
    con = db.connect(path)
    everything = _rows(con)
    assert {(r[3], r[5]) for r in everything} == {(a, b) for a in MODELS for b in MODELS if a != b}
    con.close()
    admin_action(path, hashes["Closed-XL"], "delete")
    con = db.connect(path)
    assert _rows(con) == [r for r in everything if "Closed-XL" not in (r[3], r[5])]
    con.close()


def test_hub_merge_recomputes_the_tests_instead_of_merging_them(tmp_path):
    from services.hub_sync import rollup_all
    from store.parquet import export_store, import_store

    remote = db.connect(tmp_path / "remote.duckdb")
    for model in MODELS:
        _ingest(remote, model)
    want = _rows(remote)
    remote.execute("UPDATE pair_tests SET diff = 999")  # what the other store holds is never taken
    export_store(remote, tmp_path / "export")
    remote.close()
    local = db.connect(tmp_path / "local.duckdb")
    _ingest(local, "Gemma-2B")
    import_store(local, tmp_path / "export", mode="merge")
    assert 999 not in {r[8] for r in _rows(local)}
    rollup_all(local)  # the pull's refresh
    assert _rows(local) == want
    local.close()
