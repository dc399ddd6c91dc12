"""The embedded default database: reported paper results, a real small model and honest baselines on the demo items.

Baselines (labelled as demo, never mistaken for models): majority class and seeded random choice for
classification and choice tasks, Lead-1 for summarisation, copy-source for translation, first sentence of the
context for QA. The real model is Gemma 3 270M run by `python -m evaluator run --backend llamacpp` over every demo
item in both prompt languages (scripts/demo_model_run.py); its native result file ships in `data/demo`. All are
scored by the same pipeline as any upload, on `data/demo` (items written for Tanaw), and stored with origin "demo".
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from pathlib import Path

import duckdb

from evaluator.datasets import available_cells, load_items
from services.ingest import ingest_predictions, refresh_rollups, sync_registry
from services.reported import ensure_reported
from evaluator.registry import TASKS
from evaluator.spec import Item, Prediction, TaskSpec
from store.db import transaction
from store.writer import models_without_rollups

DEMO_DIR = Path(__file__).resolve().parents[1] / "data" / "demo"
SEED = 0
LABEL_WORDS = {"positive": "Positive", "negative": "Negative", "neutral": "Neutral", "clean": "Clean",
               "abusive": "Abusive", "hate": "Hate", "offensive": "Offensive", "toxic": "Toxic",
               "non-toxic": "Non-toxic", "true": "True", "false": "False", "yes": "Yes", "no": "No"}
DEMO_MODEL = {"model_id": "Gemma 3 270M base · Q4_K_M (demo run)", "origin": "demo", "family": "Gemma 3",
              "organisation": "Google", "params_b": 0.27, "model_type": "base", "weights": "open",
              "licence": "Gemma Terms of Use", "url": "https://huggingface.co/google/gemma-3-270m"}
"""A real model's demo run (google/gemma-3-270m, the pretrained model, as the GGUF package ships it): its answers to
the demo items, not a benchmark score."""
DEMO_RESULTS = "gemma-3-270m.results.jsonl"
DEMO_RUN_INFO = "gemma-3-270m.run.json"
BASELINES = {
    "Baseline · majority class (demo)": "majority",
    "Baseline · random choice, seed 0 (demo)": "random",
}


def _first_sentence(text: str) -> str:
    m = re.match(r"(.+?[.!?。])(\s|$)", text.strip(), flags=re.S)
    return (m.group(1) if m else text.strip().split("\n")[0]).strip()


def baseline_output(kind: str, task: TaskSpec, item: Item, items: list[Item], rng: random.Random):
    """(output text, option log-probabilities) a baseline gives for one item; None when it has no answer. What it
    answers follows the task's spec (mode, extractor, labels, `copy_baseline`), never its name."""
    if task.mode == "choice_logprob":
        k = len(item.options or ())
        if kind == "majority":
            return None, tuple([0.0] + [-1.0] * (k - 1))  # no class prior for options: always the first
        return None, tuple(rng.uniform(-5, 0) for _ in range(k))
    if task.extractor in ("label", "letter", "true_false"):
        if kind == "majority":
            answer = Counter(str(i.gold) for i in items).most_common(1)[0][0]
        else:
            answer = rng.choice(sorted({str(i.gold) for i in items} | set(task.labels.get(item.lang, ()))))
        return LABEL_WORDS.get(answer, answer), None
    if task.copy_baseline:
        field, part = task.copy_baseline
        text = item.inputs[field]
        return (_first_sentence(text) if part == "first_sentence" else text), None
    if task.extractor == "pacute_answer":
        word = str(item.metadata.get("word") or item.inputs.get("word") or "")
        return f"<answer>{word}</answer>", None
    return None, None


def baseline_predictions(kind: str, data_dir: Path = DEMO_DIR) -> list[Prediction]:
    """Predictions of one baseline for every demo cell, in both prompt languages (a baseline ignores the prompt)."""
    rng = random.Random(SEED)
    preds = []
    for task_name, lang in available_cells(data_dir):
        task = TASKS[task_name]
        if task.mode == "open":
            continue
        items = load_items(task_name, lang, data_dir=data_dir)
        for item in items:
            out, lps = baseline_output(kind, task, item, items, rng)
            if out is None and lps is None:
                continue
            for prompt_lang in ("en", "native"):
                for order in (("ab", "ba") if task.both_orders else ("ab",)):
                    preds.append(Prediction(task=task_name, lang=lang, item_id=item.item_id, prompt_lang=prompt_lang,
                                            output=out, option_logprobs=lps, order=order))
    return preds


