"""PACUTE explorer page on the fixture store: level figures, the L2 diagnostic, level means, suite and controls."""
from __future__ import annotations

import pytest

from tests.helpers.fixtures_store import frame_with as _frame, app_test


def test_levels_and_diagnostic_mcq(db):
    at = app_test("pacute", models=["SeaLion-9B-it", "Gemma-2B", "Closed-XL"], fmt="MCQ", prompt="en")
    assert not at.exception
    levels = _frame(at, "model_id", "level").set_index(["model_id", "level"])
    # every 10th hierarchy item: 10 per level; Gemma right on 6, 5, 2, 2, 3, 2 of 10 at L0-L5
    assert levels.loc[("Gemma-2B", 2), "value"] == pytest.approx(20.0)
    assert levels.loc[("Gemma-2B", 0), "value"] == pytest.approx(60.0)
    assert levels.loc[("Gemma-2B", 2), "n"] == 10
    assert levels.loc[("Gemma-2B", 2), "chance"] == 25.0
    assert levels.loc[("Gemma-2B", 2), "below_chance"]
    # Wilson 95% for 2/10: 5.67-50.98
    assert levels.loc[("Gemma-2B", 2), "ci_low"] == pytest.approx(5.67, abs=0.01)
    assert levels.loc[("Closed-XL", 4), "value"] == pytest.approx(90.0)
    errors = [e.value for e in at.error]
    # model names are Markdown-escaped (they come from uploads)
    assert len(errors) == 1 and errors[0].startswith("Gemma\\-2B: L2 20.0% (95% CI 5.7-51.0, n=10) is at chance")
    assert {s.value.split(":")[0] for s in at.success} == {"SeaLion\\-9B\\-it", "Closed\\-XL"}
    means = _frame(at, "model_id", "micro", "macro").set_index("model_id")
    assert means.loc["Gemma-2B", "micro"] == pytest.approx(100 * 20 / 60)
    assert means.loc["SeaLion-9B-it", "macro"] == pytest.approx(60.0)


def test_suite_and_controls_as_ceiling(db):
    at = app_test("pacute", models=["Gemma-2B", "Closed-XL"], fmt="MCQ", prompt="native")
    suite = _frame(at, "model_id", "task", "stem").set_index(["model_id", "stem"])
    # native prompt on the suite (Closed-XL 8/10), English on the controls (9/10)
    assert suite.loc[("Closed-XL", "affixation"), "value"] == pytest.approx(80.0)
    assert suite.loc[("Closed-XL", "langgame"), "kind"] == "control"
    assert suite.loc[("Closed-XL", "langgame"), "value"] == pytest.approx(90.0)
    assert suite.loc[("Gemma-2B", "mda"), "below_chance"]
    assert suite.loc[("Gemma-2B", "mda"), "n"] == 20


def test_gen_contains_match(db):
    at = app_test("pacute", models=["Closed-XL"], fmt="GEN", metric_gen="contains_match", prompt="en")
    assert not at.exception
    assert at.radio[1].value == "contains_match"
    levels = _frame(at, "model_id", "level")
    assert (levels["chance"] == 0).all()
    assert levels["value"].tolist() == pytest.approx([90.0] * 6)
    # the diagnostic still reads the MCQ hierarchy
    assert any(s.value.startswith("Closed\\-XL: L2 90.0%") for s in at.success)
