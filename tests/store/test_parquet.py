"""Parquet export/import of the whole store: identical round trip, partition layout, determinism, fail-closed."""
from __future__ import annotations

import json

import duckdb
import pytest

from store import db
from store.parquet import ParquetStoreError, checksum, export_store, import_store, tables
from store.schema import PUBLIC_TABLES, row_counts
from tests.helpers.store_fixture import filled_store


def _public_counts(con) -> dict[str, int]:
    return {t: n for t, n in row_counts(con).items() if t in PUBLIC_TABLES}


def _snapshot(con) -> dict[str, tuple[int, str]]:
    return {t: checksum(con, t) for t in tables(con)}


def test_round_trip_every_table_identical(tmp_path):
    src = filled_store()
    written = export_store(src, tmp_path / "export")
    dst = db.connect(tmp_path / "copy.duckdb")
    imported = import_store(dst, tmp_path / "export")

    assert set(written) == set(tables(src)) == set(imported)
    assert _public_counts(dst) == _public_counts(src)
    assert row_counts(src)["ingests"] == 1 and row_counts(dst)["ingests"] == 0  # private: never exported
    assert row_counts(src)["predictions"] == 3 * (4 + 3) == row_counts(src)["scores"]
    assert _snapshot(dst) == _snapshot(src)
    for t in tables(src):  # the checksum is not the only witness: the rows match as multisets
        rows_src = sorted(map(repr, src.execute(f'SELECT * FROM "{t}"').fetchall()))
        rows_dst = sorted(map(repr, dst.execute(f'SELECT * FROM "{t}"').fetchall()))
        assert rows_src == rows_dst, t


def test_partitioned_by_model_and_task(tmp_path):
    con = filled_store()
    con.execute("CREATE TABLE notes (k VARCHAR)")
    con.execute("INSERT INTO notes VALUES ('one file')")
    export_store(con, tmp_path / "x")
    root = tmp_path / "x"
    assert (root / "runs" / "model_id=meta%2Fllama%203" / "data_0.parquet").is_file()
    assert (root / "models" / "model_id=org%2Fm%3D2").is_dir()
    assert (root / "items" / "task=qa").is_dir()
    pred = root / "predictions" / "model_id=sea-lion" / "task=qa"
    files = list(pred.glob("*.parquet"))
    assert len(files) == 1
    con = duckdb.connect()
    cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{files[0]}', hive_partitioning = false)").fetchall()]
    assert "model_id" not in cols and cols[:3] == ["run_id", "item_id", "ord"]  # derived keys are not stored
    assert con.execute(f"SELECT count(*) FROM read_parquet('{files[0]}')").fetchone()[0] == 3
    assert (root / "aggregates" / "model_id=org%2Fm%3D2").is_dir()
    assert not (root / "ingests").exists() and not (root / "notes").exists()  # private, or listed nowhere
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["tables"]["predictions"]["rows"] == 21
    assert manifest["tables"]["predictions"]["partition_by"] == ["model_id", "task"]


def test_export_is_byte_deterministic(tmp_path):
    con = filled_store()
    export_store(con, tmp_path / "a")
    export_store(con, tmp_path / "b")
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a == b and len(a) > 20


def test_reexport_replaces_folder(tmp_path):
    con = filled_store()
    export_store(con, tmp_path / "x")
    con.execute("DELETE FROM models WHERE model_id = 'sea-lion'")
    export_store(con, tmp_path / "x")
    assert not (tmp_path / "x" / "models" / "model_id=sea-lion").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["x"]  # no temporary folders left behind


def test_checksum_mismatch_rolls_back(tmp_path):
    export_store(filled_store(), tmp_path / "x")
    manifest_path = tmp_path / "x" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["tables"]["scores"]["checksum"] = "12345"
    manifest_path.write_text(json.dumps(manifest))
    dst = db.connect(":memory:")
    dst.execute("INSERT INTO models (model_id, origin) VALUES ('keep-me', 'demo')")
    with pytest.raises(ParquetStoreError, match="'scores'.*manifest says .* checksum 12345"):
        import_store(dst, tmp_path / "x")
    assert dst.execute("SELECT model_id FROM models").fetchall() == [("keep-me",)]
    assert row_counts(dst)["runs"] == 0


def test_missing_manifest_and_unknown_table(tmp_path):
    with pytest.raises(ParquetStoreError, match="no manifest"):
        import_store(db.connect(":memory:"), tmp_path)
    export_store(filled_store(), tmp_path / "x")
    manifest_path = tmp_path / "x" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["tables"]["from_the_future"] = {"rows": 0, "checksum": "0"}
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ParquetStoreError, match="from_the_future"):
        import_store(db.connect(":memory:"), tmp_path / "x")


def test_empty_store_round_trip(tmp_path):
    export_store(db.connect(":memory:"), tmp_path / "e")
    dst = filled_store()
    import_store(dst, tmp_path / "e")
    assert set(_public_counts(dst).values()) == {0}
    assert row_counts(dst)["ingests"] == 1  # an import never touches a private table


def test_merge_adds_missing_rows_and_keeps_local_ones(tmp_path):
    remote = filled_store()
    remote.execute("INSERT INTO submissions (request_id, model_id, backend, status) VALUES "
                   "('r1', 'a', 'openai', 'FINISHED'), ('r2', 'b', 'openai', 'PENDING')")
    export_store(remote, tmp_path / "x")
    local = db.connect(":memory:")
    local.execute("INSERT INTO models (model_id, origin, family) VALUES ('sea-lion', 'demo', 'local family')")
    local.execute("INSERT INTO submissions (request_id, model_id, backend, status) VALUES "
                  "('r1', 'a', 'openai', 'RUNNING'), ('r2', 'b', 'openai', 'RUNNING'), ('r3', 'c', 'hub', 'PENDING')")
    local.execute("INSERT INTO reported (source, task, value) VALUES ('bhasa', 'qa', 71.2)")
    import_store(local, tmp_path / "x", mode="merge")
    assert local.execute("SELECT family FROM models WHERE model_id = 'sea-lion'").fetchone() == ("local family",)
    assert local.execute("SELECT count(*) FROM models").fetchone()[0] == 3
    assert local.execute("SELECT request_id, status FROM submissions ORDER BY 1").fetchall() == [
        ("r1", "RUNNING"), ("r2", "RUNNING"), ("r3", "PENDING")]  # the queue is private: never exported or merged
    assert row_counts(local)["predictions"] == 21
    assert row_counts(local)["reported"] == 3  # rows without a key: added unless already present


def test_merge_leaves_derived_tables_to_the_wiring(tmp_path):
    """Per-model figures derived from runs (usage V10, drill-down levels V11) are never merged from another store: the
    wiring recomputes them from the merged rows (services.hub_sync.rollup_all)."""
    remote = filled_store()
    remote.execute("INSERT INTO model_usage (model_id, prompt_lang, family, requests) VALUES ('a', 'en', '', 999)")
    remote.execute("INSERT INTO drill_levels (model_id, lang, prompt_lang, scope, metric, depth, n, correct) "
                   "VALUES ('a', 'id', 'en', 'lindsea', '', 0, 10, 9.0)")
    export_store(remote, tmp_path / "x")
    local = db.connect(":memory:")
    import_store(local, tmp_path / "x", mode="merge")
    assert row_counts(local)["predictions"] == 21
    assert row_counts(local)["model_usage"] == 0 and row_counts(local)["drill_levels"] == 0
