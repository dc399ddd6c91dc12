"""Result files in the layouts SEA-HELM, lm-evaluation-harness and pacute-bench write, built from Tanaw's own items.

Every builder follows the tool's own writer, named in its docstring (repository, file, commit); the texts are
Tanaw's demo items (`data/demo`, written for Tanaw) or the small generated NLI items below, never benchmark data.
`right(i)` says whether the model answers item i correctly: `ALL` gives a perfect-model file, `NONE` an all-wrong
one. Test helper (no test of its own).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from evaluator.datasets import load_items
from evaluator.spec import Item

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"
SEAHELM_HEAD = "aisingapore/SEA-HELM@6844e6c5cae439a413281df31271d388fcbad12f"
SEAHELM_DATA = "aisingapore/SEA-HELM@360c7cc26166487b818bf617b4342c5674e67207"
LM_EVAL = "EleutherAI/lm-evaluation-harness@4e7e0d47 (0.4.13 layout, as in ../shared/data/real-results/lm-eval)"
PACUTE_BENCH = "raileymontalan/pacute-bench@89a610faad84f37b540d6b5ae85638882a8f062f"

ALL: Callable[[int], bool] = lambda i: True  # noqa: E731
NONE: Callable[[int], bool] = lambda i: False  # noqa: E731

NLI_GENERATED = {
    # Written for these tests (two premises, three hypotheses each: the premise alone names no item).
    "th": [("แมวนอนอยู่บนโซฟาในห้องนั่งเล่น", [("มีแมวอยู่บนโซฟา", "entailment"),
                                             ("แมวกำลังวิ่งเล่นอยู่ในสวน", "contradiction"),
                                             ("แมวตัวนี้อายุสามปี", "neutral")]),
           ("ฝนตกหนักทั้งวันเมื่อวานนี้", [("เมื่อวานนี้มีฝนตก", "entailment"),
                                        ("เมื่อวานนี้อากาศแห้งและแดดจัด", "contradiction"),
                                        ("ถนนหลายสายมีน้ำท่วม", "neutral")])],
    "vi": [("Con mèo ngủ trên ghế sofa trong phòng khách.", [("Có một con mèo trên ghế sofa.", "entailment"),
                                                            ("Con mèo đang chạy ngoài vườn.", "contradiction"),
                                                            ("Con mèo này ba tuổi.", "neutral")]),
           ("Hôm qua trời mưa to cả ngày.", [("Hôm qua trời có mưa.", "entailment"),
                                           ("Hôm qua trời khô ráo và nắng gắt.", "contradiction"),
                                           ("Nhiều con đường bị ngập nước.", "neutral")])],
}
NLI_LETTER = {"entailment": "A", "contradiction": "B", "neutral": "C"}


def nli_items(lang: str) -> list[Item]:
    """Generated NLI items (ids `gen-nli-{lang}-{n}`) for the languages lm-eval's XNLI has and the demo data lacks."""
    items = []
    for p, (premise, hyps) in enumerate(NLI_GENERATED[lang]):
        for h, (hypothesis, label) in enumerate(hyps):
            items.append(Item("nli", lang, f"gen-nli-{lang}-{p * 3 + h}",
                              {"premise": premise, "hypothesis": hypothesis, "sentence1": premise,
                               "sentence2": hypothesis}, NLI_LETTER[label], metadata={"label": label}))
    return items


def loader(task: str, lang: str, data_dir=None) -> list[Item]:
    """ItemIndex loader: generated NLI items for th/vi, the demo items otherwise."""
    if task == "nli" and lang in NLI_GENERATED:
        return nli_items(lang)
    return load_items(task, lang, data_dir=DEMO)


def jsonl(rows: list[dict]) -> bytes:
    """JSON Lines as pandas `to_json(orient="records", lines=True, force_ascii=False)` and `json.dumps` write them."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


# ---------------------------------------------------------------- SEA-HELM

SENTIMENT_WORDS = {"id": {"positive": "Positif", "negative": "Negatif", "neutral": "Netral"},
                   "vi": {"positive": "Tích cực", "negative": "Tiêu cực", "neutral": "Trung lập"}}
ANSWER_TAG = {"id": "Jawaban:", "vi": "Câu trả lời:"}
"""Label words and answer tags of SEA-HELM's `nlu/sentiment_analysis/config.yaml` and `nlr/*/config.yaml`."""


