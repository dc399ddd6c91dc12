"""Native-format prediction files built from our own gold: all right, or all wrong, for every scored cell."""
from __future__ import annotations

import json
from pathlib import Path

from evaluator.datasets import available_cells, load_items
from evaluator.registry import TASKS

LABEL_WORDS = {"positive": "Positive", "negative": "Negative", "neutral": "Neutral", "clean": "Clean",
               "abusive": "Abusive", "hate": "Hate", "offensive": "Offensive", "toxic": "Toxic",
               "non-toxic": "Non-toxic", "true": "True", "false": "False", "yes": "Yes", "no": "No"}
OPPOSITE = {"true": "false", "false": "true", "yes": "no", "no": "yes"}
CLASSIFICATION_EXTRACTORS = ("label", "letter", "true_false", "option_logprob", "pacute_answer")


def _ner_tagged(item) -> str:
    text, out, pos = item.inputs["text"], [], 0
    for e in sorted(item.gold, key=lambda e: e["start"]):
        out += [text[pos:e["start"]], f"@@{e['type']}@@{text[e['start']:e['end']]}##"]
        pos = e["end"]
    return "".join(out + [text[pos:]])


def answer(task, item, order: str, right: bool) -> dict:
    """The `prediction` (and `option_logprobs`) fields of one native row."""
    gold = item.gold
    if task.both_orders and order == "ba":
        gold = {"A": "B", "B": "A"}[gold]
    ex = task.extractor
    if ex == "option_logprob":
        idx = next(i for i, o in enumerate(item.options) if (o == item.gold) == right)
        return {"prediction": None, "option_logprobs": [0.0 if i == idx else -5.0 for i in range(len(item.options))]}
    if ex == "letter":
        letters = task.labels[item.lang]
        return {"prediction": gold if right else next(x for x in letters if x != gold)}
    if ex == "label":
        labels = task.labels[item.lang]
        return {"prediction": LABEL_WORDS[gold if right else next(x for x in labels if x != gold)]}
    if ex == "true_false":
        return {"prediction": LABEL_WORDS[gold if right else OPPOSITE[gold]]}
    if ex == "pacute_answer":
        return {"prediction": f"<answer>{gold.strip() if right else 'qxzvw'}</answer>"}
    if task.name == "ner":
        return {"prediction": _ner_tagged(item) if right else item.inputs["text"]}
    if task.name == "qa":
        return {"prediction": gold[0] if right else "qxzvw"}
    return {"prediction": gold if right else ""}  # n-gram metrics give any non-empty text some credit


def write_predictions(path: Path, data_dir: Path, *, right: bool, extractors=None, limit: int | None = None,
                      prompt_langs=("en",)) -> dict[tuple[str, str], int]:
    """Write a native JSONL file for every available cell (optionally only some extractors); returns item counts."""
    counts = {}
    with path.open("w", encoding="utf-8") as f:
        for task_name, lang in available_cells(data_dir):
            task = TASKS[task_name]
            if not task.metrics or (extractors and task.extractor not in extractors):
                continue
            items = load_items(task, lang, data_dir=data_dir, limit=limit)
            counts[(task_name, lang)] = len(items)
            for item in items:
                for pl in prompt_langs:
                    for order in (("ab", "ba") if task.both_orders else ("ab",)):
                        row = {"task": task_name, "lang": lang, "item_id": item.item_id, "prompt_lang": pl,
                               **answer(task, item, order, right)}
                        if order == "ba":
                            row["order"] = "ba"
                        f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return counts
