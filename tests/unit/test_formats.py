"""Foreign result formats: detection, parsing, mapping onto our items, and re-scoring with our metrics."""
from __future__ import annotations

import json

import pytest

from evaluator.datasets import load_items
from evaluator.formats import detect
from evaluator.formats.archive import run_number
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from tests.helpers import upload_files as U

pytestmark = pytest.mark.needs_samples


@pytest.fixture(scope="module")
def index():
    return ItemIndex(U.DATA)


def _mean(preds, metric):
    """Mean of `metric` over predictions, scored by our own scoring against our items."""
    vals = []
    for p in preds:
        item = {i.item_id: i for i in load_items(p.task, p.lang, data_dir=U.DATA)}[p.item_id]
        vals.append(score_prediction(get_task(p.task), item, p).scores[metric])
    return sum(vals) / len(vals)


def test_detection_by_name_and_content():
    seahelm = U.jsonl(U.seahelm_sentiment_rows(1))
    assert detect.detect("m_sentiment_id.jsonl", seahelm) == "seahelm"
    assert detect.detect("samples_xcopa_id_2026-01-02T03-04-05.123.jsonl", b"{}") == "lm-eval"
    assert detect.detect("x.jsonl", U.jsonl(U.lm_eval_xcopa_rows(1))) == "lm-eval"
    assert detect.detect("hierarchical-gen.jsonl", (U.PACUTE_SAMPLE / "inference/hierarchical-gen.jsonl")
                         .read_bytes()[:5000]) == "pacute-bench"
    assert detect.detect("evaluation_results_1.json", b"{}") == "pacute-bench-summary"
    assert detect.detect("results_2026-01-01T00-00-00.json", U.lm_eval_results()) == "lm-eval-summary"
    assert detect.detect("m_seahelm_results.json", U.seahelm_results()) == "seahelm-summary"
    assert detect.detect("anything.json", U.seahelm_results()) == "seahelm-summary"
    assert detect.detect("a.zip", b"PK\x03\x04") == "archive"
    assert detect.resolve("lm-eval", "r.json", b"{}") == "lm-eval-summary"


def test_pacute_bench_real_folder_maps_every_row(index):
    up = read_upload(U.PACUTE_SAMPLE, index=index)
    assert up.ok, up.errors
    assert up.model_hint == "gpt-4.1-nano"
    assert len(up.predictions) == 5940 and not up.warnings
    assert len(up.summary) == 24  # 8 benchmarks x exact/contains/prefix, self-reported
    by_task = {}
    for p in up.predictions:
        by_task.setdefault(p.task, []).append(p)
    # composition ids are "pacute_gen_NNNNN" in the file (not ours): every row matched by input content
    comp = by_task["pacute-composition-gen"]
    assert len(comp) == 500 and len({p.item_id for p in comp}) == 500
    # hierarchical questions are the Filipino prompts: asked natively
    assert {p.prompt_lang for p in by_task["pacute-hierarchical-gen"]} == {"native"}
    assert {p.prompt_lang for p in comp} == {"en"}
    # our re-scoring of the raw responses agrees with pacute-bench's own exact match here (449/500)
    assert _mean(comp, "exact_match") == pytest.approx(0.898)
    assert comp[0].self_reported["exact_match"] in (0.0, 1.0)


def test_seahelm_inference_rescored_and_self_reported_kept_apart(index):
    rows = U.seahelm_sentiment_rows(10, wrong=(1, 4, 7))
    rows[3] = {**rows[3], "id": "renamed-3"}  # an id we do not know: matched by the input text
    name = "inferences/id/sentiment/my-model_sentiment_id.jsonl"
    up = read_upload(U.jsonl(rows), name, index=index)
    assert up.ok, up.errors
    assert up.model_hint == "my-model"
    assert len(up.predictions) == 10
    assert {p.prompt_lang for p in up.predictions} == {"native"}
    assert _mean(up.predictions, "accuracy") == pytest.approx(0.7)
    assert up.predictions[0].self_reported == {"normalized_accuracy": 100.0}
    assert up.predictions[0].tokens_out == 4 and up.predictions[0].finish_reason == "stop"
    assert any("incomplete run" in w.problem and "10 of 100" in w.problem for w in up.warnings)


