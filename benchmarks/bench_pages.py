"""Explorer page queries on a 5,000,000-row per-item store: generate it, warm up, print the time per page.

    python benchmarks/bench_pages.py [--db PATH] [--models 100] [--repeat 5]

The store has the real schema (`store.schema`); rows are synthetic: `--models` models × 2 prompt languages ×
25,000 answers (LINDSEA minimal pairs in both orders, pragmatics, the PACUTE hierarchy, suite and controls,
Thai sentiment) = 5,000,000 predictions and as many score rows, written run by run as ingest does (each run with its
own write time), then every cell's drill-down pre-aggregates written by the functions ingest calls
(`evaluator.drilldown.cell_drilldown`, `store.drilldown.save_drilldown`). Each page's queries run once to warm DuckDB
up, then `--repeat` times; the median per query and the page total are printed (the Streamlit cache, which makes
repeat views free, is bypassed). The queries a page reads at the same time (`pages._cached.q_many`) are timed as one
group, and again one after another (the page total that way is printed beside). Beside them, the DuckDB floor in the
same run: one GROUP BY over all scores and one model's LINDSEA GROUP BY, what a page reading per-item rows pays at
least; each page's total is also given as a multiple of the first (a ratio taken in one run holds steadier than
milliseconds on a machine whose speed drifts between minutes).
Machine, load average and row counts are printed.
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

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.ingest import sync_registry  # noqa: E402
from store import db  # noqa: E402
from store.queries import run_many  # noqa: E402

TARGET_MS = 50
"""The target: every page at most 50 ms median warm on this store."""

CELLS = (
    # task, lang, items, option orders, metric, chance (0-100)
    ("lindsea-mp", "id", 2000, 2, "accuracy", 50.0),
    ("lindsea-mp", "ta", 2000, 2, "accuracy", 50.0),
    ("lindsea-pragmatic-pair", "id", 1000, 1, "accuracy", 50.0),
    ("pacute-hierarchical-mcq", "tl", 6000, 1, "mcq_acc", 25.0),
    ("pacute-hierarchical-gen", "tl", 4000, 1, "exact_match", 0.0),
    ("pacute-affixation-mcq", "tl", 2000, 1, "mcq_acc", 25.0),
    ("pacute-langgame-mcq", "tl", 1000, 1, "mcq_acc", 25.0),
    ("pacute-mda-mcq", "tl", 1000, 1, "mcq_acc", 25.0),
    ("sentiment", "th", 2000, 1, "accuracy", 33.3),
)
"""Answers per (model, prompt language): 25,000."""


def generate(con, n_models: int) -> int:
    """Fill an empty store with synthetic models, items, runs, predictions, scores and aggregates."""
    sync_registry(con)  # tasks and metrics (which metrics are 0/1), as every ingest mirrors them
    con.execute("CREATE TEMP TABLE cellspec (task VARCHAR, lang VARCHAR, n INTEGER, orders INTEGER, metric VARCHAR,"
                " chance DOUBLE)")
    con.executemany("INSERT INTO cellspec VALUES (?, ?, ?, ?, ?, ?)", CELLS)
    con.execute("""
        INSERT INTO models (model_id, family, organisation, params_b, model_type, origin, weights, sea_tuned)
        SELECT 'model-' || lpad(i::VARCHAR, 3, '0'), 'family-' || (i % 7), 'org-' || (i % 5),
               [1.0, 3.0, 8.0, 27.0, 70.0, 405.0][1 + i % 6], ['base', 'instruct', 'reasoning'][1 + i % 3], 'demo',
               CASE WHEN i % 4 = 0 THEN 'closed' ELSE 'open' END, i % 5 = 0
        FROM range(?) t(i)""", [n_models])
    con.execute("""
        INSERT INTO items (task, lang, item_id, inputs, gold, options, metadata, warnings, phenomenon, category,
                           subcategory, level, content_hash)
        SELECT c.task, c.lang, c.task || '-' || i,
               json_object('correct', 'kalimat benar nomor ' || i, 'wrong', 'kalimat salah nomor ' || i,
                           'text', 'teks ' || i), '"A"', NULL, '{}',
               CASE WHEN i % 97 = 0 THEN ['duplicate-options'] ELSE [] END,
               ['morphology', 'argument_structure', 'filler-gap_dependencies', 'NPIs_and_negation'][1 + i % 4],
               'category-' || (i % 23), CASE WHEN i % 3 = 0 THEN 'sub-' || (i % 2) END,
               CASE WHEN c.task LIKE 'pacute-hierarchical%' THEN i % 6 END, md5(c.task || i)
        FROM cellspec c, range(c.n) t(i)""")
    con.execute("""
        CREATE TEMP TABLE bench_runs AS
        SELECT md5(m.model_id || c.task || c.lang || p.prompt_lang) AS run_id, m.model_id, c.*, p.prompt_lang,
               row_number() OVER () AS seq, 0.35 + 0.6 * ((hash(m.model_id) % 1000) / 1000.0) AS skill
        FROM models m, cellspec c, (VALUES ('en'), ('native')) p(prompt_lang)""")
    con.execute("""
        INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, run_no, settings, source, harness, source_file,
                          created_at)
        SELECT run_id, model_id, task, lang, prompt_lang, 1, '{"temperature": 0}', 'demo', 'bench',
               model_id || '.jsonl', TIMESTAMP '2026-01-01' + to_seconds(seq) FROM bench_runs ORDER BY seq""")
    con.execute("""
        CREATE TEMP TABLE bench_rows AS
        SELECT r.seq, r.run_id, r.task || '-' || i AS item_id, CASE WHEN o = 0 THEN 'ab' ELSE 'ba' END AS ord,
               r.metric, (hash(r.run_id, i, o) % 10000) / 10000.0 < r.skill AS ok,
               hash(r.run_id, i, o) % 25 <> 0 AS parsed
        FROM bench_runs r, range(r.n) t(i), range(r.orders) u(o)""")
    con.execute("""
        INSERT INTO predictions (run_id, item_id, ord, prompt, output, answer, parsed, created_at)
        SELECT run_id, item_id, ord, 'prompt for ' || item_id, CASE WHEN parsed THEN 'A' ELSE 'unsure' END,
               CASE WHEN parsed THEN 'A' END, parsed, TIMESTAMP '2026-01-01' + to_seconds(seq)
        FROM bench_rows ORDER BY seq, item_id, ord""")
    con.execute("""
        INSERT INTO scores (run_id, item_id, ord, metric, value)
        SELECT run_id, item_id, ord, metric, (ok AND parsed)::DOUBLE FROM bench_rows ORDER BY seq, item_id, ord""")
    con.execute("""
        INSERT INTO aggregates (model_id, task, lang, prompt_lang, metric, value, ci_low, ci_high, n, n_runs,
                                parse_fail_rate, chance, normalized, is_headline, status, note)
        SELECT r.model_id, r.task, r.lang, r.prompt_lang, r.metric, 100 * avg(s.value), 100 * avg(s.value) - 3,
               100 * avg(s.value) + 3, r.n, 1, 0.04, r.chance, NULL, true, 'ok', 'bench'
        FROM bench_runs r JOIN scores s USING (run_id) GROUP BY ALL""")
    return con.execute("SELECT count(*) FROM predictions").fetchone()[0]


def pre_aggregate(con) -> int:
    """Write every cell's drill-down pre-aggregates as ingest does (`evaluator.drilldown.cell_drilldown` over the
    cell's (Item, ItemResult) pairs, then `store.drilldown.save_drilldown`), one transaction per model; returns
    the cells written."""
    from evaluator.drilldown import cell_drilldown
    from evaluator.spec import Item, ItemResult, Prediction
    from store.drilldown import save_drilldown

    items = {}
    for task, lang, item_id, *node, warnings in con.execute(
            "SELECT task, lang, item_id, phenomenon, category, subcategory, level, warnings FROM items").fetchall():
        meta = {k: v for k, v in zip(("phenomenon", "category", "subcategory", "level"), node) if v is not None}
        items[(task, item_id)] = Item(task, lang, item_id, {}, None, metadata=meta, warnings=tuple(warnings))
    cells = 0
    for (model,) in con.execute("SELECT model_id FROM models ORDER BY model_id").fetchall():
        rows = con.execute("""
            SELECT r.task, r.lang, r.prompt_lang, r.run_no, p.item_id, p.ord, p.parsed, s.metric, s.value
            FROM runs r JOIN predictions p ON p.run_id = r.run_id
            JOIN scores s ON s.run_id = p.run_id AND s.item_id = p.item_id AND s.ord = p.ord
            WHERE r.model_id = ? ORDER BY r.created_at, p.item_id, p.ord""", [model]).fetchall()
        by_cell: dict[tuple, list] = {}
        for task, lang, pl, run_no, item_id, order, parsed, metric, value in rows:
            pred = Prediction(task, lang, item_id, pl, None, run=run_no, order=order)
            res = ItemResult(pred, "A" if parsed else None, parsed, None, {metric: value})
            by_cell.setdefault((task, lang, pl), []).append((items[(task, item_id)], res))
        con.execute("BEGIN TRANSACTION")
        for (task, lang, pl), pairs in by_cell.items():
            save_drilldown(con, model, task, lang, pl, cell_drilldown(pairs))
            cells += 1
        con.execute("COMMIT")
    # An ingest writes a run's rows, its counts and the run in one transaction, so they share one timestamp; the
    # generated runs were dated by their position (`generate`), so their counts get the same date.
    con.execute("UPDATE run_counts SET computed_at = r.created_at FROM runs r WHERE r.run_id = run_counts.run_id")
    return cells


def pages(models: list[str]) -> dict[str, list]:
    """The queries each page issues for a typical view, in order, with the parameters the page passes. A parameter
    given as "@name" is the result of the earlier query `name` on the same page; a list is a group the page reads at
    the same time (`pages._cached.q_many`, `store.queries.run_many`)."""
    m, four = models[1], tuple(models[:4])
    systems = (f"{models[0]}|en", f"{models[1]}|en")
    mcq = {"models": four, "fmt": "mcq", "metric": "mcq_acc", "prompt_lang": "en"}
    cell = {"task": "lindsea-mp", "lang": "id", "systems": systems}
    return {
        "lindsea": [("explore_models", {"task_prefix": "lindsea-"}),
                    [("lindsea_cells", {"model": m, "lang": "id"}),
                     ("lindsea_tree", {"model": m, "lang": "id", "prompt_lang": "en"}),
                     ("lindsea_drill", {"model": m, "lang": "id", "depth": 1})],
                    ("lindsea_drill", {"model": m, "lang": "id", "depth": 2, "branch": "syntax",
                                       "phenomenon": "morphology"}),
                    ("lindsea_items", {"model": m, "lang": "id", "prompt_lang": "en", "branch": "syntax",
                                       "phenomenon": "morphology"}),
                    ("lindsea_answers", {"model": m, "lang": "id", "prompt_lang": "en",
                                         "items": tuple(("lindsea-mp", f"lindsea-mp-{i}") for i in range(10))})],
        "pacute": [("explore_models", {"task_prefix": "pacute-"}), ("pacute_availability", {"models": four}),
                   ("pacute_levels", mcq),
                   ("pacute_ceiling", {"models": four, "fmt": "mcq", "metric": "mcq_acc"}),
                   ("pacute_level_means", mcq),
                   ("pacute_suite", mcq)],
        "cultural": [("explore_models", {"task_prefix": "cultural-"}), ("cultural_items", {"lang": "id"}),
                     ("cultural_responses", {"lang": "id", "item_id": "0", "models": four}),
                     ("cultural_rating_summary", {"lang": "id"}),
                     ("cultural_item_ratings", {"lang": "id", "item_id": "0"})],
        "compare": [[("explore_models", {"task_prefix": None}), ("compare_cells", {})],
                    [("compare_metrics", {"task": "lindsea-mp", "lang": "id"}),
                     ("compare_systems", {"task": "lindsea-mp", "lang": "id"})],
                    [("compare_items", {**cell, "metric": "accuracy"}), ("compare_runs", cell),
                     ("compare_pair_tests", {**cell, "metric": "accuracy"})],
                    ("compare_slice", {"items": "@compare_items", "slice": "a_right_b_wrong"}),
                    ("compare_slice_ids", {"items": "@compare_items", "slice": "any_wrong"}),
                    [("compare_item", {"task": "lindsea-mp", "lang": "id", "item_id": "lindsea-mp-7"}),
                     ("compare_outputs", {**cell, "item_id": "lindsea-mp-7", "metric": "accuracy",
                                          "runs": "@compare_runs"})]],
        "model": [("explore_models", {}), ("model_info", {"model": m}), ("model_cells", {"model": m}),
                  ("model_extremes", {"model": m, "side": "strength"}),
                  ("model_extremes", {"model": m, "side": "weakness"}), ("model_runs", {"model": m}),
                  ("model_parse_failures", {"model": m}), ("model_failed_flags", {"model": m})],
    }


FLOOR = {
    "GROUP BY over all scores": ("SELECT run_id, metric, count(*), avg(value) FROM scores GROUP BY run_id, metric",
                                 []),
    "one model's LINDSEA GROUP BY": ("""
        SELECT r.task, s.item_id, r.prompt_lang, avg(s.value) FROM runs r JOIN scores s ON s.run_id = r.run_id
        WHERE r.model_id = ? AND r.lang = 'id' AND r.task LIKE 'lindsea-%' GROUP BY ALL""", ["@model"]),
}
"""The DuckDB floor, timed in the same run: what any page reading per-item rows would pay at least."""


def median_ms(fn, repeat: int) -> tuple[float, float, object]:
    """(median wall ms, median CPU ms of this process, all threads) of `repeat` calls after one warm-up call, and
    the warm-up's result. On a shared machine the CPU time is what the query costs; wall time adds the wait."""
    result = fn()
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(1000 * (time.perf_counter() - t))
        cpus.append(1000 * (time.process_time() - c))
    return statistics.median(walls), statistics.median(cpus), result


