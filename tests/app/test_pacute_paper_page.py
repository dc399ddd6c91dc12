"""The PACUTE page on the paper's own results (`results pull pacute-paper` of the verbatim public samples through
the raw-file stand-in): the read-out names the L2 drop in words, and the human baseline shows beside the models,
never ranked. Morphological extraction and production appear as soon as Tanaw has those tasks."""
from __future__ import annotations

import pytest

from evaluator.registry import TASKS
from tests.helpers.fixtures_store import app_test, frame_with, pages_on
from tests.helpers.paper_results import pulled_store

pytestmark = pytest.mark.needs_samples

MORPHOLOGY = ("morphological-extraction", "morphological-production")


@pytest.fixture(scope="module")
def paper_store(tmp_path_factory):
    return pulled_store(tmp_path_factory.mktemp("paper"))


def test_read_out_names_the_l2_drop_in_words(paper_store):
    with pages_on(paper_store):
        at = app_test("pacute", models=["gemma-4-e2b-it", "GPT-5-Mini"], fmt="GEN")  # the page picks the prompt
        assert not at.exception, [e.value for e in at.exception]
        texts = [t.value for t in at.text]
        assert any(c.value.startswith("2 of the 2 selected models are the PACUTE paper's own runs") for c in at.caption)
        readout = frame_with(at, "model_id", "verdict").set_index("model_id")
    assert set(readout.index) == {"gemma-4-e2b-it", "GPT-5-Mini"}
    for model, row in readout.iterrows():
        line = next(t for t in texts if t[2:].startswith(f"{model} "))
        assert row["base"] > row["l2_high"], (model, row.to_dict())  # L2 falls clearly below L0-L1 for both
        assert line[2:].startswith(f"{model} drops from {row['base']:.0f}% at L0-L1 to {row['l2']:.0f}% at L2 ")
        assert "morpheme decomposition is where it breaks." in line
        assert "present" not in line


def test_human_baseline_beside_the_models_not_ranked(paper_store):
    with pages_on(paper_store):
        at = app_test("pacute", models=["gemma-4-e2b-it"], fmt="MCQ", prompt="en")
        assert not at.exception, [e.value for e in at.exception]
        human = frame_with(at, "task", "annotator 1").set_index("task")
        assert "Human baseline (MCQ, not ranked)" in [h.value for h in at.subheader]
        # summary.md of the baseline: syllabification 0.600 / 0.750 / 0.950, kappa 0.589, 60.0% agreement
        row = human.loc["pacute-syllabification-mcq"]
        assert (row["annotator 1"], row["annotator 2"], row["annotator 3"]) == (60.0, 75.0, 95.0)
        assert row["mean"] == pytest.approx(76.667, abs=1e-3) and row["Fleiss' kappa"] == pytest.approx(0.5894)
        assert row["raw agreement"] == pytest.approx(60.0) and row["n"] == 20
        assert "rank" not in human.columns
        suite = at.get("plotly_chart")
        assert any("human (mean of 3)" in str(c.proto.spec) for c in suite)

        # chance-normalised bars are on another scale than the baseline's accuracy: no diamonds there
        norm = app_test("pacute", models=["gemma-4-e2b-it"], fmt="MCQ", metric_mcq="mcq_norm_acc", prompt="en")
        assert norm.radio(key="metric_mcq").value == "mcq_norm_acc"
        assert not any("human (mean of 3)" in str(c.proto.spec) for c in norm.get("plotly_chart"))

        board = app_test("leaderboard", bench="PACUTE", prompt="English")
        assert not board.exception, [e.value for e in board.exception]
        ranked = board.dataframe[0].value
        assert not ranked["model"].astype(str).str.startswith("human").any()  # never among the ranked
        reported = frame_with(board, "system", "source").set_index(["system", "source"])
        assert ("human: mean of 3 annotators", "PACUTE human baseline") in reported.index


def test_morphological_tasks_appear_with_their_human_baseline(paper_store):
    assert all(f"pacute-{m}-mcq" in TASKS for m in MORPHOLOGY)
    with pages_on(paper_store):
        at = app_test("pacute", models=["gemma-4-e2b-it"], fmt="MCQ", prompt="en")
        suite = frame_with(at, "model_id", "task", "stem")
        human = frame_with(at, "task", "annotator 1")
    for m in MORPHOLOGY:
        assert m in set(suite["stem"]), m
        assert f"pacute-{m}-mcq" in set(human["task"])
