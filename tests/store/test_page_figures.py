"""Schema V12: figures the pages once computed at read time are stored by the wiring (parse failures and the means
of a file's own scores are views since V17). A store written before V12 gets them at start, equal to a fresh
build's; hiding a model takes it out of every cell's field (and out of the rank ranges); an uploaded file's own
per-item scores are summarised per run."""
from __future__ import annotations

import dataclasses
import shutil

import pytest

from evaluator.model_figures import cell_field
from tests.helpers.fixtures_store import DATA_DIR, MODELS, fixture_db, predictions

V12_TABLES = ("reported_normalized", "cell_field", "control_ceilings")
V12_VIEWS = ("parse_failures", "run_self_reported")


@pytest.fixture()
def store(tmp_path):
    """A copy of the fixture store (three models, written through the wiring), which holds the papers' reported
    rows as every store does (services.reported)."""
    from store import db

    path = tmp_path / "copy.duckdb"
    shutil.copy(fixture_db(), path)
    con = db.connect(path)
    yield con
    con.close()


def _rows(con, table: str) -> list[tuple]:
    return sorted(con.execute(f"SELECT * FROM {table}").fetchall(), key=repr)


def test_a_store_written_before_v12_gets_the_figures_at_start(store, tmp_path):
    from services.demo import ensure_default_db
    from store import db

    fresh = {t: _rows(store, t) for t in V12_TABLES + V12_VIEWS}
    assert all(fresh[t] for t in ("reported_normalized", "cell_field", "parse_failures", "control_ceilings"))
    thai = store.execute("SELECT value, chance, normalized FROM reported_normalized WHERE task = 'sentiment' "
                         "AND lang = 'th' AND system = 'gpt-3.5-turbo-0301' AND prompt_lang = 'en'").fetchall()
    assert thai == [(44.09, pytest.approx(100 / 3), pytest.approx((44.09 - 100 / 3) / (200 / 3) * 100))]
    for t in V12_TABLES:  # back to V11: the migration's tables gone
        store.execute(f"DROP TABLE {t}")
    store.execute("DELETE FROM schema_version WHERE version = 12")
    store.close()
    con = db.connect(tmp_path / "copy.duckdb")
    try:
        assert all(not _rows(con, t) for t in V12_TABLES)
        ensure_default_db(con)
        assert {t: _rows(con, t) for t in V12_TABLES + V12_VIEWS} == fresh
    finally:
        con.close()


def _field(con) -> dict:
    return {(m, t, lg, pl): (best, worst, n, med)
            for m, t, lg, pl, best, worst, n, med in con.execute(
                "SELECT model_id, task, lang, prompt_lang, rank_best, rank_worst, n_models, field_median "
                "FROM cell_field").fetchall()}


def test_hiding_a_model_takes_it_out_of_the_field_and_the_ranks(store, tmp_path):
    from services.upload import admin_action

    store.execute("UPDATE models SET origin = 'uploaded'")
    store.execute("INSERT INTO uploads (source_hash, model_id, file_name) VALUES ('h', 'Gemma-2B', 'g.jsonl')")
    before = _field(store)
    ranked = "SELECT DISTINCT model_id FROM rollups WHERE level = 'rank' ORDER BY 1"
    store.close()
    path = tmp_path / "copy.duckdb"
    assert admin_action(path, "h", "hide").endswith("hidden")
    from store import db

    con = db.connect(path)
    try:
        hidden = _field(con)
        assert not [k for k in hidden if k[0] == "Gemma-2B"]
        cells = con.execute("""SELECT task, lang, prompt_lang, model_id, value, ci_low, ci_high FROM aggregates
                               WHERE is_headline AND status = 'ok' AND model_id <> 'Gemma-2B'""").fetchall()
        for t, lg, pl in {k[1:] for k in hidden}:
            want = cell_field({m: (v, lo, hi) for t2, lg2, pl2, m, v, lo, hi in cells if (t2, lg2, pl2) == (t, lg, pl)})
            for m, f in want.items():
                assert hidden[(m, t, lg, pl)] == (f["rank_best"], f["rank_worst"], 2, pytest.approx(f["field_median"]))
        assert [r[0] for r in con.execute(ranked).fetchall()] == ["Closed-XL", "SeaLion-9B-it"]
    finally:
        con.close()
    admin_action(path, "h", "unhide")
    con = db.connect(path)
    try:
        assert _field(con) == before
        assert [r[0] for r in con.execute(ranked).fetchall()] == ["Closed-XL", "Gemma-2B", "SeaLion-9B-it"]
    finally:
        con.close()


def test_a_files_own_scores_are_summarised_per_run(store):
    from services.ingest import ingest_predictions
    from store.queries.upload import self_reported_summary

    cell = [p for p in predictions("Closed-XL") if p.task == "sentiment" and p.prompt_lang == "en"]
    own = [dataclasses.replace(p, run=run, self_reported={"acc": float((i + run) % 3 == 0)})
           for run in (1, 2) for i, p in enumerate(cell)]
    ingest_predictions(store, own, model={"model_id": "Own", **MODELS["Closed-XL"]},
                       source={"file": "own.jsonl", "kind": "upload", "hash": "own-1"}, data_dir=DATA_DIR)
    got = self_reported_summary(store, model="Own")
    assert got[["task", "metric", "origin", "file", "items"]].values.tolist() == [
        ["sentiment", "acc", "per-item scores in file", f"run {run}", len(cell)] for run in (1, 2)]
    for run, value in zip((1, 2), got["value"]):
        scores = [p.self_reported["acc"] for p in own if p.run == run]
        assert value == pytest.approx(sum(scores) / len(scores))