def _seahelm_outputs(response: str, score: int) -> dict:
    """The columns SEA-HELM adds to a dataset row (HEAD `base_dataloader.load_model_outputs_into_dataset`: one
    list entry per turn from the vLLM `parse_output` dict; `cleaned_responses` and `individual_scores` from
    `SeaHelmMetric.postprocess_responses` / `F1AccMetric.calculate_metrics`)."""
    return {"finish_reasons": ["stop"], "responses": [response], "reasoning_contents": [None], "custom_ids": [None],
            "token_usages": [{"prompt_tokens": 150, "completion_tokens": 5, "total_tokens": 155}],
            "function_calls": [None], "tool_calls": [None], "logprobs": [None], "errors": [None],
            "tokenized_prompts": [None], "response_tokens": [None], "stop_reasons": [None],
            "cleaned_responses": response.split(":")[-1].strip(), "individual_scores": {"normalized_accuracy": score}}


def seahelm_sentiment(lang: str, right=ALL) -> list[dict]:
    """`{model}_sentiment_{lang}.jsonl` rows. Dataset rows as SEA-HELM's own (SEA-HELM 360c7cc
    `nlu/sentiment_analysis/data/*.jsonl`): Indonesian NusaX rows carry an integer `id`, Vietnamese UIT-VSFC rows
    none; `label` is the English label, the text sits in `prompts[0].text`."""
    words = SENTIMENT_WORDS[lang]
    rows = []
    for i, it in enumerate(load_items("sentiment", lang, data_dir=DEMO)):
        answer = it.gold if right(i) else next(w for w in words if w != it.gold)
        row = {"id": 411 + i} if lang == "id" else {}
        row.update({"label": it.gold, "prompts": [{"text": it.inputs["text"]}], "metadata": {"language": lang}})
        rows.append({**row, **_seahelm_outputs(f"{ANSWER_TAG[lang]} {words[answer]}", int(right(i)))})
    return rows


def seahelm_causal(right=ALL) -> list[dict]:
    """`{model}_causal_id.jsonl` rows: XCOPA dataset rows have no `id`, an integer `label` and the native
    question word in `prompts[0].question_translated` (SEA-HELM 360c7cc `nlr/causal/data/id_xcopa.jsonl`)."""
    rows = []
    for i, it in enumerate(load_items("causal", "id", data_dir=DEMO)):
        letter = it.gold if right(i) else ("B" if it.gold == "A" else "A")
        prompt = {"premise": it.inputs["premise"], "choice1": it.inputs["choice1"], "choice2": it.inputs["choice2"],
                  "question_translated": {"cause": "sebab", "effect": "akibat"}[it.inputs["question"]]}
        rows.append({"label": 0 if it.gold == "A" else 1, "prompts": [prompt],
                     "metadata": {"language": "id", "question": it.inputs["question"]},
                     **_seahelm_outputs(f"Jawaban: {letter}", int(right(i)))})
    return rows


def seahelm_nli(right=ALL) -> list[dict]:
    """`{model}_nli_id.jsonl` rows: no `id`, the label as a word, `prompts[0].sentence1/sentence2` (SEA-HELM 360c7cc
    `nlr/nli/data/id_indonli_lay_1000sample.jsonl`)."""
    rows = []
    for i, it in enumerate(load_items("nli", "id", data_dir=DEMO)):
        letter = it.gold if right(i) else next(x for x in "ABC" if x != it.gold)
        rows.append({"label": it.metadata["label"],
                     "prompts": [{"sentence1": it.inputs["premise"], "sentence2": it.inputs["hypothesis"]}],
                     "metadata": {"language": "id"}, **_seahelm_outputs(f"Jawaban: {letter}", int(right(i)))})
    return rows


