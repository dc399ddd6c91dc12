"""Queries a page reads at the same time (`store.queries.run_many`, `pages._cached.q_many`) give the frames they give
one by one, in the order asked; a failing one raises; Compare's answer list read with the run cards' frame
(`compare_runs`, which carries each run's write window and cell number) is the list it reads by itself, and both are
the answers and scores stored for the item."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from store.queries import QUERIES, run_many
from store.queries.compare import _system_runs, compare_outputs
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


def _stored_answers(con, item_id: str, metric: str, cell: dict = CELL) -> list[tuple]:
    """(label, model_id, prompt_lang, run_no, ord, output, score, right) of the item's answers, from the base
    tables (runs, predictions, scores) joined the plain way."""
    binary = con.execute("SELECT is_binary FROM metrics WHERE metric = ?", [metric]).fetchone()[0]
    rows = []
    for label, system in zip("ABCD", cell["systems"]):
        model, prompt_lang = system.split("|")
        for run_no, ord_, output, value in con.execute("""
                SELECT r.run_no, p.ord, p.output, s.value FROM runs r JOIN predictions p ON p.run_id = r.run_id
                LEFT JOIN scores s ON s.run_id = p.run_id AND s.item_id = p.item_id AND s.ord = p.ord
                                  AND s.metric = ?
                WHERE r.model_id = ? AND r.prompt_lang = ? AND r.task = ? AND r.lang = ? AND NOT r.superseded
                  AND p.item_id = ?""", [metric, model, prompt_lang, cell["task"], cell["lang"], item_id]).fetchall():
            rows.append((label, model, prompt_lang, run_no, ord_, output, value,
                         (value >= 1) if binary and value is not None else None))
    return sorted(rows)


def _shown(frame: pd.DataFrame) -> list[tuple]:
    return sorted((r.label, r.model_id, r.prompt_lang, r.run_no, r.ord, r.output, r.score,
                   None if pd.isna(r.right) else bool(r.right)) for r in frame.itertuples())


def test_answers_read_with_the_run_cards_frame_equal_answers_read_alone(con):
    item_id = con.execute("SELECT min(item_id) FROM item_outcomes WHERE task = 'lindsea-mp' AND lang = 'id'"
                          ).fetchone()[0]
    runs = QUERIES["compare_runs"](con.cursor(), **CELL)
    assert runs["written_until"].notna().all()  # every fixture run has its counts: a bounded window
    assert runs["cell_no"].notna().all()  # and its cell's number
    assert sorted((r.run_id, r.created_at.to_pydatetime(), r.written_until.to_pydatetime())
                  for r in runs.itertuples()) == _system_runs(con, CELL["task"], CELL["lang"], CELL["systems"])
    alone = compare_outputs(con, **CELL, item_id=item_id, metric="accuracy")
    assert len(alone) == 4  # two systems, both option orders
    assert _shown(alone) == _stored_answers(con, item_id, "accuracy")
    assert alone["label"].tolist() == sorted(alone["label"])  # A's answers first
    pd.testing.assert_frame_equal(compare_outputs(con, **CELL, item_id=item_id, metric="accuracy", runs=runs), alone)
    unknown = runs.assign(written_until=pd.NaT)  # counts missing: the window is open at its end, same rows
    pd.testing.assert_frame_equal(compare_outputs(con, **CELL, item_id=item_id, metric="accuracy", runs=unknown),
                                  alone)


def test_answers_with_stale_cell_numbers_without_a_run_and_other_metrics(con):
    item_id = con.execute("SELECT min(item_id) FROM item_outcomes WHERE task = 'lindsea-mp' AND lang = 'id'"
                          ).fetchone()[0]
    runs = QUERIES["compare_runs"](con.cursor(), **CELL)
    alone = compare_outputs(con, **CELL, item_id=item_id, metric="accuracy")
    # numbers read before a later write (re)numbered the cells, or numbers of other cells: read again
    for stale in (runs.assign(cell_no=None), runs.assign(cell_no=runs["cell_no"] + 10 ** 6),
                  runs.assign(cell_no=runs["cell_no"].iloc[::-1].values), runs.assign(cell_no=runs["cell_no"].min())):
        pd.testing.assert_frame_equal(compare_outputs(con, **CELL, item_id=item_id, metric="accuracy", runs=stale),
                                      alone)
    first = CELL["systems"][0]
    only_a = compare_outputs(con, **CELL, item_id=item_id, metric="accuracy", runs=runs[runs["system"] == first])
    assert set(only_a["label"]) == {"A"} and len(only_a) == 2
    none = compare_outputs(con, **CELL, item_id=item_id, metric="accuracy", runs=runs.iloc[:0])
    assert none.empty and list(none.columns) == list(alone.columns)
    metrics = [m for (m,) in con.execute("SELECT DISTINCT metric FROM item_outcomes WHERE task = ? AND lang = ? "
                                         "AND item_id = ?", [CELL["task"], CELL["lang"], item_id]).fetchall()]
    for metric in metrics:
        assert _shown(compare_outputs(con, **CELL, item_id=item_id, metric=metric)) == _stored_answers(
            con, item_id, metric)


def test_a_metric_that_is_not_right_or_wrong_has_no_right(con):
    task, lang = con.execute("SELECT task, lang FROM item_outcomes WHERE metric = 'mcq_norm_acc' LIMIT 1").fetchone()
    systems = tuple(QUERIES["compare_systems"](con.cursor(), task=task, lang=lang)["system"][:2])
    cell = {"task": task, "lang": lang, "systems": systems}
    item_id = con.execute("SELECT min(item_id) FROM item_outcomes WHERE task = ? AND lang = ?", [task, lang]
                          ).fetchone()[0]
    for metric, binary in (("mcq_norm_acc", False), ("mcq_acc", True)):
        shown = compare_outputs(con, **cell, item_id=item_id, metric=metric)
        assert not shown.empty and _shown(shown) == _stored_answers(con, item_id, metric, cell)
        assert shown["right"].notna().all() == binary and shown["score"].notna().all()


def test_answers_of_a_cell_not_pre_aggregated_have_no_score(tmp_path):
    import shutil

    path = tmp_path / "no-cells.duckdb"
    shutil.copy(fixture_db(), path)
    con = duckdb.connect(str(path))
    item_id = con.execute("SELECT min(item_id) FROM item_outcomes WHERE task = 'lindsea-mp' AND lang = 'id'"
                          ).fetchone()[0]
    con.execute("DELETE FROM drill_cells")
    shown = compare_outputs(con, **CELL, item_id=item_id, metric="accuracy")
    assert len(shown) == 4 and shown["score"].isna().all() and shown["right"].isna().all()
    con.close()


def test_one_system_chosen_twice_has_its_answers_under_both_labels(con):
    item_id = con.execute("SELECT min(item_id) FROM item_outcomes WHERE task = 'lindsea-mp' AND lang = 'id'"
                          ).fetchone()[0]
    first = CELL["systems"][0]
    twice = {**CELL, "systems": (first, first)}
    shown = compare_outputs(con, **twice, item_id=item_id, metric="accuracy")
    once = compare_outputs(con, **{**CELL, "systems": (first,)}, item_id=item_id, metric="accuracy")
    assert list(shown["label"]) == ["A"] * len(once) + ["B"] * len(once)
    for label in "AB":
        got = shown[shown["label"] == label].drop(columns="label").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, once.drop(columns="label"))