def model_run_predictions(data_dir: Path = DEMO_DIR) -> tuple[dict[str, list[Prediction]], dict, str]:
    """The demo model's predictions by task, its run record (settings by task) and the file's SHA-256; empty
    when the result file is absent. IngestError when the file does not parse."""
    from evaluator.formats.native import parse_native
    from services.ingest import IngestError

    path = data_dir / DEMO_RESULTS
    if not path.is_file():
        return {}, {}, ""
    data = path.read_bytes()
    parsed = parse_native(data, f"data/demo/{DEMO_RESULTS}")
    if parsed.errors:
        raise IngestError(parsed.errors)
    by_task: dict[str, list[Prediction]] = defaultdict(list)
    for p in parsed.predictions:
        by_task[p.task].append(p)
    info_path = data_dir / DEMO_RUN_INFO
    info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.is_file() else {}
    return dict(by_task), info, hashlib.sha256(data).hexdigest()


def ingest_model_run(con: duckdb.DuckDBPyConnection, data_dir: Path = DEMO_DIR) -> int:
    """Score and store the demo model's result file, each task's runs with the settings it was run with."""
    by_task, info, digest = model_run_predictions(data_dir)
    run = {k: info[k] for k in ("model", "runtime", "command", "ran") if k in info}
    for task, preds in sorted(by_task.items()):
        settings = {**(info.get("settings_by_task") or {}).get(task, {}), **run, "demo": True}
        ingest_predictions(con, preds, data_dir=data_dir, model=DEMO_MODEL,
                           source={"file": f"data/demo/{DEMO_RESULTS}", "format": "native", "harness": "tanaw",
                                   "kind": "demo", "hash": f"demo-model-{task}-{digest[:16]}", "settings": settings})
    return sum(len(p) for p in by_task.values())


def build_default_db(con: duckdb.DuckDBPyConnection, data_dir: Path = DEMO_DIR) -> dict[str, int]:
    """Fill an empty store with the reported results, the demo model's run and the demo baselines; returns
    counts."""
    counts = {"reported": ensure_reported(con, refresh=True)}  # normalised like the aggregates (V12)
    counts[DEMO_MODEL["model_id"]] = ingest_model_run(con, data_dir)
    for model_id, kind in BASELINES.items():
        preds = baseline_predictions(kind, data_dir)
        ingest_predictions(con, preds, data_dir=data_dir,
                           model={"model_id": model_id, "origin": "demo", "family": "baseline",
                                  "model_type": "baseline", "weights": "open"},
                           source={"file": f"demo:{kind}", "format": "demo", "harness": "tanaw-demo",
                                   "kind": "demo", "hash": f"demo-{kind}-v1"})
        counts[model_id] = len(preds)
    return counts


def ensure_default_db(con: duckdb.DuckDBPyConnection) -> bool:
    """Mirror the registries into the store (roll up models stored before roll-ups were, pre-aggregate cells
    stored before drill-downs were, compute human-evaluation figures stored before V9, usage and drill-down levels
    before V10-11), fill a store never written to (no models, ingests or audit rows) with the demo content: from
    its Parquet snapshot when that matches the demo files and the schema, else built from scratch, and reload the
    papers' reported rows (every store has them, whatever created it: services.reported); True when it filled."""
    from services.derived import backfill_derived

    with transaction(con):
        sync_registry(con)
        refresh_rollups(con, models_without_rollups(con))
    has = con.execute("SELECT (SELECT count(*) FROM models) + (SELECT count(*) FROM ingests) "
                      "+ (SELECT count(*) FROM audit)").fetchone()[0]  # a store never written to
    if not has and not load_snapshot(con):
        build_default_db(con)
    ensure_reported(con, refresh=True)  # the papers' rows as data/reported_results.csv holds them now
    backfill_derived(con)  # derived tables of stores and snapshots written before them (V7, V9-V13)
    return not has


