"""A store whose one MT cell copies 8 references verbatim: the leakage signals' fixture.

Model "Memoriser-7B" answers the 12 demo items of translation-xx-en in Tamil (English prompt): items 1-8 with
their reference word for word (the BHASA Table 27 case), items 9-10 with their Tamil source (a copy baseline:
not leakage), items 11-12 with another item's reference (wrong, not memorised).
"""
from __future__ import annotations

import duckdb

from evaluator.datasets import load_items
from evaluator.registry import TASKS
from evaluator.spec import Item, Prediction
from services.demo import DEMO_DIR

MODEL = "Memoriser-7B"
TASK, LANG, PROMPT = "translation-xx-en", "ta", "en"


def mt_items() -> list[Item]:
    """The demo items of the cell, in file order."""
    return load_items(TASKS[TASK], LANG, data_dir=DEMO_DIR)


def memoriser_outputs(items: list[Item]) -> dict[str, str]:
    """item id -> output as the module doc describes."""
    out = {}
    for i, item in enumerate(items):
        if i < 8:
            out[item.item_id] = item.gold
        elif i < 10:
            out[item.item_id] = item.inputs["text"]
        else:
            out[item.item_id] = items[(i + 3) % len(items)].gold
    return out


def copied_ids(items: list[Item]) -> list[str]:
    """The 8 items whose reference the model copies, sorted."""
    return sorted(it.item_id for it in items[:8])


def ingest_memoriser(con: duckdb.DuckDBPyConnection, model_id: str = MODEL, **card) -> None:
    """Score and store the memoriser's answers through the real pipeline (`services.ingest`)."""
    from services.ingest import ingest_predictions

    items = mt_items()
    outputs = memoriser_outputs(items)
    preds = [Prediction(task=TASK, lang=LANG, item_id=i, prompt_lang=PROMPT, output=o) for i, o in outputs.items()]
    ingest_predictions(con, preds, model={"model_id": model_id, "origin": "uploaded", **card},
                       source={"file": f"{model_id}.jsonl", "kind": "upload", "harness": "tanaw"},
                       data_dir=DEMO_DIR)
