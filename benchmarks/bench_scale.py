"""Scale benchmark: the store at 5M and 50M per-item rows, as one DuckDB file and as the Parquet export.

For each size it builds a synthetic store with the real schema (every registry cell x 2 prompt languages per
model, one prediction and one score row per item), exports it with store.parquet (partitioned by model and task),
and times the same queries on the DuckDB file and on store.scale's Parquet views:

  leaderboard   the Leaderboard page's query (store.queries leaderboard_table) over the aggregates
  recompute     every cell's mean and n recomputed from the per-item scores (GROUP BY over all rows)
  drilldown     one model's answers on one task with their scores (what the failure pages read)
  model_fail    one model's unparsed answers across all tasks

Usage: python benchmarks/bench_scale.py [--rows 5000000,50000000] [--out /tmp/tanaw-bench-scale] [--repeat 3]
Prints rows, bytes on disk, build/export times and query times (median of --repeat runs after one warm-up).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.ingest import task_rows  # noqa: E402
from evaluator.registry import select  # noqa: E402
from store import db, scale, writer  # noqa: E402
from store.parquet import export_store  # noqa: E402
from store.queries import QUERIES  # noqa: E402

PROMPT_LANGS = ("en", "native")


def build(path: Path, rows: int) -> dict:
    """Write a synthetic store of about `rows` per-item rows to `path`; returns its shape."""
    cells = [(t.name, lang) for t, lang in select()]
    runs_per_model = len(cells) * len(PROMPT_LANGS)
    items = 770
    models = max(1, round(rows / (runs_per_model * items)))
    con = db.connect(path)
    con.execute("SET preserve_insertion_order = false")
    writer.sync_tasks(con, task_rows())
    con.execute("CREATE TEMP TABLE cells (task VARCHAR, lang VARCHAR)")
    con.executemany("INSERT INTO cells VALUES (?, ?)", cells)
    con.execute("""INSERT INTO models (model_id, family, params_b, model_type, origin, weights, sea_tuned)
                   SELECT 'model-' || lpad(i::VARCHAR, 4, '0'), 'family-' || (i % 17), 1 + (i % 70),
                          CASE WHEN i % 3 = 0 THEN 'base' ELSE 'instruct' END, 'evaluated',
                          CASE WHEN i % 5 = 0 THEN 'closed' ELSE 'open' END, i % 4 = 0
                   FROM range(?) t(i)""", [models])
    con.execute("""INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, source, harness)
                   SELECT md5(m.model_id || c.task || c.lang || p.pl)[:20], m.model_id, c.task, c.lang, p.pl,
                          'evaluated', 'tanaw'
                   FROM models m, cells c, (VALUES ('en'), ('native')) p(pl)""")
    t0 = time.perf_counter()
    con.execute("""INSERT INTO predictions (run_id, item_id, ord, output, answer, parsed, tokens_out, latency_s)
                   SELECT r.run_id, 'item-' || i, 'ab',
                          CASE WHEN h % 11 = 0 THEN 'I think the answer might be unclear' ELSE 'Answer: ' || (h % 4) END,
                          CASE WHEN h % 11 = 0 THEN NULL ELSE (h % 4)::VARCHAR END, h % 11 <> 0,
                          (h % 200)::INTEGER, (h % 1000) / 100.0
                   FROM runs r, range(?) t(i), LATERAL (SELECT hash(r.run_id, i) AS h)""", [items])
    con.execute("""INSERT INTO scores (run_id, item_id, ord, metric, value)
                   SELECT p.run_id, p.item_id, p.ord, 'acc',
                          CASE WHEN p.parsed AND hash(p.run_id, p.item_id, 'x') % 100 < 40 + (r.model_id[7:]::INT % 50)
                               THEN 1.0 ELSE 0.0 END
                   FROM predictions p JOIN runs r USING (run_id)""")
    con.execute("""INSERT INTO aggregates (model_id, task, lang, prompt_lang, metric, value, n, n_runs,
                                           parse_fail_rate, chance, normalized, is_headline, status)
                   SELECT r.model_id, r.task, r.lang, r.prompt_lang, 'acc', avg(s.value) * 100, count(*), 1,
                          avg(CASE WHEN p.parsed THEN 0 ELSE 1 END), 25, (avg(s.value) * 100 - 25) / 75 * 100,
                          true, 'ok'
                   FROM scores s JOIN predictions p USING (run_id, item_id, ord) JOIN runs r USING (run_id)
                   GROUP BY ALL""")
    load_s = time.perf_counter() - t0
    n = con.execute("SELECT count(*) FROM predictions").fetchone()[0]
    con.execute("CHECKPOINT")
    t0 = time.perf_counter()
    export_store(con, path.with_suffix(".parquet"))
    export_s = time.perf_counter() - t0
    con.close()
    return {"models": models, "runs": models * runs_per_model, "items_per_run": items, "rows": n,
            "load_s": load_s, "export_s": export_s}


QUERY_SQL = {
    "recompute": """SELECT r.model_id, r.task, r.lang, r.prompt_lang, avg(s.value) * 100 AS value, count(*) AS n
                    FROM scores s JOIN runs r USING (run_id) GROUP BY ALL""",
    "drilldown": """SELECT p.item_id, p.output, p.answer, s.value FROM predictions p
                    JOIN scores s USING (run_id, item_id, ord) JOIN runs r USING (run_id)
                    WHERE r.model_id = 'model-0001' AND r.task = 'sentiment' AND r.lang = 'th'""",
    "model_fail": """SELECT r.task, r.lang, p.item_id, p.output FROM predictions p JOIN runs r USING (run_id)
                     WHERE r.model_id = 'model-0001' AND NOT p.parsed""",
}
PARQUET_SQL = {  # the same questions, letting the partition columns of the per-run tables skip files
    "drilldown": """SELECT p.item_id, p.output, p.answer, s.value FROM predictions p
                    JOIN scores s USING (run_id, item_id, ord) JOIN runs r USING (run_id)
                    WHERE p.model_id = 'model-0001' AND p.task = 'sentiment' AND s.model_id = 'model-0001'
                      AND s.task = 'sentiment' AND r.lang = 'th'""",
    "model_fail": """SELECT r.task, r.lang, p.item_id, p.output FROM predictions p JOIN runs r USING (run_id)
                     WHERE p.model_id = 'model-0001' AND NOT p.parsed""",
}


def timed(fn, repeat: int) -> tuple[float, float, int]:
    """(first run s, median of `repeat` later runs s, result rows)."""
    t0 = time.perf_counter()
    n = len(fn())
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times), n


def size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bench(out: Path, rows: int, repeat: int) -> None:
    path = out / f"store_{rows}.duckdb"
    for p in (path, path.with_suffix(".parquet")):
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    t0 = time.perf_counter()
    shape = build(path, rows)
    build_s = time.perf_counter() - t0
    pq_root = path.with_suffix(".parquet")
    n_files = len(list(pq_root.rglob("*.parquet")))
    print(f"\n== {shape['rows']:,} per-item rows: {shape['models']} models x {shape['runs'] // shape['models']} runs "
          f"x {shape['items_per_run']} items (+ the same number of score rows)")
    print(f"   build {build_s:.0f} s (per-item inserts {shape['load_s']:.0f} s), Parquet export {shape['export_s']:.0f} s")
    print(f"   DuckDB file {size(path) / 1e6:,.0f} MB; Parquet {size(pq_root) / 1e6:,.0f} MB in {n_files:,} files")
    file_con = db.connect(path, read_only=True)
    t0 = time.perf_counter()
    pq_con = scale.connect_parquet(pq_root)
    print(f"   open: DuckDB file instant; Parquet {time.perf_counter() - t0:.1f} s (small tables loaded, "
          f"{', '.join(scale.PER_ITEM_TABLES)} left as views)")
    print(f"   {'query':12} {'rows':>9} {'file first':>11} {'file median':>12} {'parquet first':>14} "
          f"{'parquet median':>15}")
    queries = {"leaderboard": (lambda c: QUERIES["leaderboard_table"](c, prompt_lang="en"),
                               lambda c: QUERIES["leaderboard_table"](c, prompt_lang="en"))}
    for name, sql in QUERY_SQL.items():
        queries[name] = ((lambda c, s=sql: c.execute(s).fetchall()),
                         (lambda c, s=PARQUET_SQL.get(name, sql): c.execute(s).fetchall()))
    for name, (on_file, on_parquet) in queries.items():
        f_first, f_med, n = timed(lambda: on_file(file_con), repeat)
        p_first, p_med, n_p = timed(lambda: on_parquet(pq_con), repeat)
        assert n == n_p, f"{name}: {n} rows on the file, {n_p} on Parquet"
        print(f"   {name:12} {n:>9,} {f_first:>10.3f}s {f_med:>11.3f}s {p_first:>13.3f}s {p_med:>14.3f}s")
    file_con.close()
    pq_con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="5000000,50000000", help="comma list of per-item row counts")
    parser.add_argument("--out", default="/tmp/tanaw-bench-scale", help="work folder (large: ~10 GB at 50M)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated stores")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import os

    print(f"DuckDB {__import__('duckdb').__version__}, {os.cpu_count()} cores")
    for rows in (int(float(r)) for r in args.rows.split(",")):
        bench(out, rows, args.repeat)
        if not args.keep:
            for p in out.glob(f"store_{rows}.*"):
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
