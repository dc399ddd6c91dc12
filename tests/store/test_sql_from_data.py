"""No SQL from data (docs/security.md, "No SQL from data"): a results-repo co-writer controls manifest.json, so every table,
column and partition key it names is checked against the store's schema and quoted. The attacks (a
`COPY (...) TO '<file>'` hidden in a column name, a partition key or a table name) write no file, through
`import_store` (the CLI `import` and the app's Hub pull) and through `store.scale` (TANAW_PARQUET). Row counts and
sizes come from the Parquet footers and are checked before any row is read."""
from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from store import db, parquet, scale
from store.parquet import ParquetStoreError, export_store, import_store
from store.schema import row_counts


def _export(tmp_path) -> Path:
    con = db.connect(":memory:")
    con.execute("INSERT INTO models (model_id, origin) VALUES ('m1', 'uploaded'), ('m2', 'uploaded')")
    con.execute("INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, source) VALUES "
                "('r1', 'm1', 'qa', 'id', 'en', 'upload')")
    con.execute("INSERT INTO predictions (run_id, item_id, output) VALUES ('r1', 'i1', 'x'), ('r1', 'i2', 'y')")
    root = tmp_path / "export"
    export_store(con, root)
    con.close()
    return root


def _tamper(root: Path, table: str, **fields) -> None:
    path = root / "manifest.json"
    manifest = json.loads(path.read_text())
    if "rename" in fields:
        manifest["tables"][fields.pop("rename")] = manifest["tables"].pop(table)
    else:
        manifest["tables"][table].update(fields)
    path.write_text(json.dumps(manifest))


def _copy_to(target: Path) -> str:
    return f"COPY (SELECT 42 AS pwned) TO '{target}' (FORMAT csv); --"


def test_column_name_in_manifest_runs_no_sql(tmp_path):
    root, pwned = _export(tmp_path), tmp_path / "pwned_import.csv"
    _tamper(root, "models", columns=[f"model_id\") SELECT 'x' WHERE false; {_copy_to(pwned)}"])
    con = db.connect(tmp_path / "victim.duckdb")
    before = row_counts(con)
    with pytest.raises(ParquetStoreError, match=r"manifest.json: tables.'models'.columns: .* are not columns"):
        import_store(con, root)
    assert not pwned.exists()
    assert row_counts(con) == before


@pytest.mark.parametrize("mode", ["replace", "merge"])
def test_partition_keys_and_counts_in_manifest_are_checked(tmp_path, mode):
    root = _export(tmp_path)
    _tamper(root, "models", partition_by=[f"model_id'; {_copy_to(tmp_path / 'p.csv')}"])
    con = db.connect(":memory:")
    with pytest.raises(ParquetStoreError, match="partition_by"):
        import_store(con, root, mode=mode)
    _tamper(root, "models", partition_by=["model_id"], rows="2; DROP TABLE runs")
    with pytest.raises(ParquetStoreError, match=r"tables.'models'.rows: must be a row count"):
        import_store(con, root, mode=mode)
    assert not (tmp_path / "p.csv").exists() and "runs" in parquet.tables(con)


def test_unknown_table_in_manifest_is_refused(tmp_path):
    root, pwned = _export(tmp_path), tmp_path / "pwned_table.csv"
    _tamper(root, "models", rename=f'models" AS SELECT 1; {_copy_to(pwned)}')
    with pytest.raises(ParquetStoreError, match="do not exist in this store"):
        import_store(db.connect(":memory:"), root)
    assert not pwned.exists()


def test_footer_row_counts_are_checked_before_reading(tmp_path):
    """A manifest that understates the rows (a file claiming millions) is refused from the footers alone."""
    root = _export(tmp_path)
    _tamper(root, "predictions", rows=1)
    con = db.connect(":memory:")
    with pytest.raises(ParquetStoreError, match="'predictions' has 2 rows in the files' footers, manifest says 1 rows; nothing was read"):
        import_store(con, root)
    assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == 0


def test_import_size_limit_from_the_footers(tmp_path, monkeypatch):
    root = _export(tmp_path)
    monkeypatch.setenv(parquet.MAX_IMPORT_GB_ENV, "0.0000001")  # ~107 bytes
    with pytest.raises(ParquetStoreError, match="uncompressed is over the import limit"):
        import_store(db.connect(":memory:"), root)


def test_honest_export_still_imports(tmp_path):
    root = _export(tmp_path)
    con = db.connect(":memory:")
    done = import_store(con, root)
    assert done["predictions"].rows == 2 and con.execute("SELECT count(*) FROM models").fetchone()[0] == 2


# ---- store.scale: TANAW_PARQUET -----------------------------------------------------------------------------------

def test_scale_partition_key_injection_writes_no_file(tmp_path):
    root, pwned = _export(tmp_path), tmp_path / "pwned_scale.csv"
    _tamper(root, "predictions", partition_by=[f"model_id': VARCHAR}}); {_copy_to(pwned)}"])
    with pytest.raises(ParquetStoreError, match="partition_by"):
        scale.connect_parquet(root)
    assert not pwned.exists()


def test_scale_table_name_injection_writes_no_file(tmp_path):
    root, pwned = _export(tmp_path), tmp_path / "pwned_scale_table.csv"
    _tamper(root, "predictions", rename=f'predictions" AS SELECT 1; {_copy_to(pwned)}')
    with pytest.raises(ParquetStoreError, match="do not exist in this store"):
        scale.connect_parquet(root)
    assert not pwned.exists()


def test_view_sql_accepts_only_schema_names():
    with pytest.raises(ValueError):
        scale.view_sql("/data", 'runs" AS SELECT 1; --')
    with pytest.raises(ValueError):
        scale.view_sql("/data", "runs", ["model_id'; --"])
    sql = scale.view_sql("/d'ata", "predictions")
    assert "'/d''ata/predictions/**/*.parquet'" in sql and sql.startswith('CREATE OR REPLACE VIEW "predictions"')


def test_scale_checks_footers_of_loaded_tables_before_reading(tmp_path):
    root = _export(tmp_path)
    _tamper(root, "models", rows=1)
    with pytest.raises(ParquetStoreError, match="'models' has 2 rows in the files' footers, manifest says 1 rows"):
        scale.connect_parquet(root)


def test_scale_still_serves_an_honest_export(tmp_path):
    con = scale.connect_parquet(_export(tmp_path))
    assert con.execute("SELECT count(*) FROM predictions WHERE model_id = 'm1'").fetchone()[0] == 2
    assert isinstance(con, duckdb.DuckDBPyConnection)
