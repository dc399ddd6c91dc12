"""Honest ranks by the interval-overlap rule (evaluator.ranking), hand-checked."""
from __future__ import annotations

import math

import pytest

from evaluator.ranking import rank_ranges
from evaluator.rollup import Z95, overall_interval


def test_three_overlapping_models_share_rank_one_and_a_clearly_lower_one_stands_alone():
    intervals = {"a": (90.0, 96.0), "b": (88.0, 94.5), "c": (89.5, 95.0), "d": (60.0, 70.0)}
    ranks = rank_ranges(intervals)
    assert ranks == {"a": (1, 3), "b": (1, 3), "c": (1, 3), "d": (4, 4)}


def test_a_chain_of_overlaps_is_not_one_group():
    # a overlaps b, b overlaps c, but a and c do not: c can be second at best
    ranks = rank_ranges({"a": (80.0, 90.0), "b": (75.0, 85.0), "c": (70.0, 78.0)})
    assert ranks == {"a": (1, 2), "b": (1, 3), "c": (2, 3)}


def test_overall_interval_propagates_the_cell_intervals():
    # two BHASA NLU cells in one language: overall = mean, se = sqrt((se1/2)^2 + (se2/2)^2)
    cells = {("sentiment", "id"): (70.0, 60.0, 80.0), ("qa", "id"): (50.0, 46.0, 54.0)}
    overall, lo, hi = overall_interval(cells, {"sentiment": "NLU", "qa": "NLU"})
    se1, se2 = 20 / (2 * Z95), 8 / (2 * Z95)
    half = Z95 * math.sqrt((se1 / 2) ** 2 + (se2 / 2) ** 2)
    assert overall == pytest.approx(60.0)
    assert (lo, hi) == (pytest.approx(60 - half), pytest.approx(60 + half))


def test_the_leaderboard_reads_stored_rank_ranges(tmp_path):
    """Four evaluated models through the real ingest path: three whose overall intervals overlap pairwise share
    ranks 1-3 and are tied with #1; the fourth, clearly lower, is ranked 4 alone."""
    from services.ingest import ingest_predictions, refresh_ranks
    from store import db
    from store.queries.leaderboard import leaderboard_table
    from tests.helpers.fixtures_store import DATA_DIR, MODELS, predictions

    con = db.connect(tmp_path / "r.duckdb")
    names = {"SeaLion-9B-it": ["SeaLion-9B-it", "SeaLion-copy"], "Closed-XL": ["Closed-XL"], "Gemma-2B": ["Gemma-2B"]}
    for base, copies in names.items():
        preds = [p for p in predictions(base) if p.task == "lindsea-mp" and p.lang == "id" and p.prompt_lang == "en"]
        for name in copies:
            ingest_predictions(con, preds, model={"model_id": name, **MODELS[base], "origin": "evaluated"},
                               source={"file": f"{name}.jsonl", "kind": "upload"}, data_dir=DATA_DIR)
    refresh_ranks(con)
    board = leaderboard_table(con, "en", "value", "lindsea").set_index("model")
    lo = con.execute("SELECT model_id, value FROM rollups WHERE level = 'interval' AND key = 'low' AND family = "
                     "'lindsea' AND score = 'value' AND prompt_lang = 'en'").df().set_index("model_id")["value"]
    con.close()
    # 40 items each (lindsea-mp id): 80%, 80%, 90% right overlap; Gemma's 50% interval lies wholly below
    top = ["Closed-XL", "SeaLion-9B-it", "SeaLion-copy"]
    assert board.loc[top, "overall"].tolist() == pytest.approx([90.0, 80.0, 80.0])
    assert board.loc[top, "rank range"].tolist() == ["1–3"] * 3
    assert board.loc[top, "tied with #1"].tolist() == ["tied with #1"] * 3
    assert board.loc["Gemma-2B", "rank range"] == "4" and board.loc["Gemma-2B", "rank"] == 4
    assert board.loc["Gemma-2B", "tied with #1"] == ""
    assert lo["SeaLion-9B-it"] > board.loc["Gemma-2B", "overall"]


def test_tied_and_touching_intervals_share_their_ranks():
    """Ties by the rule's own words: an interval whose low equals another's high "reaches" it, so neither lies
    wholly above the other. Hand-computed:
    - a (80, 90) and b (90, 95) touch at 90: no low lies above a's high (b's low is 90, not above), so a's best is
      1; two highs (90, 95) reach a's low 80, so its worst is 2. b: no low above 95, best 1; highs >= 90 are a's 90
      and its own 95, worst 2.
    - c and d are the same point (70, 70), wholly below a and b (whose lows 80, 90 are above 70): best 1 + 2 = 3;
      highs >= 70 are all four, worst 4.
    Counting lows at or above a high (searchsorted side="left") would give a best rank 2 and the points (5, 4)."""
    ranks = rank_ranges({"a": (80.0, 90.0), "b": (90.0, 95.0), "c": (70.0, 70.0), "d": (70.0, 70.0)})
    assert ranks == {"a": (1, 2), "b": (1, 2), "c": (3, 4), "d": (3, 4)}


def test_two_models_with_the_same_point_score_are_tied_first():
    """Two models with no interval (low = high = their score) and the same score: each one's best rank is 1 (the
    other's low is not above its high) and worst 2 (both highs reach its low)."""
    assert rank_ranges({"x": (85.0, 85.0), "y": (85.0, 85.0)}) == {"x": (1, 2), "y": (1, 2)}