def machine() -> str:
    """CPU model, cores, DuckDB version and the 1/5/15-minute load average."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, DuckDB {duckdb.__version__}; " \
           f"load average {load}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="store to create or reuse (default: a temporary file)")
    ap.add_argument("--models", type=int, default=100, help="models (× 50,000 answers each)")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args(argv)
    path = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="tanaw-bench-")) / "bench.duckdb"
    con = db.connect(path)
    if not con.execute("SELECT count(*) FROM predictions").fetchone()[0]:
        t = time.perf_counter()
        n = generate(con, args.models)
        print(f"generated {n:,} predictions and as many scores in {time.perf_counter() - t:.0f} s → {path}")
    if not con.execute("SELECT count(*) FROM drill_cells").fetchone()[0]:
        t = time.perf_counter()
        n = pre_aggregate(con)
        print(f"pre-aggregated {n:,} cells (evaluator.drilldown → store.drilldown) in {time.perf_counter() - t:.0f} s")
    if not con.execute("SELECT count(*) FROM drill_levels").fetchone()[0]:
        from services.drill_levels import backfill_levels

        t = time.perf_counter()
        n = len(backfill_levels(con))
        print(f"pooled the LINDSEA / PACUTE levels of {n:,} models (evaluator.drill_levels → store.drill_levels) in "
              f"{time.perf_counter() - t:.0f} s")
    if not con.execute("SELECT count(*) FROM cell_field").fetchone()[0]:
        from services.page_figures import backfill_page_figures

        t = time.perf_counter()
        n = len(backfill_page_figures(con).get("models", []))
        print(f"stored the page figures (field, ceilings) of {n:,} models (services.page_figures) in "
              f"{time.perf_counter() - t:.0f} s")
    con.execute("CHECKPOINT")
    models = [r[0] for r in con.execute("SELECT model_id FROM models ORDER BY model_id").fetchall()]
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
              for t in ("predictions", "scores", "runs", "aggregates", "drill_nodes", "item_outcomes")}
    print(f"machine: {machine()}")
    print(f"store: {len(models)} models; " + ", ".join(f"{t} {n:,}" for t, n in counts.items()))
    print(f"each figure: median of {args.repeat} warm calls after one warm-up (the app's cache bypassed; drill-down "
          "levels and intervals read as stored)\n")
    print(f"{'':<34} {'wall ms':>8} {'CPU ms':>8}")
    floors = []
    for name, (sql, params) in FLOOR.items():
        wall, cpu, _ = median_ms(lambda: con.cursor().execute(sql, [models[1] if p == "@model" else p
                                                                    for p in params]).fetchall(), args.repeat)
        floors.append(wall)
        print(f"DuckDB floor: {name:<20} {wall:8.1f} {cpu:8.1f}")
    print()
    worst = 0.0
    for page, steps in pages(models).items():
        wall_total, cpu_total, serial_total, lines, results = 0.0, 0.0, 0.0, [], {}
        for step in steps:
            group = step if isinstance(step, list) else [step]
            calls = [(name, {k: results[v[1:]] if isinstance(v, str) and v.startswith("@") else v
                             for k, v in params.items()}) for name, params in group]
            wall, cpu, got = median_ms(lambda: run_many(con, calls), args.repeat)
            results |= {name: frame for (name, _), frame in zip(calls, got)}
            wall_total, cpu_total = wall_total + wall, cpu_total + cpu
            names = " + ".join(name for name, _ in calls)
            rows = " + ".join(f"{len(frame):,}" for frame in got)
            one_by_one = wall if len(calls) == 1 else sum(median_ms(lambda: run_many(con, [c]), args.repeat)[0]
                                                          for c in calls)
            serial_total += one_by_one
            lines.append(f"    {names:<30} {wall:8.1f} {cpu:8.1f}  {rows} rows"
                         + (f"  (at the same time; one after another {one_by_one:.1f})" if len(calls) > 1 else ""))
        worst = max(worst, wall_total)
        verdict = "ok" if wall_total <= TARGET_MS else f"over {TARGET_MS} ms"
        print(f"{page:<34} {wall_total:8.1f} {cpu_total:8.1f}  {verdict}; "
              f"{wall_total / floors[0]:.2f}x the {next(iter(FLOOR))}"
              + (f"; every query one after another {serial_total:.1f}" if serial_total != wall_total else ""))
        print("\n".join(lines))
    print(f"\nslowest page: {worst:.1f} ms wall (target ≤ {TARGET_MS} ms per page, median warm); load average after: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
