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
    assert not levels.loc[("Gemma-2B", 2), "below_chance"]  # 20% under 25% chance, but its interval reaches it
    # Wilson 95% for 2/10: 5.67-50.98
    assert levels.loc[("Gemma-2B", 2), "ci_low"] == pytest.approx(5.67, abs=0.01)
    assert levels.loc[("Closed-XL", 4), "value"] == pytest.approx(90.0)
    texts = [t.value for t in at.text]  # plain text, never Markdown: model names come from uploads
    # Gemma: L0-L1 pooled 11/20 = 55% (Wilson 34.2-74.2); L2 2/10 = 20% (5.7-51.0) stays under 55% but overlaps
    gemma = [t for t in texts if t.startswith("? Gemma-2B ")]
    assert gemma == ["? Gemma-2B scores 20% at L2 (95% CI 6-51%) against 55% at L0-L1 (95% CI 34-74%): lower, "
                     "but the intervals overlap, so more items are needed to say whether morpheme decomposition "
                     "breaks."]
    # Closed-XL: 9/10 at every level, L2 reaches the L0-L1 level
    assert any(t.startswith("✓ Closed-XL holds up at L2: 90% (95% CI 60-98%) against 90% at L0-L1") for t in texts)
    readout = _frame(at, "model_id", "verdict").set_index("model_id")
    assert readout.loc["Gemma-2B", "base"] == pytest.approx(55.0)
    assert readout.loc["Gemma-2B", "base_low"] == pytest.approx(34.21, abs=0.01)
    assert readout.loc["Gemma-2B", "l2_high"] == pytest.approx(50.98, abs=0.01)
    assert not at.error and not at.success  # no coloured Markdown boxes built from data
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
    assert not suite.loc[("Gemma-2B", "mda"), "below_chance"]  # 4/20 = 20%, 95% CI 8.1-41.6 reaches 25
    assert suite.loc[("Gemma-2B", "mda"), "n"] == 20


def test_gen_contains_match(db):
    at = app_test("pacute", models=["Closed-XL"], fmt="GEN", metric_gen="contains_match", prompt="en")
    assert not at.exception
    assert at.radio[1].value == "contains_match"
    levels = _frame(at, "model_id", "level")
    assert (levels["chance"] == 0).all()
    assert levels["value"].tolist() == pytest.approx([90.0] * 6)
    # generation is read on its own hierarchy with chance 0: 90% everywhere holds
    assert any(t.value.startswith("✓ Closed-XL holds up at L2: 90%") for t in at.text)