def test_seahelm_summary_is_self_reported(index):
    up = read_upload(U.seahelm_results(), "my-model_seahelm_results.json", index=index)
    assert up.ok and up.model_hint == "my-model"
    assert {(s.task, s.lang, s.metric, s.value) for s in up.summary} >= {("sentiment", "id", "accuracy", 70.0)}


def test_lm_eval_loglikelihood_aligned_to_our_options(index):
    rows = U.lm_eval_mcq_rows(8, wrong=(0, 3))
    up = read_upload(U.jsonl(rows), "samples_affixation_mcq_2026-03-01T10-00-00.000.jsonl", index=index)
    assert up.ok, up.errors
    assert len(up.predictions) == 8
    assert _mean(up.predictions, "mcq_acc") == pytest.approx(6 / 8)
    assert up.predictions[1].self_reported == {"acc": 1.0}


def test_lm_eval_xcopa_by_content_to_letters(index):
    up = read_upload(U.jsonl(U.lm_eval_xcopa_rows(6, wrong=(2,))), "samples_xcopa_id_2026-03-01T10-00-00.jsonl",
                     index=index)
    assert up.ok, up.errors
    assert [p.task for p in up.predictions] == ["causal"] * 6
    assert _mean(up.predictions, "accuracy") == pytest.approx(5 / 6)
    res = read_upload(U.lm_eval_results(), "results_2026-03-01T10-00-00.json", index=index)
    assert res.model_hint == "org/lm-model"
    assert [(s.task, s.lang, s.metric, s.value) for s in res.summary] == [("causal", "id", "acc,none", 0.8333)]


def test_zip_keeps_run_numbers_and_reports_unmatched(index):
    rows = U.seahelm_sentiment_rows(4, wrong=())
    bad = {**rows[0], "id": "nope", "prompts": [{"text": "not one of our sentences"}]}
    files = {f"run_{n}/inferences/id/sentiment/m_sentiment_id.jsonl": U.jsonl(rows + ([bad] if n == 2 else []))
             for n in (1, 2)}
    up = read_upload(U.zip_bytes(files), "results.zip", index=index)
    assert up.ok, up.errors
    assert sorted({p.run for p in up.predictions}) == [1, 2] and len(up.predictions) == 8
    unmatched = [w for w in up.warnings if "id 'nope'" in w.problem and w.problem.startswith("1 row(s)")]
    assert len(unmatched) == 1 and unmatched[0].line == 5 and unmatched[0].file.startswith("results.zip!run_2/")


def test_duplicates_and_unknown_tasks_are_warnings(index):
    rows = U.seahelm_sentiment_rows(3, wrong=())
    up = read_upload(U.jsonl(rows + [rows[0]]), "m_sentiment_id.jsonl", index=index)
    assert len(up.predictions) == 3
    assert any("duplicate of line 1" in w.problem and w.line == 4 for w in up.warnings)
    unknown = read_upload(U.jsonl(rows), "m_nosuchtask_id.jsonl", index=index)
    assert not unknown.ok and any("unknown SEA-HELM task 'nosuchtask'" in w.problem for w in unknown.warnings)
    # a SEA-HELM task Tanaw does not score: not re-scored, its rows' own scores kept apart under its version
    judged = read_upload(U.jsonl(U.seahelm_sentiment_rows(3, wrong=(1,))), "m_syntax-criteria_id.jsonl", index=index)
    assert judged.ok and not judged.predictions
    assert any(w.problem.startswith("Tanaw has no task 'syntax-criteria': 3 rows not re-scored") for w in judged.warnings)
    assert [(s.task, s.lang, s.metric, s.value) for s in judged.summary] == [
        ("seahelm:syntax-criteria:v1", "id", "item_mean_normalized_accuracy", pytest.approx(200 / 3))]


def test_run_number_from_path():
    assert run_number("a/run_3/inferences/x.jsonl") == 3
    assert run_number("run-2/x.jsonl") == 2 and run_number("x.jsonl") == 1


