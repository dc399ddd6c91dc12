"""Scoring throughput: items/second for each metric family on 10,000 items built from the shared samples.

Each family scores N predictions (the sample items cycled, with realistic outputs: native label words,
tagged NER sentences, titles as summaries, ...) through `score_prediction`, then aggregates the cell with
`aggregate_cell` (bootstrap intervals included). Prints one line per family: scoring items/s and aggregation time.

    python benchmarks/bench_metrics.py [--n 10000] [--data-dir ../shared/data]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.aggregate import aggregate_cell  # noqa: E402
from evaluator.datasets import default_data_dir, load_items  # noqa: E402
from evaluator.registry import get_task  # noqa: E402
from evaluator.scoring import score_prediction  # noqa: E402
from evaluator.spec import Item, Prediction  # noqa: E402

NATIVE = {"positive": "Jawaban: Positif", "negative": "Jawaban: Negatif", "neutral": "Jawaban: Netral"}


def _tag(item: Item) -> str:
    text = str(item.inputs["text"])
    for e in sorted(item.gold, key=lambda e: -e["start"]):
        text = text[:e["start"]] + f"@@{e['type']}@@{text[e['start']:e['end']]}##" + text[e["end"]:]
    return text


def _output(task: str, item: Item, i: int, order: str) -> tuple[str | None, tuple[float, ...] | None]:
    """A plausible output for the item: right about two times in three, with varied formats."""
    wrong = i % 3 == 2
    if task == "sentiment":
        return (NATIVE["negative" if wrong else item.gold] if i % 2 else f"**{item.gold.title()}**"), None
    if task == "causal":  # the position-biased model always says A when wrong
        right = {"A": "B", "B": "A"}[item.gold] if order == "ba" else item.gold
        return f"Jawaban: {'A' if wrong else right}", None
    if task == "nli":
        return f"Jawaban: {'C' if wrong else item.gold}", None
    if task == "qa":
        return (item.inputs["context"][:40] if wrong else f"Answer: {item.gold[0]}"), None
    if task == "ner":
        return (str(item.inputs["text"]) if wrong else _tag(item)), None
    if task.startswith("translation"):
        return str(item.gold)[: len(str(item.gold)) // (2 if wrong else 1)], None
    if task == "abssum":
        return str(item.inputs.get("title", "")), None
    if task.endswith("-mcq"):
        k = len(item.options)
        return None, tuple(-float((j + i) % k) for j in range(k))
    return f"<reflection>...</reflection>\n<answer>{'x' if wrong else item.gold}</answer>", None


FAMILIES = [  # (label, task, lang)
    ("classification: label words + macro-F1", "sentiment", "id"),
    ("choice: letter + accuracy", "nli", "th"),
    ("binary choice, both orders", "causal", "vi"),
    ("QA: SQuAD F1/EM", "qa", "id"),
    ("QA Thai: F1 + newmm F1", "qa", "th"),
    ("NER: tagged output, strict F1", "ner", "id"),
    ("translation: chrF++", "translation-en-xx", "th"),
    ("summarization: ROUGE-L (id)", "abssum", "id"),
    ("summarization: ROUGE-L (th, newmm)", "abssum", "th"),
    ("PACUTE GEN: exact/contains", "pacute-affixation-gen", "tl"),
    ("PACUTE MCQ: log-prob argmax", "pacute-affixation-mcq", "tl"),
]


def bench(label: str, task_name: str, lang: str, n: int, data_dir: Path) -> None:
    task = get_task(task_name)
    items = load_items(task, lang, data_dir=data_dir)
    preds = []
    for i in range(n):
        item = items[(i // 2 if task.both_orders else i) % len(items)]
        order = "ba" if task.both_orders and i % 2 else "ab"
        out, lps = _output(task_name, item, i, order)
        preds.append((item, Prediction(task=task.name, lang=lang, item_id=item.item_id, prompt_lang="native",
                                       output=out, option_logprobs=lps, order=order,
                                       run=1 + i // (len(items) * (2 if task.both_orders else 1)))))
    t0 = time.perf_counter()
    pairs = [(item, score_prediction(task, item, p)) for item, p in preds]
    t1 = time.perf_counter()
    first_run = pairs[: len(items) * (2 if task.both_orders else 1)]  # one run of the sample, as a cell is stored
    cells = aggregate_cell(task, lang, first_run)
    t2 = time.perf_counter()
    head = next(c for c in cells if c.is_headline)
    print(f"{label:42s} {n / (t1 - t0):>10,.0f} items/s   aggregate {len(first_run)} rows {1000 * (t2 - t1):7.0f} ms"
          f"   headline {head.metric}={head.value if head.value is None else round(head.value, 2)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--data-dir", type=Path, default=None)
    args = ap.parse_args()
    data_dir = args.data_dir or default_data_dir()
    print(f"scoring {args.n:,} items per family (data: {data_dir})")
    for label, task, lang in FAMILIES:
        bench(label, task, lang, args.n, data_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