def seahelm_minimal_pairs(right=ALL) -> list[dict]:
    """`{model}_mp-r_id.jsonl` rows: integer `id`, the pair shuffled into `prompts[0].sentence_pair`, the gold
    letter in `label` and the sentences in `metadata.correct/wrong` (SEA-HELM 360c7cc
    `lindsea/syntax/data/id_syntax_mcq_randomized.jsonl`)."""
    rows = []
    for i, it in enumerate(load_items("lindsea-mp", "id", data_dir=DEMO)):
        correct, wrong = it.inputs["correct"], it.inputs["wrong"]
        label = "A" if i % 2 == 0 else "B"
        pair = (correct, wrong) if label == "A" else (wrong, correct)
        answer = label if right(i) else ("B" if label == "A" else "A")
        rows.append({"id": i, "label": label, "prompts": [{"sentence_pair": f"A: {pair[0]}\nB: {pair[1]}"}],
                     "metadata": {"language": "id", "linguistic_phenomenon": it.metadata.get("phenomenon", ""),
                                  "correct": correct, "wrong": wrong, "shuffled": label == "B"},
                     **_seahelm_outputs(f"Jawaban: {answer}", int(right(i)))})
    return rows


def seahelm_batch_response(rows: list[dict]) -> list[dict]:
    """`{model}_{task}_{lang}_turn1_batch_response.jsonl`: the serving `parse_output` dicts, one per row
    (HEAD `default_inference_strategy.run_inference`)."""
    return [{"finish_reasons": "stop", "responses": r["responses"][0], "reasoning_contents": None,
             "custom_ids": None, "token_usages": r["token_usages"][0], "function_calls": None, "tool_calls": None,
             "logprobs": None, "errors": None} for r in rows]


def _task_entry(metric: str, value: float, extra: dict | None = None) -> dict:
    """A task entry of the results JSON (HEAD `run_evaluation` + `F1AccMetric.calculate_metrics`)."""
    return {"inference_time_taken": [12.5], "is_cached": [False], "accuracy": value, "macro_f1": value,
            "null_weighted_f1": value, metric: value, "null_count": 0, **(extra or {})}


def _failed(metric: str) -> dict:
    """A failed task entry (HEAD `run_single_task_evaluation`, except branch)."""
    return {"inference_time_taken": [], "is_cached": [False], metric: 0, "error": "Failed to run evaluation for task"}


def seahelm_results(value: float = 100.0, *, failed: tuple[str, ...] = ()) -> dict:
    """`{model}_seahelm_results_{datetime}.json` after `aggregate_metrics` (HEAD `src/aggregate_metrics.py`):
    `total` at every level, `translations` aggregation group, `pragmatics`/`lindsea` nodes. Tasks named in
    `failed` carry SEA-HELM's error entry; `tl` sentiment exists in SEA-HELM but not in Tanaw."""
    def task(name, metric="normalized_accuracy"):
        return _failed(metric) if name in failed else _task_entry(metric, value)
    doc = {
        "id": {
            "nlu": {"sentiment": task("sentiment"), "qa": _failed("normalized_f1") if "qa" in failed else
                    {"inference_time_taken": [3.0], "is_cached": [True], "f1": value, "normalized_f1": value},
                    "metaphor": task("metaphor"), "total": value},
            "nlr": {"causal": task("causal"), "nli": task("nli"), "total": value},
            "nlg": {"translation-en-xx": task("translation-en-xx", "normalized_metricx_wmt24_scores"),
                    "translation-xx-en": task("translation-xx-en", "normalized_metricx_wmt24_scores"),
                    "translations": value, "total": value},
            "linguistic-diagnostics": {
                "mp-r": task("mp-r"), "pragmatic-single": task("pragmatic-single"),
                "pragmatic-pair": task("pragmatic-pair"),
                "pragmatics": {"subcategories": {"scalar_implicatures": {"accuracy": 1.0, "correct_count": 10,
                                                                         "total_count": 10}},
                               "accuracy": value, "normalized_accuracy": value},
                "lindsea": {"normalized_score": value, "subcategories": {}}, "total": value},
            "total": value},
        "tl": {"nlu": {"sentiment": task("sentiment"), "total": value}, "total": value},
        "total": value,
    }
    return doc


# ---------------------------------------------------------------- lm-evaluation-harness

