"""Builders of realistic result files in each foreign format, from the real items in ../shared/data (test helper)."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from evaluator.datasets import load_items
from tests.samples import SAMPLES

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
            "id": it.item_id, "label": it.gold, "metadata": {"language": "id"},
            "prompts": [{"text": it.inputs["text"]}],
            "responses": [f"Jawaban: {word}"], "cleaned_responses": [word],
            "individual_scores": {"normalized_accuracy": 0.0 if i in wrong else 100.0},
            "finish_reasons": ["stop"], "token_usages": [{"prompt_tokens": 120, "completion_tokens": 4}],
            "reasoning_contents": [None], "cumulative_logprobs": [-0.5],
        })
    return rows


def seahelm_results(model: str = "my-model") -> bytes:
    return json.dumps({"id": {"NLU": {"sentiment": {"normalized_accuracy": 55.0, "accuracy": 70.0,
                                                    "null_count": 0}}}}).encode()


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
    """lm-eval `xcopa_id` log-likelihood rows (choices in XCOPA order); no `id` in doc: matched by content."""
    rows = []
    for i, it in enumerate(load_items("causal", "id", limit=n, data_dir=DATA)):
        gold = 0 if it.gold == "A" else 1
        best = 1 - gold if i in wrong else gold
        lps = [-1.0 if k == best else -4.0 for k in range(2)]
        doc = {"premise": it.inputs["premise"], "choice1": it.inputs["choice1"], "choice2": it.inputs["choice2"],
               "question": it.inputs["question"], "label": gold, "idx": i}
        rows.append({"doc_id": i, "doc": doc, "target": gold,
                     "arguments": {f"gen_args_{k}": {"arg_0": it.inputs["premise"], "arg_1": " " + c}
                                   for k, c in enumerate((it.inputs["choice1"], it.inputs["choice2"]))},
                     "resps": [[[lp, False]] for lp in lps], "filtered_resps": [[lp, False] for lp in lps],
                     "filter": "none", "metrics": ["acc"], "acc": 0.0 if i in wrong else 1.0})
    return rows


def lm_eval_results() -> bytes:
    return json.dumps({"results": {"xcopa_id": {"alias": "xcopa_id", "acc,none": 0.8333, "acc_stderr,none": 0.1}},
                       "config": {"model": "hf", "model_args": "pretrained=org/lm-model"},
                       "versions": {"xcopa_id": 1.0}}).encode()


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()
