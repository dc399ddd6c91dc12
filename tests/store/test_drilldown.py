"""Drill-down pre-aggregates (schema V7): the pages read them, and their numbers are the evaluator's.

The LINDSEA phenomenon and category bars (AppTest) equal `evaluator.aggregate.aggregate_cell` run on each node's items; the
Compare page's per-item scores equal the item means of the evaluator's own scores; the Model page's parse failures
equal a count of the answers. A store written before V7 gets the same rows back from `backfill_drilldowns`, and a
hand-made cell gives the hand-computed outcomes.
"""
from __future__ import annotations

import shutil
from collections import defaultdict

import duckdb
import pytest

from evaluator.aggregate import aggregate_cell
from evaluator.datasets import load_items
from evaluator.drilldown import cell_drilldown
from evaluator.registry import TASKS
from evaluator.scoring import score_prediction
from evaluator.spec import Item, ItemResult, Prediction
from tests.helpers.fixtures_store import cell_pairs, DATA_DIR, app_test, fixture_db, pages_on, predictions

DRILL_TABLES = ("drill_cells", "drill_nodes", "item_outcomes", "run_counts")


@pytest.fixture(scope="module")
def db():
    with pages_on(fixture_db()) as path:
        yield path


pairs = cell_pairs


def _bars(model: str, **level) -> "object":
    at = app_test("lindsea", model=model, lang="id", prompt="en", branch="syntax", **level)
    assert not at.exception
    key = "category" if level else "phenomenon"
    return next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["branch", "phenomenon"]
                and key in d.value.columns and "prompt_lang" in d.value.columns), key


@pytest.mark.parametrize("model", ["SeaLion-9B-it", "Gemma-2B"])
def test_lindsea_bars_are_aggregate_cell_on_their_items(db, model):
    checked = 0
    for level in ({}, {"phenomenon": "morphology"}):
        bars, key = _bars(model, **level)
        bars = bars.set_index([key, "prompt_lang"])
        for prompt_lang in ("en", "native"):
            by_node = defaultdict(list)
            for item, res in pairs(model, "lindsea-mp", "id", prompt_lang):
                if item.metadata["phenomenon"] == level.get("phenomenon", item.metadata["phenomenon"]):
                    by_node[item.metadata[key]].append((item, res))
            for node, node_pairs in by_node.items():
                want = next(c for c in aggregate_cell(TASKS["lindsea-mp"], "id", node_pairs) if c.metric == "accuracy")
                got = bars.loc[(node, prompt_lang)]
                assert got["n"] == want.n
                assert (got["value"], got["ci_low"], got["ci_high"]) == pytest.approx(
                    (want.value, want.ci_low, want.ci_high))
                checked += 1
    assert checked >= 4


def test_compare_scores_are_the_item_means_of_the_evaluators_scores(db):
    from pages._cached import connection
    from store.queries import QUERIES

    systems = ("SeaLion-9B-it|en", "Gemma-2B|native")
    got = QUERIES["compare_items"](connection().cursor(), task="lindsea-mp", lang="id", systems=systems,
                                   metric="accuracy").set_index("item_id")
    for label, system in zip("AB", systems):
        model, prompt_lang = system.split("|")
        per_item = defaultdict(list)
        for item, res in pairs(model, "lindsea-mp", "id", prompt_lang):
            per_item[item.item_id].append(res.scores["accuracy"])
        assert set(got.index) <= set(per_item) and len(got) == len(per_item)
        for item_id, values in per_item.items():
            assert got.loc[item_id, f"score_{label}"] == pytest.approx(sum(values) / len(values))
            assert bool(got.loc[item_id, f"right_{label}"]) == all(v >= 1 for v in values)


def test_model_parse_failures_count_the_answers(db):
    at = app_test("model", model="Gemma-2B")
    assert not at.exception
    fails = next(d.value for d in at.dataframe if "fail_pct" in d.value.columns).set_index(["lang", "prompt_lang"])
    answers = [p for p in predictions("Gemma-2B") if not p.task.startswith("cultural-")]
    for (lang, prompt_lang), row in fails.iterrows():
        mine = [p for p in answers if (p.lang, p.prompt_lang) == (lang, prompt_lang)]
        unparsed = 0
        for p in mine:
            item = next(i for i in load_items(p.task, p.lang, data_dir=DATA_DIR) if i.item_id == p.item_id)
            unparsed += not score_prediction(TASKS[p.task], item, p).parsed
        assert (row["answers"], row["unparsed"]) == (len(mine), unparsed)
    assert fails["unparsed"].sum() > 0


