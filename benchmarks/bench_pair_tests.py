"""What the stored paired tests (schema V13) add to a cell's refresh, with 2, 10 and 50 systems on the cell.

    python benchmarks/bench_pair_tests.py [--items 100,1000] [--systems 2,10,50] [--repeat 3]

A fresh store gets one (task, lang) cell answered by `k` systems (k/2 models × en/native prompts), each with a
per-item outcome for every item on two metrics, one 0/1 and one fractional (mean of two option orders: 0, 0.5,
1), as ingest stores them. Timed, warm, median of `--repeat`, inside a transaction rolled back after:
- "refresh": `services.pair_tests.refresh_pair_tests` for one model's cell in one prompt language, what
  `refresh_aggregates` now also does when that cell is re-aggregated (the live runner: after every cell): the
  k - 1 pairs of that system, both metrics, read, computed (10,000 resamples each) and written in both orders;
- "backfill": every pair of the cell (k(k-1)/2 per metric), as a store upgrade or a Hub pull computes them;
- the peer, in the same run: `evaluator.pair_tests.paired_test` called pair by pair on the same scores (each pair
  drawn and resampled on its own; here for the refresh's k - 1 pairs, both metrics).
Conditions (machine, cores, load average before and after, versions) are printed with the figures.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from evaluator.pair_tests import paired_test  # noqa: E402
from services.pair_tests import refresh_pair_tests, refresh_systems  # noqa: E402
from store import db  # noqa: E402

TASK, LANG = "causal", "id"
METRICS = ("accuracy", "accuracy_orders")


def fill(con, systems: int, items: int) -> dict[tuple[str, str], dict[str, dict[str, float]]]:
    """Write the cell's drill cells and item outcomes; returns {(model, prompt_lang): {metric: {item: score}}}."""
    rng = np.random.default_rng(7)
    ids = [f"item-{i:05d}" for i in range(items)]
    scores: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    rows = []
    for k in range(systems):
        key = (f"model-{k // 2:02d}", ("en", "native")[k % 2])
        skill = 0.4 + 0.5 * rng.random()
        binary = (rng.random(items) < skill).astype(float)
        halves = ((rng.random(items) < skill).astype(float) + (rng.random(items) < skill)) / 2
        scores[key] = {"accuracy": dict(zip(ids, binary)), "accuracy_orders": dict(zip(ids, halves))}
        for metric, values in (("accuracy", binary), ("accuracy_orders", halves)):
            rows += [(k + 1, *key, metric, i, float(v)) for i, v in zip(ids, values)]
    con.executemany("INSERT INTO drill_cells (cell_no, model_id, task, lang, prompt_lang, answers, unparsed, items) "
                    "VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
                    [(k + 1, key[0], TASK, LANG, key[1], items, items) for k, key in enumerate(scores)])
    con.execute("CREATE TEMP TABLE o (cell_no BIGINT, model_id VARCHAR, prompt_lang VARCHAR, metric VARCHAR, "
                "item_id VARCHAR, value DOUBLE)")
    con.executemany("INSERT INTO o VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.execute(f"INSERT INTO item_outcomes (cell_no, model_id, task, lang, prompt_lang, metric, item_id, value) "
                f"SELECT cell_no, model_id, '{TASK}', '{LANG}', prompt_lang, metric, item_id, value FROM o")
    return scores


def timed(fn, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def in_rollback(con, fn):
    def run():
        con.execute("BEGIN TRANSACTION")
        try:
            fn()
        finally:
            con.execute("ROLLBACK")
    return run


def figures(systems: int, items: int, repeat: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        con = db.connect(Path(tmp) / "bench.duckdb")
        scores = fill(con, systems, items)
        mine = ("model-00", "en")
        refresh = timed(in_rollback(con, lambda: refresh_pair_tests(con, mine[0], [(TASK, LANG, mine[1])])), repeat)
        everything = [(TASK, LANG, m, pl) for m, pl in scores]
        backfill = timed(in_rollback(con, lambda: refresh_systems(con, everything)), repeat)
        others = [s for s in scores if s != mine]
        peer = timed(lambda: [paired_test(scores[mine][m], scores[o][m]) for o in others for m in METRICS],
                     max(1, min(repeat, 2)))
        con.close()
    pairs = systems * (systems - 1) // 2
    return (f"{systems:>3} systems x {items:>5} items | refresh ({systems - 1:>2} pairs x 2 metrics): "
            f"{refresh * 1000:8.1f} ms | paired_test per pair (peer): {peer * 1000:8.1f} ms | "
            f"backfill ({pairs:>4} pairs x 2 metrics): {backfill * 1000:8.1f} ms")


def conditions() -> str:
    import duckdb

    return (f"{platform.node()} · {platform.processor() or platform.machine()} · {os.cpu_count()} cores · "
            f"Python {platform.python_version()} · numpy {np.__version__} · duckdb {duckdb.__version__}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default="100,1000")
    parser.add_argument("--systems", default="2,10,50")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(conditions())
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for items in (int(x) for x in args.items.split(",")):
        for systems in (int(x) for x in args.systems.split(",")):
            print(figures(systems, items, args.repeat), flush=True)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