def test_a_refresh_recomputes_the_cells_whose_rows_changed_as_a_full_rebuild_would(store):
    """The field is recomputed only where a cell's visible scored rows changed (the live runner refreshes after
    every cell): after one model's value changes, the stored field equals one computed from scratch."""
    from services.page_figures import refresh_model_figures

    store.execute("UPDATE aggregates SET value = value + 30, ci_low = ci_low + 30, ci_high = ci_high + 30 "
                  "WHERE model_id = 'Gemma-2B' AND task = 'sentiment' AND prompt_lang = 'en'")
    before = _field(store)
    refresh_model_figures(store, ["Gemma-2B"])
    refreshed = _field(store)
    assert refreshed != before
    assert {k: v for k, v in refreshed.items() if k[1] != "sentiment"} == \
        {k: v for k, v in before.items() if k[1] != "sentiment"}
    store.execute("DELETE FROM cell_field")
    refresh_model_figures(store, list(MODELS))
    assert _field(store) == refreshed


def test_a_hub_merge_leaves_the_figures_to_the_wiring(tmp_path):
    """The V12 tables are derived: a merge never copies another store's figures; the pull's back-fill recomputes
    them from the merged rows."""
    from services.page_figures import backfill_page_figures
    from store import db
    from store.parquet import export_store, import_store
    from tests.helpers.store_fixture import filled_store

    remote = filled_store()  # a reported row, aggregates and runs of three models, one file's own score
    backfill_page_figures(remote)
    assert all(_rows(remote, t) for t in ("reported_normalized", "cell_field", "run_self_reported"))
    export_store(remote, tmp_path / "x")
    local = db.connect(":memory:")
    import_store(local, tmp_path / "x", mode="merge")
    assert not any(_rows(local, t) for t in V12_TABLES)
    backfill_page_figures(local)
    for t in V12_TABLES + V12_VIEWS:
        assert _rows(local, t) == _rows(remote, t), t


def test_deleting_an_upload_takes_its_figures_away(store, tmp_path):
    """A deleted upload's model leaves the field of the cells it emptied, its runs' own-score means go, and so do
    its other per-model figures (usage, drill-down levels), which a refresh of the remaining cells alone kept."""
    from services.ingest import ingest_predictions
    from services.upload import admin_action
    from store import db

    before = _field(store)
    own = [dataclasses.replace(p, self_reported={"acc": 1.0}) for p in predictions("Closed-XL")
           if p.task in ("sentiment", "lindsea-mp") and p.lang in ("th", "id") and p.prompt_lang == "en"]
    ingest_predictions(store, own, model={"model_id": "Own", **MODELS["Closed-XL"]},
                       source={"file": "own.jsonl", "kind": "upload", "hash": "own-1"}, data_dir=DATA_DIR)
    store.execute("INSERT INTO uploads (source_hash, model_id, file_name) VALUES ('own-1', 'Own', 'own.jsonl')")
    assert _field(store)[("Own", "sentiment", "th", "en")][2] == 4  # four models on the cell now
    store.close()
    admin_action(tmp_path / "copy.duckdb", "own-1", "delete")
    con = db.connect(tmp_path / "copy.duckdb")
    try:
        assert _field(con) == before
        assert not _rows(con, "run_self_reported")
        for table in ("model_usage", "drill_levels", "parse_failures", "rollups"):
            assert not con.execute(f"SELECT count(*) FROM {table} WHERE model_id = 'Own'").fetchone()[0], table
    finally:
        con.close()


def test_a_cells_fingerprint_is_the_xor_of_its_rows_the_same_in_every_process_and_an_old_one_is_recomputed(store):
    """`row_hash` is blake2b of the row, not Python's salted hash: pinned here, so a change of it is deliberate (a
    stored fingerprint of another kind, as DuckDB's `hash()` wrote before, only makes the field be recomputed once,
    to the same rows)."""
    from services.page_figures import refresh_model_figures
    from store.page_figures import row_hash, stale_field_cells

    assert row_hash("m", 0.5, None, 0.75) == 8516192914766575720
    assert row_hash("m", 0.5, None, 0.75) ^ row_hash("n", 0.25, 0.1, 0.4) == 1354360486545777300
    assert stale_field_cells(store, list(MODELS)) == []  # every stored fingerprint is current
    field = _field(store)
    store.execute("UPDATE cell_field SET inputs_hash = '12345' WHERE task = 'sentiment'")  # an older kind
    stale = stale_field_cells(store, list(MODELS))
    assert stale and {r[0] for r in stale} == {"sentiment"}
    refresh_model_figures(store, list(MODELS))
    assert stale_field_cells(store, list(MODELS)) == [] and _field(store) == field
