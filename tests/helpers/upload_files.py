"""Builders of realistic result files in each foreign format, from the real items in ../shared/data (test helper).

Layouts as the tools write them (see `tests/helpers/tool_files.py` for the writers each follows): SEA-HELM inference rows
(`aisingapore/SEA-HELM` 6844e6c `base_dataloader.py`; NusaX dataset rows with SEA-HELM's integer ids, 360c7cc
`nlu/sentiment_analysis/data/id_nusax.jsonl`) and its aggregated results JSON (`aggregate_metrics.py`), lm-eval
0.4.13 samples (`xcopa/utils.py`: first letter of each choice lower-cased, premise + connector as context; log-
likelihoods written as strings) and results (`sample_len`, `model_name`).
"""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from evaluator.datasets import load_items
from tests.helpers.samples import SAMPLES

DATA = SAMPLES
PACUTE_SAMPLE = DATA / "pacute" / "results-sample" / "gpt-4.1-nano"

SENTIMENT_WORDS = {"positive": "Positif", "negative": "Negatif", "neutral": "Netral"}
WRONG = {"positive": "Negatif", "negative": "Positif", "neutral": "Positif"}


def jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def seahelm_sentiment_rows(n: int = 10, wrong: tuple[int, ...] = (1, 4, 7), data_dir: Path = DATA) -> list[dict]:
    """SEA-HELM inference rows for the first `n` Indonesian sentiment items; rows in `wrong` answer wrongly."""
    rows = []
    for i, it in enumerate(load_items("sentiment", "id", limit=n, data_dir=data_dir)):
        word = (WRONG if i in wrong else SENTIMENT_WORDS)[it.gold]
        rows.append({
            "id": int(it.item_id.rsplit("-", 1)[-1]), "label": it.gold, "metadata": {"language": "id"},
            "prompts": [{"text": it.inputs["text"]}],
            "responses": [f"Jawaban: {word}"], "cleaned_responses": word,
            "individual_scores": {"normalized_accuracy": 0.0 if i in wrong else 100.0},
            "finish_reasons": ["stop"], "token_usages": [{"prompt_tokens": 120, "completion_tokens": 4}],
            "reasoning_contents": [None], "cumulative_logprobs": [-0.5],
        })
    return rows


def seahelm_results(model: str = "my-model") -> bytes:
    """A results JSON after SEA-HELM's `aggregate_metrics`: `total` keys, non-score keys beside the metrics."""
    entry = {"inference_time_taken": [20.5], "is_cached": [False], "accuracy": 70.0, "macro_f1": 68.0,
             "null_weighted_f1": 68.0, "normalized_accuracy": 55.0, "null_count": 0}
    return json.dumps({"id": {"nlu": {"sentiment": entry, "total": 55.0}, "total": 55.0}, "total": 55.0}).encode()


def lm_eval_mcq_rows(n: int = 8, wrong: tuple[int, ...] = (0, 3)) -> list[dict]:
    """lm-eval log-likelihood rows for PACUTE affixation MCQ; options listed reversed; rows in `wrong` pick a
    wrong option (their highest log-probability is not on the gold)."""
    rows = []
    for i, it in enumerate(load_items("pacute-affixation-mcq", "tl", limit=n, data_dir=DATA)):
        opts = list(reversed(it.options))
        pick = it.gold if i not in wrong else next(o for o in opts if o != it.gold)
        lps = [-1.0 if o == pick else -5.0 for o in opts]
        rows.append({
            "doc_id": i, "doc": {"id": it.item_id, "text_en": it.inputs["text_en"], "options": opts},
            "target": opts.index(it.gold),
            "arguments": {f"gen_args_{k}": {"arg_0": it.inputs["text_en"] + "\nAnswer:", "arg_1": " " + o}
                          for k, o in enumerate(opts)},
            "resps": [[[str(lp), "False"]] for lp in lps], "filtered_resps": [[str(lp), "False"] for lp in lps],
            "filter": "none", "metrics": ["acc"], "doc_hash": "x", "prompt_hash": "y", "target_hash": "z",
            "acc": 0.0 if i in wrong else 1.0,
        })
    return rows


def lm_eval_xcopa_rows(n: int = 6, wrong: tuple[int, ...] = (2,)) -> list[dict]:
    """lm-eval `xcopa_id` log-likelihood rows (choices in XCOPA order, first letter lower-cased as
    `convert_choice` does); no `id` in doc: matched by content."""
    rows = []
    for i, it in enumerate(load_items("causal", "id", limit=n, data_dir=DATA)):
        gold = 0 if it.gold == "A" else 1
        best = 1 - gold if i in wrong else gold
        lps = [-1.0 if k == best else -4.0 for k in range(2)]
        doc = {"premise": it.inputs["premise"], "choice1": it.inputs["choice1"], "choice2": it.inputs["choice2"],
               "question": it.metadata.get("question_original", it.inputs["question"]), "label": gold, "idx": i}
        context = doc["premise"].strip()[:-1] + " " + {"cause": "karena", "effect": "maka"}[doc["question"]]
        rows.append({"doc_id": i, "doc": doc, "target": str(gold),
                     "arguments": {f"gen_args_{k}": {"arg_0": context, "arg_1": " " + c[0].lower() + c[1:]}
                                   for k, c in enumerate((it.inputs["choice1"], it.inputs["choice2"]))},
                     "resps": [[[str(lp), "False"]] for lp in lps], "filtered_resps": [[str(lp), "False"] for lp in lps],
                     "filter": "none", "metrics": ["acc"], "acc": 0.0 if i in wrong else 1.0})
    return rows


def lm_eval_results() -> bytes:
    """`results_{date}.json` as lm-eval 0.4.13 writes it (`sample_len` beside the metrics, `model_name`)."""
    return json.dumps({"results": {"xcopa_id": {"name": "xcopa_id", "alias": "xcopa_id", "sample_len": 6,
                                                "acc,none": 0.8333, "acc_stderr,none": 0.1}},
                       "config": {"model": "hf", "model_args": {"pretrained": "org/lm-model"}},
                       "versions": {"xcopa_id": 1.0}, "model_name": "org/lm-model",
                       "lm_eval_version": "0.4.13"}).encode()


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()