def test_errors_name_file_line_and_field(index):
    rows = U.seahelm_sentiment_rows(2, wrong=())
    rows[1]["token_usages"] = [{"prompt_tokens": "many"}]
    data = U.jsonl(rows) + b'{"id": 5, "responses": [NaN]}\n'
    up = read_upload(data, "m_sentiment_id.jsonl", index=index)
    assert not up.ok
    msgs = [str(e) for e in up.errors]
    assert "m_sentiment_id.jsonl:2: token_usages[0].prompt_tokens: expected a non-negative integer, got a string" in msgs
    assert any(m.startswith("m_sentiment_id.jsonl:3: not valid JSON") and "NaN" in m for m in msgs)
    assert json.loads(U.jsonl(rows).splitlines()[0])["id"]


def test_lm_eval_generation_rows_both_resps_layouts(index):
    items = load_items("sentiment", "th", limit=4, data_dir=U.DATA)
    words = {"positive": "Positive", "negative": "Negative", "neutral": "Neutral"}
    rows = [{"doc_id": i, "doc": {"id": it.item_id, "text": it.inputs["text"]}, "target": it.gold,
             "arguments": {"gen_args_0": {"arg_0": "prompt", "arg_1": {"until": ["\n"]}}},
             # lm-eval < 0.7 writes [["text"]]; 0.7 flattens a single instance to ["text"]
             "resps": [[words[it.gold]]] if i % 2 else [words[it.gold] if i else "Negative?"],
             "filtered_resps": [words[it.gold]], "filter": "none", "metrics": ["exact_match"], "exact_match": 1.0}
            for i, it in enumerate(items)]
    up = read_upload(U.jsonl(rows), "samples_sentiment_th_2026-03-01T10-00-00.123456.jsonl", index=index)
    assert up.ok, up.errors
    assert [p.output for p in up.predictions][1:] == [words[it.gold] for it in items][1:]
    expected = (3 + (items[0].gold == "negative")) / 4
    assert _mean(up.predictions, "accuracy") == pytest.approx(expected)


def test_task_names_of_other_harnesses():
    from evaluator.formats import lm_eval, pacute_bench, seahelm

    assert seahelm.our_task("mp-r") == "lindsea-mp" and seahelm.our_task("sentiment") == "sentiment"
    assert seahelm.split_name("org_My_Model-7B_translation-en-xx_th.jsonl") == ("org_My_Model-7B",
                                                                                "translation-en-xx", "th")
    assert lm_eval.our_cell("xcopa_th") == ("causal", "th") and lm_eval.our_cell("xnli_vi") == ("nli", "vi")
    assert lm_eval.our_cell("affixation_mcq") == ("pacute-affixation-mcq", "tl")
    assert lm_eval.our_cell("mmlu") is None
    assert pacute_bench.task_for_benchmark("multi-digit-addition-gen") == "pacute-mda-gen"
    mcq = pacute_bench.parse_inference(b'{"id": "x"}\n', "pacute-affixation-mcq.jsonl")
    assert not mcq.rows and str(mcq.errors[0]) == "pacute-affixation-mcq.jsonl:1: options: missing"


def test_pretty_printed_summary_detected_by_content(index):
    doc = json.dumps(json.loads(U.seahelm_results()), indent=2).encode()
    up = read_upload(doc, "scores.json", index=index)
    assert up.ok and up.formats == ["seahelm-summary"]


def test_seahelm_binary_choice_with_swapped_options_is_order_ba(index):
    items = load_items("lindsea-mp", "id", limit=2, data_dir=U.DATA)
    rows = [{"id": it.item_id, "label": label, "prompts": [{"correct": it.inputs["correct"], "wrong": it.inputs["wrong"]}],
             "responses": [f"Jawaban: {label}"], "individual_scores": {"accuracy": 1}}
            for it, label in zip(items, ("A", "B"))]
    up = read_upload(U.jsonl(rows), "m_mp-r_id.jsonl", index=index)
    assert up.ok, up.errors
    assert [(p.task, p.order) for p in up.predictions] == [("lindsea-mp", "ab"), ("lindsea-mp", "ba")]
    assert _mean(up.predictions, "accuracy") == 1.0  # both answered the correct sentence
