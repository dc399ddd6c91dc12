"""Querying the Parquet export directly (store.scale): the pages' queries give the same frames as on the DuckDB
file, filters on model/task skip partitions, and remote roots are wired through httpfs."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from store import db, scale
from store.parquet import export_store
from store.queries import QUERIES
from tests.helpers.fixtures_store import MODELS, fixture_db

CALLS = [
    ("leaderboard_cells", {"prompt_lang": "en"}),
    ("leaderboard_table", {"prompt_lang": "native"}),
    ("leaderboard_families", {}),
    ("explore_models", {}),
    ("model_cells", {"model": "SeaLion-9B-it"}),
    ("lindsea_cells", {"model": "Gemma-2B", "lang": "id"}),
    ("submission_counts", {}),
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("parquet") / "store"
    con = duckdb.connect(str(fixture_db()), read_only=True)
    export_store(con, root)
    yield con, root
    con.close()


@pytest.mark.parametrize("name, params", CALLS, ids=[c[0] for c in CALLS])
def test_same_answers_as_the_duckdb_file(exported, name, params):
    file_con, root = exported
    pq = scale.connect_parquet(root)
    want = QUERIES[name](file_con, **params)
    got = QUERIES[name](pq, **params)
    assert len(want) > 0 or name == "submission_counts"
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False)


def test_views_replace_tables_and_prune_partitions(exported):
    file_con, root = exported
    pq = scale.connect_parquet(root)
    kinds = dict(pq.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
    assert kinds["predictions"] == "VIEW" and kinds["scores"] == "VIEW"
    assert kinds["aggregates"] == "BASE TABLE"  # small tables are loaded into memory
    assert pq.execute("SELECT count(*) FROM aggregates").fetchone() == file_con.execute(
        "SELECT count(*) FROM aggregates").fetchone()
    assert kinds["submissions"] == "BASE TABLE"  # empty in the export: the schema's empty table stands in
    all_views = scale.connect_parquet(root, views=None)
    assert all_views.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'aggregates'"
                             ).fetchone() == ("VIEW",)
    pd.testing.assert_frame_equal(QUERIES["leaderboard_table"](all_views, prompt_lang="en"),
                                  QUERIES["leaderboard_table"](file_con, prompt_lang="en"), check_dtype=False)
    n_file = file_con.execute("SELECT count(*) FROM predictions p JOIN runs r USING (run_id) "
                              "WHERE r.model_id = 'Gemma-2B'").fetchone()[0]
    assert pq.execute("SELECT count(*) FROM predictions WHERE model_id = 'Gemma-2B'").fetchone()[0] == n_file > 0
    plan = pq.execute("EXPLAIN ANALYZE SELECT max(output) FROM predictions WHERE model_id = 'Gemma-2B'").fetchall()
    text = "\n".join(str(r[-1]) for r in plan)
    n_files = len(list((root / "predictions").rglob("*.parquet")))
    n_gemma = len(list((root / "predictions" / "model_id=Gemma-2B").rglob("*.parquet")))
    assert n_files == len(MODELS) * n_gemma and f"Scanning Files: {n_gemma}/{n_files}" in text


def test_remote_roots():
    sql = scale.view_sql("hf://datasets/tanaw/results", "runs")
    assert "read_parquet('hf://datasets/tanaw/results/runs/**/*.parquet', hive_partitioning = true" in sql
    assert scale.is_remote("s3://bucket/tanaw") and not scale.is_remote("/data/tanaw")
    con = db.connect(":memory:")
    try:
        con.execute("LOAD httpfs")
    except duckdb.Error:
        with pytest.raises(scale.ScaleError, match="httpfs"):  # no network here: a clear error, not a crash
            scale.attach_parquet(con, "hf://datasets/tanaw/results")
