"""`python -m evaluator export|import`: a store file round-trips through a Parquet folder; bad folders fail with 1."""
from __future__ import annotations

import argparse

from cli import export
from store import db
from store.parquet import checksum, tables
from tests.helpers.store_fixture import filled_store


def _run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    export.add(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_export_then_import_and_merge(tmp_path, capsys):
    src_path = tmp_path / "src.duckdb"
    con = filled_store(str(src_path))
    want = {t: checksum(con, t) for t in tables(con)}
    reported = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("reported", "reported_normalized"))
    con.close()
    assert _run("export", str(tmp_path / "pq"), "--db", str(src_path)) == 0
    assert "predictions" in capsys.readouterr().out
    dst_path = tmp_path / "dst.duckdb"
    assert _run("import", str(tmp_path / "pq"), "--db", str(dst_path)) == 0
    # the public tables' rows (not the ingest log's): 67 results of the filled store and its reported rows (one
    # fixture row, or the papers' rows once `services` has registered its store-open hook in this process)
    assert f"imported {67 + reported} rows" in capsys.readouterr().out
    dst = db.connect(dst_path)
    assert {t: checksum(dst, t) for t in tables(dst)} == want
    dst.execute("INSERT INTO models (model_id, origin) VALUES ('only-here', 'demo')")
    dst.close()
    assert _run("import", str(tmp_path / "pq"), "--db", str(dst_path), "--merge") == 0
    dst = db.connect(dst_path)
    assert dst.execute("SELECT count(*) FROM models").fetchone()[0] == 4


def test_usage_and_bad_folder(tmp_path, capsys):
    assert _run("export", "--db", str(tmp_path / "x.duckdb")) == 2
    assert "either DIR or --hub" in capsys.readouterr().err
    assert _run("import", str(tmp_path), "--db", str(tmp_path / "x.duckdb")) == 1
    assert "no manifest" in capsys.readouterr().err