XCOPA_CONNECTOR = {"id": {"cause": "karena", "effect": "maka"}}
"""lm-eval `tasks/xcopa/utils.py` `doc_to_text_id` connectors."""
XNLI_WORDS = {"th": ("ถูกต้อง", "ใช่", "ดังนั้น", "ไม่"), "vi": ("đúng", "Vâng", "Vì vậy", "Không")}
"""lm-eval `tasks/xnli/utils.py` LANGUAGES: QUESTION_WORD, ENTAILMENT, NEUTRAL, CONTRADICTION labels."""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _lm_eval_row(doc_id: int, doc: dict, target: int, pairs: list[tuple[str, str]], lps: list[float]) -> dict:
    """One multiple-choice sample as `EvaluationTracker.save_results_samples` writes it (0.4.13): log-likelihood
    responses as `[str(logprob), str(is_greedy)]`, `acc` from `process_results` (first arg-max)."""
    best = max(range(len(lps)), key=lambda i: (lps[i], -i))
    return {"doc_id": doc_id, "doc": doc, "target": str(target),
            "arguments": {f"gen_args_{k}": {"arg_0": ctx, "arg_1": cont} for k, (ctx, cont) in enumerate(pairs)},
            "resps": [[[str(lp), "False"]] for lp in lps], "filtered_resps": [[str(lp), "False"] for lp in lps],
            "filter": "none", "metrics": ["acc"], "doc_hash": _sha(json.dumps(doc)), "prompt_hash": _sha(pairs[0][0]),
            "target_hash": _sha(str(target)), "acc": float(best == target)}


def lm_eval_xcopa(right=ALL) -> list[dict]:
    """`samples_xcopa_id_{date}.jsonl`: `doc_to_text` = premise without its final period + connector,
    `doc_to_choice` = both choices with the first letter lower-cased (`convert_choice`), target = `label`."""
    rows = []
    for i, it in enumerate(load_items("causal", "id", data_dir=DEMO)):
        label = 0 if it.gold == "A" else 1
        doc = {"premise": it.inputs["premise"], "choice1": it.inputs["choice1"], "choice2": it.inputs["choice2"],
               "question": it.inputs["question"], "label": label, "idx": i}
        ctx = doc["premise"].strip()[:-1] + f" {XCOPA_CONNECTOR['id'][doc['question']]}"
        choices = [c[0].lower() + c[1:] for c in (doc["choice1"], doc["choice2"])]
        best = label if right(i) else 1 - label
        rows.append(_lm_eval_row(i, doc, label, [(ctx, " " + c) for c in choices],
                                 [-2.0 if k == best else -9.0 for k in range(2)]))
    return rows


def lm_eval_xnli(lang: str, right=ALL) -> list[dict]:
    """`samples_xnli_{lang}_{date}.jsonl`: empty context, three continuations
    `premise + ", QUESTION? WORD, " + hypothesis` in the order entailment, neutral, contradiction (label 0/1/2 as
    the HF XNLI columns); no id in the doc."""
    question, *words = XNLI_WORDS[lang]
    order = ("entailment", "neutral", "contradiction")
    rows = []
    for i, it in enumerate(nli_items(lang)):
        label = order.index(it.metadata["label"])
        doc = {"premise": it.inputs["premise"], "hypothesis": it.inputs["hypothesis"], "label": label}
        conts = [" " + doc["premise"] + f", {question}? {w}, " + doc["hypothesis"] for w in words]
        best = label if right(i) else (label + 1) % 3
        rows.append(_lm_eval_row(i, doc, label, [("", c) for c in conts],
                                 [-3.0 if k == best else -11.0 for k in range(3)]))
    return rows


def lm_eval_results(accs: dict[str, float]) -> dict:
    """`results_{date}.json` (0.4.13): per task `name`, `alias`, `sample_len`, `acc,none`, `acc_stderr,none`."""
    return {"results": {t: {"name": t, "alias": t, "sample_len": 6, "acc,none": a, "acc_stderr,none": 0.1}
                        for t, a in accs.items()},
            "config": {"model": "local-completions", "model_args": {"model": "demo-model"}},
            "model_name": "demo-model", "lm_eval_version": "0.4.13"}


