"""Compare's item slices (`compare_slice`), cut from the `compare_items` frame itself: the hand-picked rows, in item
order, with the column types DuckDB gives the same filter's result; a search keeps the items it matched."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from store.queries.compare import SLICES, compare_slice, compare_slice_ids


def _items(binary: bool = True) -> pd.DataFrame:
    """Four items of two systems as `compare_items` lists them (not in item order here, on purpose)."""
    right = {"A": [True, False, True, False], "B": [False, False, True, True]}
    return pd.DataFrame({
        "item_id": ["i3", "i1", "i2", "i4"],
        "score_A": [1.0, 0.0, 1.0, 0.5], "right_A": right["A"] if binary else [None] * 4,
        "parsed_A": [True, True, False, True],
        "score_B": [0.0, 0.0, 1.0, 1.0], "right_B": right["B"] if binary else [None] * 4,
        "parsed_B": [True, True, True, True],
        "prompt_disagree": [False, True, False, False],
        "input": ["three", "one", "two", "four"]})


@pytest.fixture()
def con():
    con = duckdb.connect()
    yield con
    con.close()


@pytest.mark.parametrize("slice_, want", [
    ("all", ["i1", "i2", "i3", "i4"]),
    ("a_right_b_wrong", ["i3"]),
    ("a_wrong_b_right", ["i4"]),
    ("all_wrong", ["i1"]),
    ("any_wrong", ["i1", "i3", "i4"]),
    ("unparseable", ["i2"]),
    ("prompt_disagree", ["i1"]),
])
def test_each_slice_lists_its_items_in_order(con, slice_, want):
    got = compare_slice(con, items=_items(), slice=slice_)
    assert got["item_id"].tolist() == want
    assert list(got.columns) == ["item_id", "score_A", "right_A", "parsed_A", "score_B", "right_B", "parsed_B",
                                 "input"]
    assert got.index.tolist() == list(range(len(want)))


@pytest.mark.parametrize("slice_", SLICES)
@pytest.mark.parametrize("binary", [True, False])
def test_the_ids_alone_are_the_slices_ids(con, slice_, binary):
    """`compare_slice_ids` (the page's "next failing item" list) gives the ids of `compare_slice`'s frame, with a
    search, a limit and one system too."""
    for kw in ({}, {"search": "foo", "matched": ("i4", "i2", "i1")}, {"search": "foo", "matched": ()}, {"limit": 1}):
        for items in (_items(binary), _items(binary).drop(columns=["score_B", "right_B", "parsed_B"])):
            assert compare_slice_ids(con, items=items, slice=slice_, **kw) == compare_slice(
                con, items=items, slice=slice_, **kw)["item_id"].tolist()


def test_limit_and_a_single_system(con):
    assert compare_slice(con, items=_items(), slice="all", limit=2)["item_id"].tolist() == ["i1", "i2"]
    one = _items().drop(columns=["score_B", "right_B", "parsed_B"])
    assert compare_slice(con, items=one, slice="a_right_b_wrong").empty  # needs two systems
    assert compare_slice(con, items=one, slice="all_wrong")["item_id"].tolist() == ["i1", "i4"]


def test_a_non_binary_metric_has_no_right_or_wrong_items(con):
    items = _items(binary=False)
    for slice_ in ("a_right_b_wrong", "a_wrong_b_right", "all_wrong", "any_wrong"):
        assert compare_slice(con, items=items, slice=slice_).empty, slice_
    assert compare_slice(con, items=items, slice="unparseable")["item_id"].tolist() == ["i2"]


def test_a_search_keeps_the_items_it_matched(con):
    got = compare_slice(con, items=_items(), slice="all", search="foo", matched=("i4", "i2", "elsewhere"))
    assert got["item_id"].tolist() == ["i2", "i4"]
    assert compare_slice(con, items=_items(), slice="any_wrong", search="foo", matched=("i4", "i2"))[
        "item_id"].tolist() == ["i4"]
    assert compare_slice(con, items=_items(), slice="all", search="foo", matched=()).empty
    assert len(compare_slice(con, items=_items(), slice="all", search=None, matched=("i4",))) == 4  # no search


SQL_SLICES = {"all": "true", "a_right_b_wrong": "right_A AND NOT right_B", "a_wrong_b_right": "NOT right_A AND right_B",
              "all_wrong": "NOT right_A AND NOT right_B", "any_wrong": "NOT right_A OR NOT right_B",
              "unparseable": "NOT parsed_A OR NOT parsed_B", "prompt_disagree": "prompt_disagree"}
"""Each slice as the SQL condition the page's filter was before it was cut from the frame."""


@pytest.mark.parametrize("slice_", SQL_SLICES)
@pytest.mark.parametrize("binary", [True, False])
def test_the_frame_cut_is_the_sql_filter_types_included(con, slice_, binary):
    """A slice cut from the frame equals the same filter run by DuckDB on it, column types included, whether the
    right/wrong columns are 0/1 or missing (non-binary metrics) and whether the slice is empty."""
    items = _items(binary)  # noqa: F841  (read by DuckDB by name)
    frame = con.execute(  # typed as compare_items returns it
        "SELECT * REPLACE (right_A::BOOLEAN AS right_A, right_B::BOOLEAN AS right_B) FROM items").df()
    want = con.execute(f"SELECT * EXCLUDE (prompt_disagree) FROM frame WHERE {SQL_SLICES[slice_]} ORDER BY item_id"
                       ).df()
    pd.testing.assert_frame_equal(compare_slice(con, items=frame, slice=slice_), want)


def test_items_without_the_prompt_columns_are_the_same_rows_and_refuse_that_slice():
    """`compare_items` reads the other prompt language's cells only when asked (`prompts=True`, the
    prompt_disagree slice): without them it gives the same frame but that column, and the slice refuses it."""
    from store.queries.compare import compare_items
    from tests.helpers.fixtures_store import fixture_db

    fixture = duckdb.connect(str(fixture_db()), read_only=True)
    cell = {"task": "lindsea-mp", "lang": "id", "systems": ("SeaLion-9B-it|en", "Gemma-2B|native"),
            "metric": "accuracy"}
    full = compare_items(fixture, **cell, prompts=True)
    assert full["prompt_disagree"].any() and not full["prompt_disagree"].all()
    plain = compare_items(fixture, **cell)
    pd.testing.assert_frame_equal(plain, full.drop(columns=["prompt_disagree"]))
    for slice_ in ("all", "any_wrong", "unparseable"):
        pd.testing.assert_frame_equal(compare_slice(fixture, items=plain, slice=slice_),
                                      compare_slice(fixture, items=full, slice=slice_))
    with pytest.raises(ValueError, match="prompts=True"):
        compare_slice(fixture, items=plain, slice="prompt_disagree")
    fixture.close()