SNAPSHOT_DIR = DEMO_DIR / "store"
"""The built demo store as one Parquet file per table (`python -m services.demo --snapshot` writes it), so a first
start copies rows instead of scoring ~6,000 answers; tests/store/test_demo_snapshot.py checks it against a fresh build."""
NOT_SNAPSHOT = {"schema_version", "tasks", "metrics"}
"""Tables every start mirrors from the registries anyway."""
REFERENCE_TABLES = {"reported", "reported_normalized"}
"""Tables a store holds from its creation (services.reported), which the snapshot's rows replace."""


def inputs_digest(data_dir: Path = DEMO_DIR) -> str:
    """SHA-256 over the demo files the build reads: items, the model's result file and run record (`*.jsonl`,
    `*.json` outside the snapshot), and the reported results."""
    digest = hashlib.sha256()
    files = sorted(f for f in data_dir.rglob("*.json*") if f.is_file() and f.parent.name != SNAPSHOT_DIR.name)
    for f in [*files, data_dir.parent / "reported_results.csv"]:
        if f.is_file():
            digest.update(f.relative_to(data_dir.parent).as_posix().encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    rows = con.execute("SELECT table_name, column_name FROM information_schema.columns JOIN information_schema.tables "
                       "USING (table_schema, table_name) WHERE table_schema = 'main' AND table_type = 'BASE TABLE' "
                       "ORDER BY table_name, ordinal_position").fetchall()  # tables only: views are of their rows
    out: dict[str, list[str]] = defaultdict(list)
    for table, column in rows:
        out[table].append(column)
    return dict(out)


def write_snapshot(con: duckdb.DuckDBPyConnection, dest: Path = SNAPSHOT_DIR, data_dir: Path = DEMO_DIR) -> dict:
    """Write every non-empty table of a freshly built demo store under `dest` with manifest.json; returns it."""
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("*.parquet"):
        old.unlink()
    tables = {}
    for table, cols in _columns(con).items():
        n = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
        if table in NOT_SNAPSHOT or not n:
            continue
        path = str(dest / f"{table}.parquet").replace("'", "''")
        con.execute(f"COPY (SELECT * FROM \"{table}\") TO '{path}' (FORMAT parquet, COMPRESSION zstd)")
        tables[table] = {"rows": n, "columns": cols}
    manifest = {"inputs_sha256": inputs_digest(data_dir), "tables": tables}
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def load_snapshot(con: duckdb.DuckDBPyConnection, src: Path = SNAPSHOT_DIR, data_dir: Path = DEMO_DIR) -> bool:
    """Copy the snapshot into an empty store in one transaction; False (nothing written) when there is none, it
    was made from other demo files, or a table's columns differ from this schema's."""
    try:
        manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    columns = _columns(con)
    tables = manifest.get("tables") or {}
    if manifest.get("inputs_sha256") != inputs_digest(data_dir) or any(
            columns.get(t) != meta.get("columns") or not (src / f"{t}.parquet").is_file() for t, meta in tables.items()):
        return False
    with transaction(con):
        for table in tables:
            if table in REFERENCE_TABLES:  # the store was created with them (services.reported)
                con.execute(f'DELETE FROM "{table}"')
            path = str(src / f"{table}.parquet").replace("'", "''")
            con.execute(f"INSERT INTO \"{table}\" SELECT * FROM read_parquet('{path}')")
    return True


if __name__ == "__main__":  # python -m services.demo --snapshot
    import argparse
    import tempfile

    from store.db import connect

    parser = argparse.ArgumentParser(description="Rebuild the demo store and write its Parquet snapshot.")
    parser.add_argument("--snapshot", action="store_true", required=True)
    parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = connect(Path(tmp) / "demo.duckdb")
        with transaction(fresh):
            sync_registry(fresh)
        build_default_db(fresh)
        written = write_snapshot(fresh)
        fresh.close()
    print({t: m["rows"] for t, m in written["tables"].items()})
