"""A small DuckDB store for page tests, built through the real scoring path (`services.ingest`).

Three models answer the fixture items written for Tanaw (`tests/helpers/fixture_data.py`: LINDSEA, PACUTE, cultural, BHASA
sentiment) in English and native prompts. Whether an answer is right follows a fixed rule, so tests can compute every figure by hand:
item number `i` of a (model, task, prompt language) list is right when `(i + shift) % 10 < RIGHT_OF_10[...]`;
for option order "ba" the shift is 3. Every 7th answer of "Gemma-2B" is unparseable prose.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

import pytest

from evaluator.datasets import load_items
from evaluator.registry import TASKS, get_task
from evaluator.scoring import gold_for, score_prediction
from evaluator.spec import Item, Prediction
from tests.helpers import fixture_data

DATA_DIR = fixture_data.data_dir()

MODELS = {
    "SeaLion-9B-it": dict(family="SEA-LION", organisation="AI Singapore", params_b=9.0, model_type="instruct",
                          weights="open", sea_tuned=True, licence="gemma", url="https://example.org/sealion"),
    "Gemma-2B": dict(family="Gemma", organisation="Google", params_b=2.0, model_type="base", weights="open",
                     sea_tuned=False, licence="gemma", url="https://example.org/gemma"),
    "Closed-XL": dict(family="Closed", organisation="Example Corp", params_b=None, model_type="instruct",
                      weights="closed", sea_tuned=False, licence="proprietary", url="https://example.org/closed"),
}
"""Model metadata as the pipeline's `model` dict (minus model_id)."""

RIGHT_OF_10 = {
    # (model, task family or task) -> right answers per 10, en and native prompt
    ("SeaLion-9B-it", "lindsea"): (8, 9), ("Gemma-2B", "lindsea"): (5, 4), ("Closed-XL", "lindsea"): (9, 7),
    ("SeaLion-9B-it", "pacute"): (6, 7), ("Gemma-2B", "pacute"): (2, 2), ("Closed-XL", "pacute"): (9, 8),
    ("SeaLion-9B-it", "sentiment"): (7, 8), ("Gemma-2B", "sentiment"): (4, 3), ("Closed-XL", "sentiment"): (9, 9),
}
"""Right answers out of every 10, per model and task family, as (English prompt, native prompt)."""

PACUTE_LEVEL_RIGHT = {"Gemma-2B": (6, 5, 2, 2, 3, 2)}
"""Hierarchy overrides: right answers per 10 at L0-L5 (Gemma collapses at L2, as in the paper)."""

CELLS = (
    # task, lang, items (limit or every-nth sample of the full list), prompt languages
    ("lindsea-mp", "id", ("limit", 40), ("en", "native")),
    ("lindsea-mp", "ta", ("limit", 30), ("en", "native")),
    ("lindsea-pragmatic-pair", "id", ("limit", 20), ("en", "native")),
    ("pacute-hierarchical-mcq", "tl", ("every", 10), ("en", "native")),
    ("pacute-hierarchical-gen", "tl", ("every", 10), ("en", "native")),
    ("pacute-affixation-mcq", "tl", ("limit", 20), ("en", "native")),
    ("pacute-langgame-mcq", "tl", ("limit", 20), ("en",)),
    ("pacute-mda-mcq", "tl", ("limit", 20), ("en",)),
    ("sentiment", "th", ("limit", 20), ("en", "native")),
    ("cultural-representation", "id", ("limit", 4), ("native",)),
    ("cultural-representation", "ta", ("limit", 4), ("native",)),
)
"""Which items each model answers."""

UNSAFE_OUTPUT = "<script>alert('x')</script> **not bold**"
"""A cultural response that must be shown as text, never rendered."""


def cell_items(task: str, lang: str, sample: tuple[str, int]) -> list[Item]:
    """The fixture's items of one cell, in order."""
    kind, k = sample
    if kind == "limit":
        return load_items(task, lang, data_dir=DATA_DIR, limit=k)
    return load_items(task, lang, data_dir=DATA_DIR)[::k]


def right_of_10(model: str, task: str, prompt_lang: str, item: Item) -> int:
    """How many of every 10 answers are right for this model, task and prompt language (and PACUTE level)."""
    family = "sentiment" if task == "sentiment" else task.split("-")[0]
    if task.startswith("pacute-hierarchical") and model in PACUTE_LEVEL_RIGHT:
        return PACUTE_LEVEL_RIGHT[model][int(item.metadata["level"])]
    return RIGHT_OF_10[(model, family)][0 if prompt_lang == "en" else 1]


def is_right(model: str, task: str, prompt_lang: str, index: int, item: Item, order: str = "ab") -> bool:
    """The fixture's rule: answer `index` of a cell is right when (index + shift) % 10 < right_of_10."""
    shift = 3 if order == "ba" else 0
    return (index + shift) % 10 < right_of_10(model, task, prompt_lang, item)


def is_unparsed(model: str, index: int) -> bool:
    """Every 7th answer of Gemma-2B is prose without an answer."""
    return model == "Gemma-2B" and index % 7 == 6