def _rows(con, table):
    cols = [c for (c,) in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
        [table]).fetchall() if c not in ("cell_no", "computed_at")]
    return sorted(map(str, con.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()))


def test_a_store_written_before_the_pre_aggregates_gets_them_back(tmp_path):
    from services.drilldown import backfill_drilldowns

    path = tmp_path / "old.duckdb"
    shutil.copy(fixture_db(), path)
    con = duckdb.connect(str(path))
    want = {t: _rows(con, t) for t in DRILL_TABLES}
    aggregates = con.execute("SELECT * FROM aggregates ORDER BY ALL").fetchall()
    for table in DRILL_TABLES:
        con.execute(f"DELETE FROM {table}")
    assert backfill_drilldowns(con) == len(con.execute(
        "SELECT DISTINCT model_id, task, lang, prompt_lang FROM runs").fetchall())
    assert {t: _rows(con, t) for t in DRILL_TABLES} == want
    assert con.execute("SELECT * FROM aggregates ORDER BY ALL").fetchall() == aggregates  # untouched
    assert backfill_drilldowns(con) == 0


def _pair(item: Item, order: str, run: int, value: float, parsed: bool = True) -> tuple[Item, ItemResult]:
    pred = Prediction(item.task, item.lang, item.item_id, "en", "A", run=run, order=order)
    return item, ItemResult(pred, "A" if parsed else None, parsed, None, {"accuracy": value})


def test_a_hand_made_cell():
    a = Item("lindsea-mp", "id", "a", {}, "A", metadata={"phenomenon": "morphology", "category": "affix"},
             warnings=("typo",))
    b = Item("lindsea-mp", "id", "b", {}, "A", metadata={"phenomenon": "morphology", "category": "affix"})
    drill = cell_drilldown([_pair(a, "ab", 1, 1.0), _pair(a, "ba", 1, 0.0), _pair(a, "ab", 2, 1.0),
                            _pair(b, "ab", 1, 1.0), _pair(b, "ba", 1, 1.0, parsed=False)])
    first = {o["item_id"]: o for o in drill.outcomes()}
    assert first["a"]["answers"] == [{"run_no": 1, "ord": "ab", "value": 1.0}, {"run_no": 1, "ord": "ba", "value": 0.0},
                                     {"run_no": 2, "ord": "ab", "value": 1.0}]
    assert first["a"]["value"] == pytest.approx(2 / 3)
    assert (first["a"]["right_ab"], first["a"]["right_ba"], first["a"]["right_all"]) == (True, False, False)
    assert (first["b"]["value"], first["b"]["right_all"], first["b"]["parsed"]) == (1.0, True, False)
    assert drill.nodes == [{"metric": "accuracy", "phenomenon": "morphology", "category": "affix",
                            "subcategory": None, "level": None, "n": 2, "correct": pytest.approx(5 / 3),
                            "wrong": 1}]
    assert drill.runs == {1: (4, 1), 2: (1, 0)} and (drill.n_answers, drill.n_unparsed, drill.n_items) == (5, 1, 2)


def test_failed_flags_are_the_flags_of_items_wrong_on_a_binary_metric(tmp_path):
    """The view lists, per cell, each flag of an item some answer got wrong on a 0/1 metric: item a (flagged,
    wrong once) is listed under both flags; b (flagged, always right) and c (wrong, unflagged) are not, nor a's
    wrong answers on a graded metric."""
    from store.db import connect
    from store.drilldown import save_drilldown

    con = connect(tmp_path / "store.duckdb")
    con.execute("DELETE FROM metrics")
    con.execute("INSERT INTO metrics VALUES ('accuracy', 'Accuracy', true, true), ('chrf', 'chrF', false, true)")
    items = [Item("lindsea-mp", "id", i, {}, "A", warnings=w) for i, w in
             (("a", ("typo", "odd")), ("b", ("typo",)), ("c", ()))]
    con.executemany("INSERT INTO items (task, lang, item_id, warnings) VALUES (?, ?, ?, ?)",
                    [[it.task, it.lang, it.item_id, list(it.warnings)] for it in items])
    pairs = [_pair(items[0], "ab", 1, 0.0), _pair(items[1], "ab", 1, 1.0), _pair(items[2], "ab", 1, 0.0)]
    graded = [(it, ItemResult(res.prediction, res.answer, True, None, {"chrf": 0.5})) for it, res in pairs]
    for prompt_lang, cell in (("en", pairs), ("native", graded)):
        save_drilldown(con, "m", "lindsea-mp", "id", prompt_lang, cell_drilldown(cell))
    assert con.execute("SELECT * FROM failed_flags ORDER BY ALL").fetchall() == [
        ("m", "lindsea-mp", "id", "en", "odd", "a"), ("m", "lindsea-mp", "id", "en", "typo", "a")]


