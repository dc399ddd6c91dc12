"""Result files the tools really wrote (../shared/data/real-results, pacute results-sample): read as they are."""
from __future__ import annotations

import json

import pytest

from evaluator.formats import detect, seahelm
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.registry import get_task
from evaluator.seahelm_rollup import seahelm_name
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


def _count(warnings, start: str) -> int:
    """The count a warning line starts with (`"74 tasks failed ..."`), 0 without such a line."""
    line = next((w.problem for w in warnings if start in w.problem), None)
    return int(line.split()[0]) if line else 0


def test_real_seahelm_summary_keeps_every_task_that_ran_and_names_the_rest(index):
    """Every entry of the file is imported or counted in a warning line: none is dropped silently."""
    path = REAL / "seahelm" / "gemma-4-E4B-it_seahelm_results.json"
    assert detect.detect(path.name, path.read_bytes()) == "seahelm-summary"
    doc = json.loads(path.read_bytes())
    up = read_upload(path, index=index)
    assert up.ok and up.model_hint == "gemma-4-E4B-it"
    tasks = [(lang, comp, name) for lang, comps in doc.items() if isinstance(comps, dict)
             for comp, entries in comps.items() if isinstance(entries, dict)
             for name, e in entries.items() if isinstance(e, dict) and name not in ("pragmatics", "lindsea")]
    failed = [t for t in tasks if "error" in doc[t[0]][t[1]][t[2]]]
    ran = [t for t in tasks if t not in failed]
    assert (len(tasks), len(failed), len(ran)) == (294, 74, 220)  # 215 Global-MMLU-Lite subjects + 5 ThaiExam
    assert _count(up.warnings, "tasks failed in this file") == 74
    # a task Tanaw scores in that language keeps Tanaw's name; any other its SEA-HELM name and version
    ours = [(lang, name) for lang, _, name in ran
            if seahelm.our_task(name) and lang in get_task(seahelm.our_task(name)).langs]
    assert _count(up.warnings, "kept as self-reported under their SEA-HELM name") == 220 - len(ours)
    got = {(seahelm.reported_name(s.task) or seahelm_name(s.task), s.lang): (s.task, s.value) for s in up.summary
           if s.metric == "normalized_accuracy"}
    assert set(got) == {(name, lang) for lang, _, name in ran}
    # SEA-HELM's Global-MMLU-Lite version 1 and ThaiExam version 1.1 (task configs at 6844e6c) key the scores
    assert got[("global_mmlu_lite_virology", "id")] == ("seahelm:global_mmlu_lite_virology:v1", pytest.approx(50.0))
    assert got[("thai_exam_ic", "th")][1] == pytest.approx(54.39271255060728)
    assert got[("thai_exam_ic", "th")][0] in ("seahelm:thai_exam_ic:v1.1", seahelm.our_task("thai_exam_ic"))
    # group nodes: 5 Global-MMLU-Lite and 1 ThaiExam kept; 9 computed from failed parts only (translations × 7,
    # pragmatics × 2) named; the 2 `lindsea` nodes named as repeats of their competency total
    groups = {(s.task, s.lang): s.value for s in up.summary if s.metric == "normalized_score"}
    assert len(groups) == 6 and groups[("seahelm:global_mmlu_lite", "id")] == pytest.approx(59.76616161616162)
    assert _count(up.warnings, "computed from failed tasks only") == 9
    assert _count(up.warnings, "`lindsea` nodes") == 2
    groups_in_file = sum(1 for comps in doc.values() if isinstance(comps, dict) for entries in comps.values()
                         if isinstance(entries, dict) for n, e in entries.items() if n != "total"
                         and (not isinstance(e, dict) or n in ("pragmatics", "lindsea")))
    assert groups_in_file == 6 + 9 + 2
    # every total of the file: 49 competencies, 7 languages and the SEA total, kept as the file's own
    totals = {(s.lang, s.metric): s.value for s in up.summary if s.task == "seahelm:total"}
    n_comps = sum(1 for comps in doc.values() if isinstance(comps, dict) for c in comps.values() if isinstance(c, dict))
    assert len(totals) == n_comps + 7 + 1 == 57
    assert totals[("sea", "sea")] == pytest.approx(doc["total"]) and totals[("th", "knowledge")] == pytest.approx(
        doc["th"]["knowledge"]["total"])
    assert len(up.warnings) == 4 and not up.errors


def test_seahelm_summary_named_like_lm_eval_is_read_by_its_content(index, tmp_path):
    """A `results_*_seahelm_results.json` name starts like lm-eval's results file; the content decides."""
    real = REAL / "seahelm" / "gemma-4-E4B-it_seahelm_results.json"
    path = tmp_path / "results_gemma-4-E4B-it_seahelm_results.json"
    path.write_bytes(real.read_bytes())
    assert detect.detect(path.name, path.read_bytes()) == "seahelm-summary"
    up = read_upload(path, index=index)
    assert not up.errors and up.ok
    # and an lm-eval results file under a SEA-HELM-like name is still lm-eval's
    lm = next((REAL / "lm-eval").glob("results_*.json"))
    assert detect.detect("stub_seahelm_results.json", lm.read_bytes()) == "lm-eval-summary"