def _output(model: str, task: str, item: Item, pred_gold, right: bool, unparsed: bool, index: int) -> dict:
    """Prediction fields (output / option_logprobs) that the task's extractor reads as right or wrong."""
    spec = get_task(task)
    if spec.mode == "choice_logprob":
        k = len(item.options)
        gold_idx = item.options.index(item.gold)
        pick = gold_idx if right else (gold_idx + 1) % k
        if not right and item.options[pick] == item.gold:  # duplicate option strings
            pick = next(j for j, o in enumerate(item.options) if o != item.gold)
        return {"output": None, "option_logprobs": tuple(-1.0 if j == pick else -5.0 - j for j in range(k))}
    if unparsed:
        return {"output": "Hmm, both could be fine depending on context."}
    if spec.mode == "open":
        text = UNSAFE_OUTPUT if (model == "Gemma-2B" and index == 0) else f"{model} explains: {item.inputs['target']}"
        return {"output": text}
    if spec.extractor == "letter":
        return {"output": pred_gold if right else {"A": "B", "B": "A"}[pred_gold]}
    if spec.extractor == "true_false":
        return {"output": pred_gold.capitalize() if right else ("False" if pred_gold == "true" else "True")}
    if spec.extractor == "label":
        wrong = next(lab for lab in spec.labels[item.lang] if lab != pred_gold)
        return {"output": (pred_gold if right else wrong).capitalize()}
    if spec.extractor == "pacute_answer":
        return {"output": f"<answer>{pred_gold if right else 'mali'}</answer>"}
    raise ValueError(f"fixture has no output rule for {task}")


def predictions(model: str) -> list[Prediction]:
    """Every prediction of one model over the fixture's cells."""
    out = []
    for task, lang, sample, prompt_langs in CELLS:
        spec = get_task(task)
        orders = ("ab", "ba") if spec.both_orders else ("ab",)
        for prompt_lang in prompt_langs:
            for i, item in enumerate(cell_items(task, lang, sample)):
                for order in orders:
                    probe = Prediction(task=task, lang=lang, item_id=item.item_id, prompt_lang=prompt_lang,
                                       output=None, order=order)
                    right = spec.mode == "open" or is_right(model, task, prompt_lang, i, item, order)
                    unparsed = spec.mode not in ("open", "choice_logprob") and is_unparsed(model, i)
                    fields = _output(model, task, item, gold_for(spec, item, probe), right, unparsed, i)
                    out.append(Prediction(task=task, lang=lang, item_id=item.item_id, prompt_lang=prompt_lang,
                                          order=order, prompt=f"[{prompt_lang} prompt for {item.item_id}]",
                                          **fields))
    return out


def cell_pairs(model: str, task: str, lang: str, prompt_lang: str) -> list:
    """(Item, ItemResult) of one cell, scored here by the evaluator from the fixture's own predictions."""
    items = {it.item_id: it for it in load_items(task, lang, data_dir=DATA_DIR)}
    return [(items[p.item_id], score_prediction(TASKS[task], items[p.item_id], p)) for p in predictions(model)
            if (p.task, p.lang, p.prompt_lang) == (task, lang, prompt_lang)]


def build_store(path: str | os.PathLike) -> Path:
    """Write the fixture store to `path` through `services.ingest.ingest_predictions`; returns the path."""
    from services.ingest import ingest_predictions
    from store import db

    con = db.connect(path)
    try:
        for model, meta in MODELS.items():
            ingest_predictions(con, predictions(model), model={"model_id": model, "origin": "demo", **meta},
                               source={"file": f"{model}.jsonl", "kind": "demo", "harness": "tanaw",
                                       "settings": {"temperature": 0.0}}, data_dir=DATA_DIR)
    finally:
        con.close()
    return Path(path)


_BUILT: list[Path] = []


def fixture_db() -> Path:
    """The fixture store, built once per test process in a temporary directory."""
    if not _BUILT:
        import atexit
        import shutil
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="tanaw-explorer-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)  # removed when the test process exits
        _BUILT.append(build_store(root / "explorer.duckdb"))
    return _BUILT[0]


@contextlib.contextmanager
def pages_on(path: Path) -> Iterator[Path]:
    """Point the app at `path` (TANAW_DB) with fresh cached connection and query results; restored on exit."""
    from pages import _cached as cached

    old = os.environ.get("TANAW_DB")
    os.environ["TANAW_DB"] = str(path)
    cached.connection.clear()
    cached.clear()
    try:
        yield path
    finally:
        if old is None:
            os.environ.pop("TANAW_DB", None)
        else:
            os.environ["TANAW_DB"] = old
        cached.connection.clear()  # the next test module opens its own store
        cached.clear()


@pytest.fixture(scope="module", name="db")
def pages_fixture_db() -> Iterator[Path]:
    """Fixture `db` (offered to the app tests by tests/app/conftest.py): the fixture store as the app's store for
    one test module."""
    with pages_on(fixture_db()) as path:
        yield path


def app_test(page: str, **params):
    """An AppTest of `pages/<page>.py` with URL query parameters, already run."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / f"{page}.py"), default_timeout=90)
    at.query_params.update(params)
    return at.run()


def frame_with(at, *columns: str):
    """The first dataframe an AppTest shows whose columns start with `columns`."""
    return next(d.value for d in at.dataframe if list(d.value.columns[:len(columns)]) == list(columns))
