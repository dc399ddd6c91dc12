"""Result files the tools really wrote (../shared/data/real-results, pacute results-sample): read as they are."""
from __future__ import annotations

import json

import pytest

from evaluator.formats import detect
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from tests.helpers import upload_files as U

REAL = U.DATA / "real-results"
pytestmark = pytest.mark.needs_samples


@pytest.fixture(scope="module")
def index():
    return ItemIndex(U.DATA)


@pytest.mark.parametrize("task,cell", [("xcopa_id", ("causal", "id")), ("xcopa_th", ("causal", "th")),
                                       ("xnli_th", ("nli", "th")), ("xnli_vi", ("nli", "vi"))])
def test_lm_eval_0_4_13_samples_rescore_to_lm_evals_own_accuracy(index, task, cell):
    path = next((REAL / "lm-eval").glob(f"samples_{task}_*.jsonl"))
    results = json.loads(next((REAL / "lm-eval").glob("results_*.json")).read_text())["results"]
    up = read_upload(path, index=index)
    assert up.ok, up.errors
    assert not up.warnings  # every row mapped onto our 100 items, no doc carries an id
    preds = up.predictions
    assert {(p.task, p.lang) for p in preds} == {cell} and len({p.item_id for p in preds}) == 100
    assert {p.prompt_lang for p in preds} == {"native"}
    items = {i.item_id: i for i in index.cell(*cell).items.values()}
    ours = [score_prediction(get_task(cell[0]), items[p.item_id], p).scores["accuracy"] for p in preds]
    assert sum(ours) / len(ours) == pytest.approx(results[task]["acc,none"])
    # per row, too: our right/wrong is lm-eval's `acc`
    assert ours == [p.self_reported["acc"] for p in preds]


def test_lm_eval_results_file_keeps_only_scores(index):
    path = next((REAL / "lm-eval").glob("results_*.json"))
    up = read_upload(path, index=index)
    assert up.ok and up.model_hint == "stub"
    assert sorted((s.task, s.lang, s.metric, s.value) for s in up.summary) == [
        ("causal", "id", "acc,none", 0.51), ("causal", "th", "acc,none", 0.48),
        ("nli", "th", "acc,none", 0.33), ("nli", "vi", "acc,none", 0.33)]


def test_real_seahelm_summary_where_every_tanaw_task_failed(index):
    path = REAL / "seahelm" / "gemma-4-E4B-it_seahelm_results.json"
    assert detect.detect(path.name, path.read_bytes()) == "seahelm-summary"
    up = read_upload(path, index=index)
    assert not up.ok and not up.summary
    assert up.model_hint == "gemma-4-E4B-it"
    assert "every Tanaw task in this file failed in SEA-HELM" in str(up.errors[0])
    failed = next(w.problem for w in up.warnings if "tasks failed in this file" in w.problem)
    assert failed.startswith("74 tasks failed in this file; not imported")  # every failed entry of the file
    assert len(up.warnings) == 2  # failed entries and non-Tanaw tasks, each reported once


def test_seahelm_summary_named_like_lm_eval_is_read_by_its_content(index, tmp_path):
    """A `results_*_seahelm_results.json` name starts like lm-eval's results file; the content decides."""
    real = REAL / "seahelm" / "gemma-4-E4B-it_seahelm_results.json"
    path = tmp_path / "results_gemma-4-E4B-it_seahelm_results.json"
    path.write_bytes(real.read_bytes())
    assert detect.detect(path.name, path.read_bytes()) == "seahelm-summary"
    up = read_upload(path, index=index)
    assert not any("results" == getattr(e, "field", None) for e in up.errors)
    assert "every Tanaw task in this file failed in SEA-HELM" in str(up.errors[0])
    # and an lm-eval results file under a SEA-HELM-like name is still lm-eval's
    lm = next((REAL / "lm-eval").glob("results_*.json"))
    assert detect.detect("stub_seahelm_results.json", lm.read_bytes()) == "lm-eval-summary"