def test_a_cell_left_without_runs_loses_its_pre_aggregates(tmp_path):
    from store.drilldown import drop_orphans

    path = tmp_path / "store.duckdb"
    shutil.copy(fixture_db(), path)
    con = duckdb.connect(str(path))
    cell = ["Gemma-2B", "lindsea-mp", "id", "en"]
    where = "model_id = ? AND task = ? AND lang = ? AND prompt_lang = ?"
    (cell_no,) = con.execute(f"SELECT cell_no FROM drill_cells WHERE {where}", cell).fetchone()
    before = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in DRILL_TABLES}
    mine = con.execute("SELECT count(*) FROM item_outcomes WHERE cell_no = ?", [cell_no]).fetchone()[0]
    nodes = con.execute(f"SELECT count(*) FROM drill_nodes WHERE {where}", cell).fetchone()[0]
    run_ids = [r for (r,) in con.execute(f"SELECT run_id FROM runs WHERE {where}", cell).fetchall()]
    con.execute(f"DELETE FROM runs WHERE {where}", cell)
    drop_orphans(con)
    after = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in DRILL_TABLES}
    assert mine > 0 and nodes > 0
    assert after == {**before, "drill_cells": before["drill_cells"] - 1, "item_outcomes": before["item_outcomes"] - mine,
                     "drill_nodes": before["drill_nodes"] - nodes, "run_counts": before["run_counts"] - len(run_ids)}


def test_a_refresh_replaces_node_rows_left_without_their_cell_row(tmp_path):
    """A refresh deletes a cell's old pre-aggregates only when some are stored (a new cell has none): node rows
    without their drill_cells row (an inconsistent import) count as stored, so none is doubled."""
    from services.ingest import refresh_aggregates
    from store.db import transaction

    path = tmp_path / "store.duckdb"
    shutil.copy(fixture_db(), path)
    con = duckdb.connect(str(path))
    cell = ["Gemma-2B", "lindsea-mp", "id", "en"]
    where = "model_id = ? AND task = ? AND lang = ? AND prompt_lang = ?"
    counts = [f"SELECT count(*) FROM {t} WHERE {where}" for t in ("drill_nodes", "drill_cells")]
    before = [con.execute(q, cell).fetchone()[0] for q in counts]
    con.execute(f"DELETE FROM drill_cells WHERE {where}", cell)
    with transaction(con):
        refresh_aggregates(con, cell[0], [tuple(cell[1:])])
    assert [con.execute(q, cell).fetchone()[0] for q in counts] == before and before[0] > 0 and before[1] == 1
    con.close()


def test_a_refresh_replaces_run_counts_left_without_their_cell(tmp_path):
    """A cell whose drill-down and aggregate rows are gone but whose runs' counts are stored (an inconsistent
    import) still has those counts replaced, not doubled: `refresh_state` looks for them before the writes skip the
    delete; its level groups are `level_groups`' for the same cells."""
    from services.ingest import refresh_aggregates
    from store.cell_rows import refresh_state
    from store.db import transaction
    from store.drill_levels import level_groups

    path = tmp_path / "store.duckdb"
    shutil.copy(fixture_db(), path)
    con = duckdb.connect(str(path))
    cell = ["Gemma-2B", "lindsea-mp", "id", "en"]
    where = "model_id = ? AND task = ? AND lang = ? AND prompt_lang = ?"
    runs = f"SELECT run_id FROM runs WHERE NOT superseded AND {where}"
    counts = f"SELECT run_id, answers, unparsed FROM run_counts WHERE run_id IN ({runs}) ORDER BY ALL"
    before = con.execute(counts, cell).fetchall()
    for table in ("drill_cells", "drill_nodes", "aggregates"):
        con.execute(f"DELETE FROM {table} WHERE {where}", cell)
    assert refresh_state(con, cell[0], [tuple(cell[1:])]).stored == {"run_counts"}
    cells = [tuple(cell[1:]), ("sentiment", "id", "en"), ("pacute-hierarchical-mcq", "tl", "native")]
    assert refresh_state(con, cell[0], cells).levels == level_groups(con, cells) == (
        [["id", "en"]], [["pacute-hierarchical-mcq", "tl", "native"]])
    with transaction(con):
        refresh_aggregates(con, cell[0], [tuple(cell[1:])])
    assert con.execute(counts, cell).fetchall() == before and len(before) > 0
    con.close()
