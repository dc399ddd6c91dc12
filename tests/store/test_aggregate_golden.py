"""The batched ingest and vectorised recompute store exactly the numbers the per-row algorithm stored.

The store is built from the public samples by `tests.helpers.aggregate_golden.build` (real lm-eval and pacute-bench result
files, generated native files with several runs, both option orders and a run added by a second upload, then every
cell recomputed from the stored rows); every aggregate, roll-up and rank must equal the values recorded with the
earlier per-row algorithm (tests/data/aggregates_golden.json).
"""
from __future__ import annotations

import json

import pytest

from tests.helpers.aggregate_golden import GOLDEN, build

pytestmark = pytest.mark.needs_samples


def _rows(snap: dict, table: str) -> dict[tuple, dict]:
    cols, *rows = snap[table]
    width = 5 if table == "aggregates" else 6
    return {tuple(r[:width]): dict(zip(cols, r)) for r in rows}


def test_every_stored_aggregate_rollup_and_rank_is_unchanged(tmp_path, shared_data):
    golden = json.loads(GOLDEN.read_text())
    now = build(shared_data, tmp_path / "store.duckdb")
    for table in ("aggregates", "rollups"):
        assert now[table][0] == golden[table][0], f"{table}: columns changed"
        want, got = _rows(golden, table), _rows(now, table)
        assert sorted(got) == sorted(want), f"{table}: different rows"
        for key, row in want.items():
            for col, value in row.items():
                assert got[key][col] == value, (table, key, col)  # exactly: the same floats, not close ones
    assert len(golden["aggregates"]) > 200 and any(r[golden["aggregates"][0].index("n_runs")] == 3
                                                    for r in golden["aggregates"][1:])
