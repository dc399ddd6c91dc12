"""The board's rules (services.board_view) on small hand-made frames: the stub rule, the opening board, the leaders'
order, Compare's opening systems, rank ranges without stubs and the language lead sentence."""
from __future__ import annotations

import math

import pandas as pd

from services.board_view import (
    STUB_MIN_ITEMS,
    compare_default,
    default_board,
    excludes,
    lead_sentence,
    leader_order,
    preselect,
    ranks_without_stubs,
)


def _models(rows):
    return pd.DataFrame(rows, columns=["model", "family", "prompt_lang", "origin", "baseline", "items", "cells",
                                       "overall"])


BOARD = _models([
    ("a", "pacute", "en", "uploaded", False, 600, 8, 40.0),
    ("b", "pacute", "en", "uploaded", False, 600, 8, 55.0),
    ("stub", "pacute", "en", "uploaded", False, STUB_MIN_ITEMS - 1, 1, 100.0),
    ("demo", "pacute", "en", "demo", False, 300, 8, 70.0),
    ("base", "pacute", "en", "demo", True, 300, 8, 90.0),
    ("lm", "bhasa", "native", "uploaded", False, 10, 1, -0.2),
    ("demo", "bhasa", "en", "demo", False, 300, 30, 5.0),
    ("base", "bhasa", "en", "demo", True, 300, 30, 9.0),
    ("base2", "bhasa", "en", "demo", True, 300, 30, 7.0),
])


def test_excludes_is_the_one_test_of_clear():
    assert excludes(1.0, 2.0, 0.0) and excludes(-3.0, -1.0, 0.0)
    assert not excludes(-1.0, 2.0, 0.0) and not excludes(0.0, 2.0, 0.0)  # touching the reference is not clear
    assert not excludes(math.nan, 2.0, 0.0) and not excludes(1.0, None, 0.0)


def test_opening_board_counts_ranked_non_stub_models():
    # pacute·en: a and b ranked (stub and demo rows do not count); bhasa·native: only a stub; bhasa·en: demo only
    assert default_board(BOARD, ["bhasa", "lindsea", "pacute"], ["en", "native"]) == ("pacute", "en")
    demo_only = BOARD[BOARD["origin"] == "demo"]  # nothing ranked: the most models (bhasa·en has three)
    assert default_board(demo_only, ["bhasa", "lindsea", "pacute"], ["en", "native"]) == ("bhasa", "en")
    assert default_board(BOARD.iloc[0:0], ["bhasa"], ["en"]) is None


def test_leaders_first_stub_after_the_ranked_baselines_last():
    pacute = BOARD[BOARD["family"] == "pacute"]
    assert leader_order(pacute) == ["b", "a", "stub", "demo", "base"]
    assert preselect(pacute, ["base", "a", "stub", "demo", "b", "other"], 4) == ["b", "a", "stub", "demo"]
    assert preselect(pacute, ["base", "x", "base2"], 3, baselines=["base2"]) == ["x", "base", "base2"]


def test_compare_opens_on_two_models_never_one_against_itself():
    systems = pd.DataFrame({"system": ["a|en", "a|native", "b|en", "b|native", "base|en"],
                            "model_id": ["a", "a", "b", "b", "base"],
                            "prompt_lang": ["en", "native", "en", "native", "en"]})
    assert compare_default(systems, ["b", "a"], "native") == ["b|native", "a|native"]
    one = systems[systems["model_id"] == "a"]
    assert compare_default(one, ["b", "a"], "en") == ["a|en"]


def test_ranks_leave_stubs_out():
    intervals = pd.DataFrame({"model": ["a", "b", "stub"], "items": [100, 100, 8],
                              "overall": [55.0, 60.0, 95.0], "low": [50.0, 55.0, 90.0], "high": [60.0, 65.0, 100.0]})
    # without the stub: a and b overlap (55 <= 60), both best 1, worst 2. With it, the stub's low 90 lies above both
    # highs and would push them to best rank 2.
    assert ranks_without_stubs(intervals) == (("a", 1, 2), ("b", 1, 2))


def test_lead_sentence_counts_clear_tasks():
    means = pd.DataFrame({"model": ["A", "B"], "mean": [60.0, 50.0], "tasks": [2, 2]})
    tests = pd.DataFrame({"task": ["x", "y", "x"], "model_a": ["A", "A", "B"], "model_b": ["B", "B", "A"],
                          "n": [100, 100, 100], "diff": [5.0, 1.0, -5.0], "ci_low": [2.0, -1.0, -8.0],
                          "ci_high": [8.0, 3.0, -2.0]})
    text = lead_sentence("Thai", "English prompt", means, tests)
    assert text.startswith("In Thai (English prompt), A leads with a normalised language score of 60.0 over 2 "
                           "tasks, 10.0 points ahead of B (50.0).")
    assert "statistically clear on 1 of 2 paired tasks" in text
    assert "not known" in lead_sentence("Thai", "English prompt", means, tests.iloc[0:0])


def test_lead_sentence_with_one_paired_task():
    means = pd.DataFrame({"model": ["A", "B"], "mean": [60.0, 50.0], "tasks": [1, 1]})
    tests = pd.DataFrame({"task": ["x"], "model_a": ["A"], "model_b": ["B"], "n": [100], "diff": [5.0],
                          "ci_low": [2.0], "ci_high": [8.0]})
    assert lead_sentence("Malay", "Native prompt", means, tests).endswith(
        "over 1 task, 10.0 points ahead of B (50.0). The lead is statistically clear on the one task where the two "
        "were paired (paired test, 95% interval of the difference).")
    noisy = tests.assign(ci_low=[-1.0])
    assert lead_sentence("Malay", "Native prompt", means, noisy).endswith(
        "The lead is not statistically clear: on the one paired task the 95% interval of the difference does not "
        "lie above 0 (paired test, 95% interval of the difference).")
