"""Queries a page reads at the same time (`store.queries.run_many`, `store.cached.q_many`) give the frames they give
one by one, in the order asked; a failing one raises; Compare's answer list read with the run cards' frame
(`compare_runs`, which carries each run's write window) is the list it reads by itself."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from store.queries import QUERIES, run_many
from store.queries.compare import _system_runs, _windows, compare_outputs
from tests.helpers.fixtures_store import fixture_db

CELL = {"task": "lindsea-mp", "lang": "id", "systems": ("Gemma-2B|en", "SeaLion-9B-it|native")}


@pytest.fixture()
def con():
    con = duckdb.connect(str(fixture_db()), read_only=True)
    yield con
    con.close()


def test_frames_at_once_equal_frames_one_by_one(con):
    calls = [("compare_items", {**CELL, "metric": "accuracy"}), ("compare_runs", CELL),
             ("compare_pair_tests", {**CELL, "metric": "accuracy"}),
             ("lindsea_cells", {"model": "Gemma-2B", "lang": "id"})]
    at_once = run_many(con, calls)
    assert len(at_once) == len(calls)
    assert not at_once[0].empty and not at_once[1].empty
    for (name, params), frame in zip(calls, at_once):
        pd.testing.assert_frame_equal(frame, QUERIES[name](con.cursor(), **params))


def test_one_failing_query_raises(con):
    with pytest.raises(ValueError, match="choose 1-4 systems"):
        run_many(con, [("compare_runs", CELL), ("compare_items", {**CELL, "systems": (), "metric": "accuracy"})])


def test_answers_read_with_the_run_cards_frame_equal_answers_read_alone(con):
    item_id = con.execute("SELECT min(item_id) FROM item_outcomes WHERE task = 'lindsea-mp' AND lang = 'id'"
                          ).fetchone()[0]
    runs = QUERIES["compare_runs"](con.cursor(), **CELL)
    assert runs["written_until"].notna().all()  # every fixture run has its counts: a bounded window
    assert _windows(runs) == _system_runs(con, CELL["task"], CELL["lang"], CELL["systems"])  # to the microsecond
    alone = compare_outputs(con, **CELL, item_id=item_id, metric="accuracy")
    assert len(alone) == 4  # two systems, both option orders
    pd.testing.assert_frame_equal(compare_outputs(con, **CELL, item_id=item_id, metric="accuracy", runs=runs), alone)
    unknown = runs.assign(written_until=pd.NaT)  # counts missing: the window is open at its end, same rows
    pd.testing.assert_frame_equal(compare_outputs(con, **CELL, item_id=item_id, metric="accuracy", runs=unknown),
                                  alone)
