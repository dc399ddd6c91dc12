"""Issue 14: a refresh hands many runs' counts over as one Arrow table, few as list parameters; both store the same
rows, computed_at being the transaction's start."""
from __future__ import annotations

import pytest

from store import db, drilldown


def _columns(n: int) -> list[list]:
    return [[f"run-{i:04d}" for i in range(n)], [50 + i for i in range(n)], [i % 3 for i in range(n)],
            [None if i % 4 == 0 else 1000 * i for i in range(n)], [None if i % 5 == 0 else 2 ** 40 + i for i in range(n)],
            [None if i % 6 == 0 else (float("inf") if i == 7 else 0.125 * i) for i in range(n)],
            [None if i % 6 == 0 else i for i in range(n)]]


@pytest.mark.parametrize("n", [drilldown.ARROW_ROWS - 1, drilldown.ARROW_ROWS, 300])
def test_both_ways_store_the_same_rows(tmp_path, monkeypatch, n):
    stored = {}
    for way, threshold in (("lists", 10 ** 9), ("arrow", 1)):
        monkeypatch.setattr(drilldown, "ARROW_ROWS", threshold)
        con = db.connect(tmp_path / f"{way}-{n}.duckdb")
        with db.transaction(con):
            drilldown._insert_run_counts(con, [list(r) for r in zip(*_columns(n))])
            began = con.execute("SELECT current_timestamp::TIMESTAMP").fetchone()[0]
        rows = con.execute("SELECT * EXCLUDE (computed_at) FROM run_counts ORDER BY run_id").fetchall()
        assert con.execute("SELECT DISTINCT computed_at FROM run_counts").fetchall() == [(began,)]
        stored[way] = rows
        con.close()
    assert stored["lists"] == stored["arrow"]
    assert len(stored["arrow"]) == n and stored["arrow"][7][5] == float("inf")
    assert [tuple(r) for r in stored["arrow"][:2]] == [("run-0000", 50, 0, None, None, None, None),
                                                       ("run-0001", 51, 1, 1000, 2 ** 40 + 1, 0.125, 1)]
