"""A live run refreshes a cell beside the commit of its last answers: the refresh commits only after them, stores
what a recompute from the stored rows gives, and keeps nothing when their commit fails."""
from __future__ import annotations

import asyncio

import pytest

from evaluator.clients import ModelClient
from evaluator.run import run
from evaluator.runspec import RunSpec
from services.ingest import refresh_aggregates
from services.live import StoreSink
from tests.helpers.standin_server import StandinServer

CELLS = [("sentiment", "id", "en"), ("sentiment", "th", "en")]
SPEC = dict(tasks="sentiment", langs="id,th", prompt_langs=("en",), limit=6, runs=2, concurrency=3)
GROUP = 4
"""Answers per group at most: a cell's 12 answers take at least three commits, so its runs' rows are committed before
the group that finishes it, however a loaded machine groups them (the early refresh needs that)."""
DERIVED = ("aggregates", "rollups", "drill_cells", "drill_nodes", "item_outcomes", "run_counts", "failed_flags",
           "model_usage", "drill_levels", "pair_tests", "cell_field", "parse_failures")


def _derived(con) -> dict:
    """Every derived table's rows, without times and the store's cell numbering."""
    out = {}
    for table in DERIVED:
        cols = [c for c, t in con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                          "WHERE table_name = ?", [table]).fetchall()
                if "TIMESTAMP" not in t and c not in ("cell_no", "cell_a", "cell_b")]
        out[table] = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL").fetchall()
    return out


def _run(sink):
    async def main(url):
        async with ModelClient(url, "standin", concurrency=SPEC["concurrency"]) as client:
            return await run(client, sink, RunSpec(**SPEC), progress=False, group=GROUP)

    with StandinServer(latency=0.02) as server:
        return asyncio.run(main(server.base_url))


class Recording(StoreSink):
    """Records which refreshes ran beside the commit of their cells' last answers, and what was stored then."""

    def __init__(self, con):
        super().__init__(con, "m")
        self.refreshes: list[tuple[list, bool]] = []

    def refresh(self, cells, answers_saved=None):
        self.refreshes.append(([c.lang for c in cells], answers_saved is not None))
        return super().refresh(cells, answers_saved)


def test_each_cell_is_refreshed_beside_its_last_commit_with_the_numbers_a_recompute_gives(mem_store):
    sink = Recording(mem_store)
    statuses = _run(sink)
    assert sink.refreshes == [(["id"], True), (["th"], True)]
    assert all(s.score is not None and s.asked == 6 for s in statuses)
    assert mem_store.execute("SELECT count(*) FROM predictions").fetchone()[0] == 24
    live = _derived(mem_store)
    assert all(live[t] for t in ("aggregates", "rollups", "item_outcomes", "model_usage", "run_counts"))
    assert mem_store.execute("SELECT sum(requests) FROM model_usage WHERE family = ''").fetchone()[0] == 24
    refresh_aggregates(mem_store, "m", CELLS)
    assert _derived(mem_store) == live  # usage too: it was refreshed after the last answers were committed


def test_a_failed_commit_of_the_last_answers_leaves_the_cells_refresh_unstored(mem_store):
    class FailingLast(Recording):
        saving = staged_early = False

        def stage(self, rows):  # also called by save_many itself, after its commit
            super().stage(rows)
            self.staged_early = self.staged_early or not self.saving

        def save_many(self, rows):
            if self.staged_early:  # the group that finishes the first cell, staged before its commit
                raise OSError("disk full")
            self.saving = True
            try:
                super().save_many(rows)
            finally:
                self.saving = False

    sink = FailingLast(mem_store)
    with pytest.raises(OSError, match="disk full"):
        _run(sink)
    assert sink.refreshes == [(["id"], True)]
    assert mem_store.execute("SELECT count(*) FROM aggregates").fetchone()[0] == 0  # rolled back with its answers
    assert mem_store.execute("SELECT count(*) FROM item_outcomes").fetchone()[0] == 0
