"""The methodology page renders every section from the registries (Streamlit AppTest, no browser)."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evaluator.metrics import METRICS
from evaluator.methodology import figures
from evaluator.methodology.docs import (differences, metric_rows, pacute_difference_items, pacute_differences,
                                    task_rows)
from evaluator.registry import TASKS
from tests.helpers.samples import SAMPLES

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "methodology.py")
DATA = SAMPLES


def test_docs_cover_every_metric_and_task_cell():
    assert {r["metric"] for r in metric_rows()} == set(METRICS)
    assert len(task_rows()) == sum(len(t.langs) for t in TASKS.values())
    ta = next(r for r in task_rows("bhasa") if r["task"] == "sentiment" and r["language"] == "Tamil")
    assert ta["headline"] == "accuracy" and ta["chance"] == "50.0"
    qa_id = next(r for r in task_rows("bhasa") if r["task"] == "qa" and r["language"] == "Indonesian")
    assert "squad_f1_newmm" not in qa_id["metrics"]


@pytest.mark.parametrize("section", ["Metrics", "Tasks", "Answer extraction", "Aggregation"])
def test_page_sections_render(section):
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["section"] = section
    at.run()
    assert not at.exception
    assert at.radio(key="section").value == section
    if section == "Metrics":
        text = " ".join(m.value for m in at.markdown)
        assert all(f"`{name}`" in text for name in METRICS)
    if section in ("Tasks", "Answer extraction"):  # tables: tasks; accepted answer words
        assert len(at.dataframe) >= 1 and len(at.dataframe[0].value) > 0


def test_page_shows_sample_figures():
    # read from data/methodology_figures.json: the page does not re-score (no shared data needed)
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["section"] = "ROUGE-L variants"
    at.run()
    assert not at.exception
    df = at.dataframe[0].value
    th = df[df["language"] == "Thai"].iloc[0]
    assert (th["rougeL (XL-Sum, headline)"], th["rougeL_nows (words only)"]) == ("25.42", "21.83")
    assert df[df["language"] == "Tamil"].iloc[0]["rougeL (XL-Sum, headline)"] == "17.16"
    n, rows = pacute_differences()
    # 35 normalisation flags, 2 unclosed reflections that pacute-bench read as answers (hierarchical, langgame)
    assert n == 5940 and sum(r["items"] for r in rows) == 39
    items = pacute_difference_items()
    # syllabification_gen_00133: gold "hulí" composed, the answer's í decomposed (i + U+0301): NFC is normalisation
    assert len(items) == 39 and {i["reason"] for i in items if i["item_id"] == "syllabification_gen_00133"} == {
        "normalisation"}
    assert sorted(i["item_id"] for i in items if i["reason"] == "unclosed_answer") == [
        "hierarchical_gen_00141", "langgame_gen_00148"]


def test_differences_section_lists_counts_without_rescoring(monkeypatch):
    import evaluator.methodology.pacute_compat as compat

    monkeypatch.setattr(compat, "compare_rows", lambda *a, **k: pytest.fail("the page re-scored"))
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["section"] = "Differences from pacute-bench and SEA-HELM"
    at.run()
    assert not at.exception, [e.stack_trace for e in at.exception]
    table = at.table[0].value
    assert len(table) == len(differences()) and set(table["reference"]) == {"pacute-bench", "SEA-HELM"}
    counts = dict(zip(table["topic"], table["count on the samples"]))
    assert counts["Normalisation"].startswith("37 flags of 5,940")
    assert counts["Reading the answer"].startswith("0 flags") and counts["Unclosed <reflection>"] == "2 flags"
    assert "464 of 600" in counts["Hierarchical MCQ gold"]
    assert counts["Duplicate items"] == "39 groups, 91 syllabification MCQ items"
    assert "66.41 instead of 66.16" in counts["QA articles (a/an/the)"]
    per_bench = at.dataframe[0].value.set_index("benchmark")
    assert (per_bench["EM Tanaw"] == per_bench["EM pacute-bench normalised"]).all()
    differ = per_bench[per_bench["CM Tanaw"] != per_bench["CM pacute-bench normalised"]]
    assert sorted(differ.index) == ["hierarchical-gen", "langgame-gen"]  # one unclosed reflection each
    assert per_bench.loc["hierarchical-gen", "EM pacute-bench"] == 37.17
    text = " ".join(m.value for m in at.markdown)
    assert "scores 1/k" in text and "in any option order" in text and "2·acc/(1 + acc)" in text
    assert "unclosed_answer" in text and "hierarchical_gold" in text  # the rules counted per imported model


@pytest.mark.needs_samples
def test_stored_figures_are_current():
    # re-run scripts/build_methodology_figures.py when this fails after a scoring change
    assert figures.compute(DATA) == figures.load()
