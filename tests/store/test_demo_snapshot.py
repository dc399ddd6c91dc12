"""The demo store's Parquet snapshot (data/demo/store) equals a fresh build, and a first start loads it.

A stale snapshot (a metric, a loader or a demo file changed) fails here: regenerate it with
`python -m services.demo --snapshot`.
"""
from __future__ import annotations

import shutil

import pytest

from services.demo import DEMO_DIR, SNAPSHOT_DIR, build_default_db, ensure_default_db, load_snapshot
from services.ingest import sync_registry
from store.db import connect, transaction

pytestmark = pytest.mark.skipif(not (SNAPSHOT_DIR / "manifest.json").is_file(), reason="no demo snapshot")
VOLATILE = {"created_at", "computed_at", "applied_at", "happened_at"}
"""Timestamps of when a row was written, the only columns a rebuild changes."""


def _frame(con, table):
    cols = [c for (c,) in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
        [table]).fetchall() if c not in VOLATILE]
    df = con.execute(f'SELECT {", ".join(cols)} FROM "{table}"').df()
    return df.astype(str).sort_values(cols).reset_index(drop=True)


@pytest.fixture(scope="module")
def fresh():
    con = connect(":memory:")
    with transaction(con):
        sync_registry(con)
    build_default_db(con)
    yield con
    con.close()


def test_the_snapshot_equals_a_fresh_build(fresh):
    loaded = connect(":memory:")
    assert load_snapshot(loaded)
    tables = [t for (t,) in loaded.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()]
    for table in tables:
        if table in ("schema_version", "tasks", "metrics"):
            continue
        a, b = _frame(fresh, table), _frame(loaded, table)
        assert len(a) == len(b), f"{table}: {len(a)} rows built, {len(b)} in the snapshot (regenerate it)"
        assert a.equals(b), f"{table} differs from a fresh build: python -m services.demo --snapshot"


def test_a_first_start_loads_the_snapshot_and_refuses_a_stale_one(tmp_path):
    con = connect(":memory:")
    assert ensure_default_db(con)
    n_models = con.execute("SELECT count(*) FROM models WHERE origin = 'demo'").fetchone()[0]
    assert n_models == 3 and not ensure_default_db(con)  # a filled store is left alone

    demo = tmp_path / "demo"
    shutil.copytree(DEMO_DIR, demo)
    (demo / "bhasa" / "sentiment" / "id.jsonl").write_text(
        '{"id": "demo-x", "text": "Bagus.", "label": "positive", "label_en": "positive"}\n', encoding="utf-8")
    assert not load_snapshot(connect(":memory:"), demo / "store", demo)  # other demo files: rebuild instead