# ---------------------------------------------------------------- pacute-bench

def pacute_mcq(right=ALL, *, rename: dict[str, str] | None = None) -> list[dict]:
    """`inference/hierarchical-mcq.jsonl`: `_async_mcq` detail rows. The loader (`loaders/hierarchical.py`) takes
    `options[0]` as ground truth and the rest as distractors, each scored as `prefix + " " + option`; rows are
    sorted by id (`run_evaluation.py`). A right model gives our gold (the item's `answer`) the highest
    log-probability. `rename` replaces option texts (a file whose options are not ours)."""
    rows = []
    for i, it in enumerate(load_items("pacute-hierarchical-mcq", "tl", data_dir=DEMO)):
        options = [(rename or {}).get(o, o) for o in it.options]
        wrong = next(o for o in it.options if o != it.gold)
        pick = it.gold if right(i) else wrong
        lps = [-0.5 if o == pick else -4.0 - k for k, o in enumerate(it.options)]
        best = max(range(len(lps)), key=lambda k: lps[k])
        rows.append({"id": it.item_id, "category": f"{it.metadata.get('category', '')}", "question": it.inputs["text_tl"],
                     "ground_truth": options[0], "options": options, "predicted_idx": best,
                     "predicted_answer": options[best], "is_correct": best == 0, "logprobs": lps})
    return sorted(rows, key=lambda r: r.get("id", ""))


def pacute_gen(right=ALL) -> list[dict]:
    """`inference/hierarchical-gen.jsonl`: generative rows (`_async_gen` detail; response lower-cased)."""
    rows = []
    for i, it in enumerate(load_items("pacute-hierarchical-gen", "tl", data_dir=DEMO)):
        gold = str(it.gold).strip().lower()
        response = gold if right(i) else gold + "x"
        rows.append({"id": it.item_id, "category": "recognition", "question": it.inputs["text_tl"],
                     "ground_truth": gold, "response": response, "thinking_trace": "", "reflection": "",
                     "answer": response, "exact_match": response == gold, "contains_match": gold in response,
                     "prefix_match": response.startswith(gold)})
    return rows


def pacute_results(acc: float, exact: float) -> dict:
    """`evaluation_results_{timestamp}.json` (`scripts/run_evaluation.py`): per model, benchmarks' scores 0-1."""
    return {"hf_model_name": "demo/model", "model_type": "pt",
            "benchmarks": {"hierarchical-mcq": {"accuracy": acc, "f1_score": 2 * acc / (1 + acc), "precision": 1.0,
                                                "recall": acc, "path_confidence": 0.5, "normalized_accuracy": acc,
                                                "num_options": 4, "num_samples": 10, "format": "mcq"},
                           "hierarchical-gen": {"num_samples": 10, "exact_match": exact, "contains_match": exact,
                                                "prefix_match": exact, "format": "generative"}},
            "timestamp": "20261130_110000"}


