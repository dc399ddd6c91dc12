"""Ingest throughput per upload format: build a ~100,000-item upload from ../shared/data items, then time reading
(unpack, parse, map onto our items) and ingesting (score, write, aggregate) into a fresh store.

    /work/venv/bin/python benchmarks/bench_ingest.py [--items 100000] [--formats native,pacute-bench,seahelm,lm-eval]
                                                     [--read-only]

Run numbers make the item count: a cell of n items is repeated in run_1 … run_k folders (or `run` fields).
Prints one line per format with items/second for each phase.
"""
from __future__ import annotations

import argparse
import io
import json
import math
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.upload import ingest_upload  # noqa: E402
from evaluator.datasets import default_data_dir, load_items  # noqa: E402
from evaluator.formats.limits import Limits  # noqa: E402
from evaluator.formats.read import read_upload  # noqa: E402

WORDS = {"positive": "Positive", "negative": "Negative", "neutral": "Neutral"}


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def native(n: int) -> tuple[str, bytes]:
    items = [it for lang in ("id", "vi", "th", "ta") for it in load_items("causal", lang)]
    runs = math.ceil(n / len(items))
    rows = [{"task": "causal", "lang": it.lang, "item_id": it.item_id, "prompt_lang": "en", "run": r,
             "prediction": "A" if (i + r) % 3 else "B"} for r in range(1, runs + 1) for i, it in enumerate(items)]
    return "bench.jsonl", _jsonl(rows[:n])


def pacute_bench(n: int) -> tuple[str, bytes]:
    src = default_data_dir() / "pacute" / "results-sample" / "gpt-4.1-nano" / "inference" / "cute-gen.jsonl"
    data = src.read_bytes()
    per = data.count(b"\n")
    runs = math.ceil(n / per)
    return "bench.zip", _zip({f"run_{r}/inference/cute-gen.jsonl": data for r in range(1, runs + 1)})


def seahelm(n: int) -> tuple[str, bytes]:
    files = {}
    cells = {lang: load_items("sentiment", lang) for lang in ("id", "vi", "th", "ta")}
    per = sum(len(v) for v in cells.values())
    for r in range(1, math.ceil(n / per) + 1):
        for lang, items in cells.items():
            rows = [{"id": it.item_id, "label": it.gold, "metadata": {}, "prompts": [{"text": it.inputs["text"]}],
                     "responses": [WORDS[it.gold] if i % 4 else "Neutral"], "cleaned_responses": [it.gold],
                     "individual_scores": {"accuracy": 1.0}, "finish_reasons": ["stop"],
                     "token_usages": [{"prompt_tokens": 100, "completion_tokens": 3}], "reasoning_contents": [None],
                     "cumulative_logprobs": [None]} for i, it in enumerate(items)]
            files[f"run_{r}/inferences/{lang}/sentiment/bench_sentiment_{lang}.jsonl"] = _jsonl(rows)
    return "bench.zip", _zip(files)


def lm_eval(n: int) -> tuple[str, bytes]:
    items = load_items("pacute-composition-mcq", "tl")
    rows = []
    for i, it in enumerate(items):
        lps = [-1.0 - ((k + i) % 4) for k in range(len(it.options))]
        rows.append({"doc_id": i, "doc": {"id": it.item_id, "text_en": it.inputs["text_en"]}, "target": 0,
                     "arguments": {f"gen_args_{k}": {"arg_0": it.inputs["text_en"], "arg_1": " " + o}
                                   for k, o in enumerate(it.options)},
                     "resps": [[[lp, False]] for lp in lps], "filtered_resps": [[lp, False] for lp in lps],
                     "filter": "none", "metrics": ["acc"], "acc": 1.0})
    data = _jsonl(rows)
    runs = math.ceil(n / len(rows))
    return "bench.zip", _zip({f"run_{r}/samples_composition_mcq_2026-01-01T00-00-00.jsonl": data
                              for r in range(1, runs + 1)})


BUILDERS = {"native": native, "pacute-bench": pacute_bench, "seahelm": seahelm, "lm-eval": lm_eval}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--formats", default=",".join(BUILDERS))
    ap.add_argument("--read-only", action="store_true", help="time reading (unpack, parse, map) only")
    args = ap.parse_args()
    limits = Limits(max_members=5000)
    print(f"{'format':<13} {'items':>8} {'MB':>6} {'read s':>7} {'read it/s':>10} {'ingest s':>8} "
          f"{'ingest it/s':>11} {'total it/s':>10}")
    for fmt in args.formats.split(","):
        name, data = BUILDERS[fmt](args.items)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            up = read_upload(data, name, fmt=fmt, limits=limits)
            t1 = time.perf_counter()
            if not up.ok:
                print(f"{fmt}: refused: {up.errors[:3]}")
                continue
            if args.read_only:
                n = len(up.predictions)
                print(f"{fmt:<13} {n:>8} {len(data) / 1e6:>6.1f} {t1 - t0:>7.1f} {n / (t1 - t0):>10.0f}", flush=True)
                continue
            out = ingest_upload(Path(tmp) / "bench.duckdb", up, model={"model_id": f"bench-{fmt}"}, actor="bench")
            t2 = time.perf_counter()
        n = len(up.predictions)
        assert out.status == "imported", out.message
        print(f"{fmt:<13} {n:>8} {len(data) / 1e6:>6.1f} {t1 - t0:>7.1f} {n / (t1 - t0):>10.0f} {t2 - t1:>8.1f} "
              f"{n / (t2 - t1):>11.0f} {n / (t2 - t0):>10.0f}", flush=True)


if __name__ == "__main__":
    main()
