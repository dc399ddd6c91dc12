"""A model's cost and speed read at every refresh (schema V15): its runs' stored sums against the scan of
every prediction row it replaced, on the 5,000,000-row store of `bench_pages.py`.

    python benchmarks/bench_run_usage.py [--db PATH] [--models 100] [--repeat 25]

`store.usage.run_usage` reads a model's runs with the tokens and latency stored beside their answer counts when
their cells were aggregated; before V15 the same figures were summed over the model's prediction rows, joined on
run id, which scanned the run id of every prediction row of the store (the peer, its statement kept here verbatim).
Both run alternately, `--repeat` rounds each after one warm-up round, for a few models with one prompt language (as a
live cell refresh asks) and with all of them; medians and minima in ms, with the store's row counts and the machine.
The store is `bench_pages.py`'s (`--db` reuses one; without it one is generated, about 3 minutes).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pages import machine  # noqa: E402
from store import db  # noqa: E402
from store.usage import run_usage  # noqa: E402

BEFORE_V15 = """
    WITH r AS (
        SELECT r.run_id, r.prompt_lang, t.family,
               TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.input') AS DOUBLE) AS price_in,
               TRY_CAST(json_extract_string(r.settings, '$.price_per_mtok.output') AS DOUBLE) AS price_out
        FROM runs r LEFT JOIN tasks t ON t.task = r.task
        WHERE r.model_id = ? AND NOT r.superseded AND (? IS NULL OR list_contains(?, r.prompt_lang)))
    SELECT r.prompt_lang, r.family, r.price_in, r.price_out,
           count(p.run_id) AS requests, sum(p.tokens_in) AS tokens_in, sum(p.tokens_out) AS tokens_out,
           sum(p.latency_s) AS latency_sum, count(p.latency_s) AS latency_n
    FROM r LEFT JOIN predictions p ON p.run_id = r.run_id
    GROUP BY ALL ORDER BY ALL"""
"""The read `run_usage` replaced (store.usage.usage_groups before schema V15)."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="bench_pages.py's store to reuse (default: generate one in a temporary folder)")
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=25)
    args = ap.parse_args(argv)
    if not args.db:
        import bench_pages

        args.db = str(Path(tempfile.mkdtemp(prefix="tanaw-usage-")) / "bench.duckdb")
        bench_pages.main(["--db", args.db, "--models", str(args.models), "--repeat", "1"])
    con = db.connect(args.db)  # a store from before V15 gets its runs' sums here (the migration)
    cur = con.cursor()
    models = [r[0] for r in con.execute("SELECT model_id FROM models ORDER BY model_id").fetchall()]
    n_pred, n_runs = (con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("predictions", "runs"))
    print(f"machine: {machine()}")
    print(f"store: {len(models)} models, {n_runs:,} runs, {n_pred:,} prediction rows; median (min) ms of {args.repeat} "
          "alternated rounds after one warm-up round\n")
    print(f"{'model, prompt languages':<30} {'runs read':>10} {'run_usage':>16} {'before V15':>16} {'ratio':>7}")
    for model in models[:: max(1, len(models) // 4)][:4]:
        for langs in (["en"], None):
            ours = lambda: run_usage(cur, model, langs)  # noqa: E731
            peer = lambda: cur.execute(BEFORE_V15, [model, langs, langs]).fetchall()  # noqa: E731
            times: dict[str, list[float]] = {"ours": [], "peer": []}
            for k in range(args.repeat + 1):
                for name, fn in (("ours", ours), ("peer", peer)):
                    t = time.perf_counter()
                    fn()
                    if k:
                        times[name].append(1000 * (time.perf_counter() - t))
            med = {k: statistics.median(v) for k, v in times.items()}
            print(f"{model + ', ' + (','.join(langs) if langs else 'all'):<30} {len(ours()):>10} "
                  f"{med['ours']:8.2f} ({min(times['ours']):5.2f}) {med['peer']:8.2f} ({min(times['peer']):5.2f}) "
                  f"{med['peer'] / med['ours']:6.1f}x")
    print("\nload average after: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