SEAHELM_SUITE = {
    "id": {"nlu": ["sentiment", "qa", "metaphor"], "safety": ["toxicity"],
           "nlg": ["translation-en-xx", "translation-xx-en", "abssum"], "nlr": ["causal", "nli"],
           "linguistic-diagnostics": ["syntax-criteria", "mp-r", "pragmatic-single", "pragmatic-pair"],
           "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"], "knowledge": ["global_mmlu_lite"]},
    "vi": {"nlu": ["sentiment", "qa"], "safety": ["toxicity"], "nlg": ["translation-en-xx", "translation-xx-en", "abssum"],
           "nlr": ["causal", "nli"], "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"],
           "knowledge": ["global_mmlu_lite"]},
    "th": {"nlu": ["sentiment", "qa"], "safety": ["toxicity"], "nlg": ["translation-en-xx", "translation-xx-en", "abssum"],
           "nlr": ["causal", "nli"], "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"],
           "knowledge": ["thai_exam_a_level", "thai_exam_onet"]},
    "ta": {"nlu": ["sentiment", "qa"], "nlg": ["translation-en-xx", "translation-xx-en", "abssum"],
           "nlr": ["causal", "nli"], "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"],
           "linguistic-diagnostics": ["mp-r", "pragmatic-single", "pragmatic-pair"]},
    "tl": {"nlu": ["sentiment", "belebele-qa-mc"], "safety": ["toxicity"],
           "nlg": ["translation-en-xx", "translation-xx-en", "abssum"], "nlr": ["causal", "nli"],
           "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"], "cultural": ["kalahi-mc", "kalahi-judge"],
           "knowledge": ["global_mmlu_lite"]},
    "ms": {"nlu": ["sentiment", "belebele-qa-mc"], "safety": ["toxicity"], "nlg": ["translation-en-xx", "translation-xx-en"],
           "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"], "knowledge": ["global_mmlu_lite"]},
    "my": {"nlu": ["sentiment", "belebele-qa-mc"], "safety": ["toxicity"],
           "nlg": ["translation-en-xx", "translation-xx-en", "abssum"], "nlr": ["causal", "nli"],
           "instruction-following": ["if-eval"], "knowledge": ["global_mmlu_lite"]},
}
"""SEA-HELM's default suite (`seahelm_tasks/task_config.yaml` `seahelm` at 6844e6c) by language and competency
(each task's `config.yaml` `competency`), with the task names a results file uses (`mt-bench`, ThaiExam's parts)."""
SEAHELM_METRIC = {"qa": "normalized_f1", "translation-en-xx": "normalized_metricx_wmt24_scores",
                  "translation-xx-en": "normalized_metricx_wmt24_scores", "abssum": "normalized_rougel_f1",
                  "if-eval": "overall_lang_normalized_acc", "mt-bench": "weighted_win_rate",
                  "syntax-criteria": "average_criteria_score", "kalahi-judge": "average_criteria_score"}
"""Headline metrics that are not `normalized_accuracy` (the tasks' `config.yaml` `metric` at 6844e6c)."""
SEAHELM_VALUES = {"sentiment": 20.0, "syntax-criteria": 0.0}
"""Scores of the suite file that are not 50 (syntax-criteria is outside SEA-HELM's linguistic-diagnostics total)."""
SEAHELM_SUITE_TOTALS = {"id": 48.75, "vi": 335 / 7, "th": 335 / 7, "ta": 47.5, "tl": 48.125, "ms": 47.5, "my": 47.5}
"""Language totals of `seahelm_suite_results` by hand: every competency 50 but NLU (sentiment 20 with the other
NLU tasks at 50): id NLU (20 + 50 + 50) / 3 = 40 over 8 competencies → (40 + 7 × 50) / 8 = 48.75; vi, th NLU 35
over 7 → 335 / 7; ta, ms, my 35 over 6 → 47.5; tl 35 over 8 → 48.125."""


def seahelm_suite_results(langs=tuple(SEAHELM_SUITE)) -> dict:
    """A results file of SEA-HELM's whole default suite in `langs` (the layout of `aggregate_metrics` at 6844e6c:
    `translations` and `thai_exam` group nodes, `pragmatics` and `lindsea` nodes, `total` at every level), its
    totals the hand-computed `SEAHELM_SUITE_TOTALS`."""
    doc: dict = {}
    for lang in langs:
        doc[lang] = {}
        for comp, tasks in SEAHELM_SUITE[lang].items():
            node = {t: _task_entry(SEAHELM_METRIC.get(t, "normalized_accuracy"), SEAHELM_VALUES.get(t, 50.0))
                    for t in tasks}
            if "translation-en-xx" in tasks:
                node["translations"] = 50.0
            if "thai_exam_onet" in tasks:
                node["thai_exam"] = 50.0
            if "pragmatic-pair" in tasks:
                node["pragmatics"] = {"subcategories": {}, "accuracy": 75.0, "normalized_accuracy": 50.0}
                node["lindsea"] = {"normalized_score": 50.0, "subcategories": {}}
            node["total"] = 40.0 if comp == "nlu" and lang == "id" else 35.0 if comp == "nlu" else 50.0
            doc[lang][comp] = node
        doc[lang]["total"] = SEAHELM_SUITE_TOTALS[lang]
    doc["total"] = sum(doc[lang]["total"] for lang in langs) / len(langs)
    return doc
