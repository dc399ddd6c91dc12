"""Stores of real results for the board's defaults, built from the public samples through the real scoring path.

- `pacute_store`: ten PACUTE models from the pacute-bench gpt-4.1-nano inference files: `real-0` as the file has
  it, `real-k` with the outputs of a share k/12 of the items (picked by a hash of the item id) emptied, so the
  ten are ordered real-0 > real-1 > … > real-9; a PACUTE stub (eight items `real-0` got right, fewer than
  `STUB_MIN_ITEMS`: its overall beats every real model, its interval too wide to rank); and an lm-eval stub
  on BHASA (ten rows of the lm-evaluation-harness xcopa_th samples, the only BHASA model).
- `mixed_store`: the demo content as a first start writes it, plus real-0, real-4 and real-8.
"""
from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from evaluator.formats.read import read_upload
from tests.helpers.samples import SAMPLES

PACUTE_FILES = SAMPLES / "pacute" / "results-sample" / "gpt-4.1-nano"
LMEVAL_FILES = SAMPLES / "real-results" / "lm-eval"
REAL = [f"real-{k}" for k in range(10)]
"""The ten PACUTE models, best first by construction."""
PACUTE_STUB = "stub-pacute"
LMEVAL_STUB = "stub-lmeval"
META = {"organisation": "Example", "model_type": "instruct", "weights": "closed", "params_b": None}


def _emptied(item_id: str, k: int) -> bool:
    return int(hashlib.sha256(item_id.encode()).hexdigest()[:6], 16) % 12 < k


def _ingest(con, preds, model: str, file: str) -> None:
    from services.ingest import ingest_predictions

    ingest_predictions(con, preds, model={"model_id": model, "origin": "uploaded", **META},
                       source={"file": file, "kind": "upload", "harness": "test", "settings": {}},
                       data_dir=SAMPLES, unmatched="skip")


def _right_ones(con, model: str, n: int) -> set[tuple[str, str]]:
    """(task, item_id) of `n` items `model` got right on exact match (from the stored scores)."""
    rows = con.execute("""
        SELECT r.task, s.item_id FROM scores s JOIN runs r USING (run_id)
        WHERE r.model_id = ? AND s.metric = 'exact_match' AND s.value = 1 AND r.task = 'pacute-affixation-gen'
        ORDER BY s.item_id LIMIT ?""", [model, n]).fetchall()
    return set(rows)


def _real_pacute(con, models: list[str]) -> None:
    preds = read_upload(PACUTE_FILES, data_dir=SAMPLES).predictions
    for model in models:
        k = int(model.split("-")[1])
        _ingest(con, [dataclasses.replace(p, output="") if _emptied(p.item_id, k) else p for p in preds], model,
                f"{model}.jsonl")
    return preds


def pacute_store(path: Path) -> Path:
    """The ten real PACUTE models, the PACUTE stub and the lm-eval stub (module docstring)."""
    from store import db

    con = db.connect(path)
    try:
        preds = _real_pacute(con, REAL)
        right = _right_ones(con, "real-0", 8)
        _ingest(con, [p for p in preds if (p.task, p.item_id) in right], PACUTE_STUB, "stub.jsonl")
        lmeval = [p for p in read_upload(LMEVAL_FILES, data_dir=SAMPLES).predictions if p.lang == "th"][:10]
        _ingest(con, lmeval, LMEVAL_STUB, "lmeval-stub.jsonl")
    finally:
        con.close()
    return path


def mixed_store(path: Path) -> Path:
    """The demo content plus real-0, real-4 and real-8."""
    from services.demo import ensure_default_db
    from store import db

    con = db.connect(path)
    try:
        assert ensure_default_db(con)
        _real_pacute(con, ["real-0", "real-4", "real-8"])
    finally:
        con.close()
    return path


THAI = {"thai-strong": (5, "a"), "thai-middle": (2, "b"), "thai-weak": (1, "c")}
"""Models answering the scored Thai cells of the samples: run number (right with probability 0.6 + 0.05·run, by
a seeded hash of the item: `tests.helpers.aggregate_golden`) and hash salt. thai-weak skips sentiment (a missing
cell on the board)."""


def thai_store(path: Path) -> Path:
    """The three THAI models plus the lm-evaluation-harness samples as they are (xcopa and xnli, Thai and more): a
    store where the Thai question has an answer."""
    from tests.helpers.aggregate_golden import _ingest as ingest_file
    from tests.helpers.aggregate_golden import _jsonl, native_rows

    for model, (run, salt) in THAI.items():
        rows = [r for r in native_rows(SAMPLES, (run,), salt)
                if r["lang"] == "th" and not (model == "thai-weak" and r["task"] == "sentiment")]
        ingest_file(path, _jsonl(rows), f"{model}.jsonl", model, SAMPLES)
    ingest_file(path, LMEVAL_FILES, None, "lm-eval-real", SAMPLES)
    return path
