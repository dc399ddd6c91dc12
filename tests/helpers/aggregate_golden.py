"""Every stored aggregate, roll-up and rank of a store built from the public samples, as plain values.

`build(data_dir, db)` ingests the real result files beside the samples (lm-evaluation-harness samples, the
pacute-bench gpt-4.1-nano inference files) and native files generated here from the samples'
own items (answers right or wrong by a seeded hash: two runs, both option orders, then a third run in a second
upload so those cells are recomputed from the stored rows), then recomputes every cell from the store, and returns
the three tables. `tests/data/aggregates_golden.json` holds what the earlier per-row algorithm stored
(written by `python -m tests.helpers.aggregate_golden`, numbers only: no sentence of the samples).
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from evaluator.datasets import available_cells, load_items
from evaluator.formats.read import read_upload
from evaluator.registry import TASKS
from tests.helpers.predictions_factory import answer

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "aggregates_golden.json"
TEXT_TASKS = ("qa", "translation-en-xx", "translation-xx-en", "abssum", "lindsea-coref-open",
              "lindsea-coref-pronoun", "lindsea-translation", "ner")


def _right(salt: str, task: str, lang: str, item_id: str, share: float) -> bool:
    h = int(hashlib.sha256(f"{salt}|{task}|{lang}|{item_id}".encode()).hexdigest()[:8], 16)
    return h / 0xFFFFFFFF < share


def _row(task, item, order: str, run: int, salt: str) -> dict:
    right = _right(f"{salt}{run}{order}", task.name, item.lang, item.item_id, 0.6 + 0.05 * run)
    fields = answer(task, item, order, right)
    if not right and task.name in TEXT_TASKS and task.name != "ner":
        gold = item.gold[0] if isinstance(item.gold, list) else str(item.gold)
        words = gold.split()
        fields["prediction"] = " ".join(words[: max(1, len(words) // 2)])  # partial credit for n-gram metrics
    if not right and _right(salt + "unparsed", task.name, item.lang, item.item_id, 0.1) \
            and fields.get("option_logprobs") is None:
        fields["prediction"] = "I cannot tell."  # some unparsed answers
    return {"task": task.name, "lang": item.lang, "item_id": item.item_id, "prompt_lang": "en", "run": run,
            **({"order": order} if task.both_orders else {}), **fields}


def native_rows(data_dir: Path, runs: tuple[int, ...], salt: str, *, every: int = 1) -> list[dict]:
    """Native rows for every scored cell of the samples (every `every`-th cell), runs and orders as given."""
    rows = []
    for k, (task_name, lang) in enumerate(available_cells(data_dir)):
        task = TASKS[task_name]
        if not task.metrics or k % every:
            continue
        items = load_items(task, lang, data_dir=data_dir, limit=120)
        for run in runs:
            for item in items:
                for order in (("ab", "ba") if task.both_orders else ("ab",)):
                    rows.append(_row(task, item, order, run, salt))
    return rows


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _ingest(db: Path, source, name: str | None, model: str, data_dir: Path) -> None:
    from services.upload import ingest_upload

    up = read_upload(source, name, data_dir=data_dir)
    out = ingest_upload(db, up, model={"model_id": model}, actor="golden", data_dir=data_dir)
    assert out.status == "imported", (name, out.message, out.errors[:3])


def _clean(v):
    if isinstance(v, float):
        return None if math.isnan(v) else v
    return v


def snapshot(db: Path) -> dict[str, list[list]]:
    """The aggregates and roll-up (incl. rank) tables, every column but timestamps, in a fixed order."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for table, key in (("aggregates", "model_id, task, lang, prompt_lang, metric"),
                           ("rollups", "model_id, prompt_lang, family, score, level, key")):
            cols = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall() if "TIMESTAMP" not in r[1]]
            rows = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {key}").fetchall()
            out[table] = [cols] + [[_clean(v) for v in r] for r in rows]
        return out
    finally:
        con.close()


def dump(snap: dict[str, list[list]]) -> str:
    """The snapshot as JSON, one table row per line."""
    return "{\n" + ",\n".join(f"{json.dumps(t)}: [\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
                              + "\n]" for t, rows in sorted(snap.items())) + "\n}\n"


def build(data_dir: Path, db: Path) -> dict[str, list[list]]:
    """Build the store (see the module docstring) and return its snapshot."""
    from services.ingest import refresh_aggregates
    from store.writer_lock import writer as store_writer
    from store.db import transaction

    real = data_dir / "real-results"
    _ingest(db, real / "lm-eval", None, "lm-eval-real", data_dir)
    _ingest(db, data_dir / "pacute" / "results-sample" / "gpt-4.1-nano", None, "gpt-4.1-nano", data_dir)
    _ingest(db, _jsonl(native_rows(data_dir, (1, 2), "a")), "synthetic.jsonl", "synthetic", data_dir)
    _ingest(db, _jsonl(native_rows(data_dir, (3,), "b", every=2)), "synthetic-run3.jsonl", "synthetic", data_dir)
    _ingest(db, _jsonl(native_rows(data_dir, (1,), "c", every=3)), "other.jsonl", "other", data_dir)
    with store_writer(db) as con, transaction(con):
        cells = con.execute("SELECT DISTINCT model_id, task, lang, prompt_lang FROM runs ORDER BY ALL").fetchall()
        for model in sorted({c[0] for c in cells}):
            refresh_aggregates(con, model, [c[1:] for c in cells if c[0] == model])
    return snapshot(db)


if __name__ == "__main__":
    import tempfile

    from tests.helpers.samples import SAMPLES

    with tempfile.TemporaryDirectory() as tmp:
        snap = build(SAMPLES, Path(tmp) / "golden.duckdb")
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(dump(snap))
    print(f"{GOLDEN}: {len(snap['aggregates']) - 1} aggregates, {len(snap['rollups']) - 1} roll-up rows")
