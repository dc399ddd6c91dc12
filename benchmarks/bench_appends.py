"""One append as list parameters against one Arrow table, at the sizes a live run writes.

    python benchmarks/bench_appends.py [--repeat 30] [--sizes 1,8,32,104,128,256,1000]

`store.live.append` writes a group of answers (predictions, scores) and a refresh's run counts in one INSERT: below
`store.live.LIST_VALUES` values (rows x columns) each column goes in as one list parameter, from there on from one
Arrow table. For each table and size this times both ways in the same run, alternating, each inside a transaction
of a store on disk (a fresh key set per call, committed after the timed INSERT, which is not timed), and prints the
medians, which way the rule picks and the crossover it implies. Conditions (machine, versions, load) are printed
with the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from store import db, live  # noqa: E402


def rows_of(table: str, n: int, key: int) -> list[tuple]:
    """n rows of `table` whose keys no earlier call used, with the values a live run writes."""
    if table == "predictions":
        return [(f"run-{key}", f"item-{i}", "ab", "Jawab dengan A atau B. " * 8, "A", "A", True, None, 120, 1,
                 0.2 + i / 1000, "stop", [-0.1, -2.3] if i % 2 else None, json.dumps({"attempts": 1}))
                for i in range(n)]
    if table == "scores":
        return [(f"run-{key}", f"item-{i}", "ab", "accuracy", float(i % 2)) for i in range(n)]
    return [(f"run-{key}-{i}", 50, 1, 6000, 50, 10.5, 50) for i in range(n)]


def timed(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple], threshold: int) -> float:
    """Seconds of one append of `rows` with `LIST_VALUES` set to `threshold`, in its own transaction."""
    live.LIST_VALUES = threshold
    con.execute("BEGIN TRANSACTION")
    t = time.perf_counter()
    live.append(con, table, rows, replace=False)
    spent = time.perf_counter() - t
    con.execute("COMMIT")
    return spent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--sizes", default="1,8,32,104,128,256,1000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rule = live.LIST_VALUES
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    print(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, DuckDB {duckdb.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"each figure: median ms of {args.repeat} appends per way, alternated, after {min(5, args.repeat)} untimed; "
          f"the rule (LIST_VALUES = {rule}) takes lists below {rule} values\n")
    print(f"{'table':<12} {'rows':>6} {'values':>7} {'lists':>8} {'arrow':>8}  rule picks")
    key = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            con = db.connect(Path(tmp) / "appends.duckdb")
            for table in ("predictions", "scores", "run_counts"):
                width = len(live.TABLES[table])
                for n in sizes:
                    spent: dict[str, list[float]] = {"lists": [], "arrow": []}
                    warm = min(5, args.repeat)
                    for i in range(args.repeat + warm):
                        for way in (("lists", "arrow") if i % 2 else ("arrow", "lists")):
                            key += 1
                            s = timed(con, table, rows_of(table, n, key), 10 ** 12 if way == "lists" else 0)
                            if i >= warm:
                                spent[way].append(s)
                    lists, arrow = (1000 * statistics.median(spent[w]) for w in ("lists", "arrow"))
                    picks = "lists" if n * width < rule else "arrow"
                    best = "lists" if lists <= arrow else "arrow"
                    print(f"{table:<12} {n:>6} {n * width:>7} {lists:8.2f} {arrow:8.2f}  {picks}"
                          + ("" if picks == best else f" (the other way was faster here by {abs(lists - arrow):.2f})"))
            con.close()
    finally:
        live.LIST_VALUES = rule
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
