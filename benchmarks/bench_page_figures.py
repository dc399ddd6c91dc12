"""What storing the page figures (schema V12) costs a refresh, and what it saves a Model page view.

    python benchmarks/bench_page_figures.py [--models 100] [--cells 60] [--repeat 9]

A store with `--models` visible ranked models × `--cells` headline cells × 2 prompt languages of aggregates, one
run per cell with its answer counts (no per-item rows: the figures read none), roll-ups and ranks stored. Timed,
median of `--repeat`: `refresh_model_figures` for one model (what every roll-up refresh, hence every cell the live
runner finishes, now adds) after one of its cells changed, after all changed and with none changed, beside
`refresh_ranks` (the step it follows, over every model) in the same run; and the
Model page's cells + extremes + parse failures read from the stored figures (`model_cells`, `model_extremes`,
`model_parse_failures` now) against the same figures computed at read time by the queries they replaced (a
self-join of the field with `median` and interval-overlap counts, and sums over the runs). Machine and load average
are printed.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.ingest import refresh_ranks, sync_registry  # noqa: E402
from services.page_figures import refresh_model_figures  # noqa: E402
from store import db  # noqa: E402
from store.db import transaction  # noqa: E402
from store.queries.model_page import model_cells, model_extremes, model_parse_failures  # noqa: E402

OLD_FIELD = """
    WITH cell AS (
        SELECT a.* FROM aggregates a JOIN models m ON m.model_id = a.model_id
        WHERE a.is_headline AND a.status = 'ok' AND a.value IS NOT NULL AND NOT coalesce(m.hidden, false)),
    ranked AS (
        SELECT c.task, c.lang, c.prompt_lang, c.metric, any_value(c.value) AS value,
               any_value(c.ci_low) AS ci_low, any_value(c.ci_high) AS ci_high, any_value(c.n) AS n,
               1 + count(*) FILTER (WHERE o.ci_low > c.ci_high) AS rank_best,
               count(*) FILTER (WHERE o.ci_high >= c.ci_low) AS rank_worst,
               count(*) AS n_models, median(o.value) AS field_median
        FROM cell c JOIN cell o ON o.task = c.task AND o.lang = c.lang AND o.prompt_lang = c.prompt_lang
                                AND o.metric = c.metric
        WHERE c.model_id = ? GROUP BY ALL)
    SELECT *, value - field_median AS delta FROM ranked"""
"""The Model page's field as the query computed it before V12 (cells and extremes both ran it)."""

OLD_FAILS = """
    SELECT r.lang, r.prompt_lang, sum(c.answers) AS answers, sum(c.unparsed) AS unparsed,
           100.0 * sum(c.unparsed) / sum(c.answers) AS fail_pct
    FROM runs r JOIN run_counts c USING (run_id) WHERE r.model_id = ? AND NOT r.superseded GROUP BY ALL"""


def generate(con, n_models: int, n_cells: int) -> None:
    """Models, tasks (the sentiment task's spec, under n_cells languages' worth of synthetic cell keys), runs with
    answer counts, and headline aggregates with intervals."""
    sync_registry(con)
    con.execute("""
        INSERT INTO models (model_id, origin, weights)
        SELECT 'model-' || lpad(i::VARCHAR, 3, '0'), 'evaluated', 'open' FROM range(?) t(i)""", [n_models])
    con.execute("""
        INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, run_no, source, superseded)
        SELECT m.model_id || '/' || c || '/' || p, m.model_id, 'sentiment', 'x' || c, p, 1, 'evaluated', false
        FROM models m, range(?) t(c), (VALUES ('en'), ('native')) v(p)""", [n_cells])
    con.execute("INSERT INTO run_counts (run_id, answers, unparsed) "
                "SELECT run_id, 200, hash(run_id) % 20 FROM runs")
    con.execute("""
        INSERT INTO aggregates (model_id, task, lang, prompt_lang, metric, value, ci_low, ci_high, n, n_runs,
                                parse_fail_rate, chance, normalized, is_headline, status)
        SELECT model_id, task, lang, prompt_lang, 'accuracy', v, v - 6, v + 6, 200, 1, 0.05, 33.3, v, true, 'ok'
        FROM (SELECT *, 20 + (hash(run_id) % 600) / 10.0 AS v FROM runs)""")
    con.execute("""
        INSERT INTO rollups (model_id, prompt_lang, family, score, level, key, value, coverage)
        SELECT model_id, prompt_lang, '', 'value', lvl, k, avg(value) + off, count(*)
        FROM aggregates, (VALUES ('overall', '', 0), ('interval', 'low', -2), ('interval', 'high', 2)) x(lvl, k, off)
        GROUP BY model_id, prompt_lang, lvl, k, off""")


def median_ms(fn, repeat: int, before=lambda: None) -> float:
    """Median wall time of `fn` over `repeat` calls after a warm-up, `before` run (untimed) ahead of each."""
    before()
    fn()
    times = []
    for _ in range(repeat):
        before()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--cells", type=int, default=60, help="headline cells per model and prompt language")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        con = db.connect(Path(tmp) / "figures.duckdb")
        generate(con, args.models, args.cells)
        models = [r[0] for r in con.execute("SELECT model_id FROM models ORDER BY 1").fetchall()]
        with transaction(con):
            refresh_model_figures(con, models)
        one = models[len(models) // 2]

        def in_tx(fn):
            def run():
                with transaction(con):
                    fn()
            return run

        def change(cells: str):  # new values on one model's cells, as a refresh after writing them finds
            return lambda: con.execute(f"UPDATE aggregates SET value = value + 0.125 WHERE model_id = ? AND {cells}",
                                       [one])

        refresh = in_tx(lambda: refresh_model_figures(con, [one]))
        unchanged = median_ms(refresh, args.repeat)
        one_cell = median_ms(in_tx(lambda: refresh_model_figures(con, [one], [("sentiment", "x0", "en")])),
                             args.repeat, change("lang = 'x0' AND prompt_lang = 'en'"))
        every_cell = median_ms(refresh, args.repeat, change("true"))
        ranks = median_ms(in_tx(lambda: refresh_ranks(con)), args.repeat)
        new_read = median_ms(lambda: (model_cells(con, model=one), model_extremes(con, model=one),
                                      model_extremes(con, model=one, side="weakness"),
                                      model_parse_failures(con, model=one)), args.repeat)
        old_read = median_ms(lambda: (con.execute(OLD_FIELD, [one]).df(), con.execute(OLD_FIELD, [one]).df(),
                                      con.execute(OLD_FIELD, [one]).df(), con.execute(OLD_FAILS, [one]).df()),
                             args.repeat)
        rows = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("aggregates", "cell_field", "parse_failures")}
        con.close()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.2f}; {args.models} models x {args.cells} cells x 2 prompt languages; "
          f"rows {rows}; medians of {args.repeat}")
    print(f"refresh_model_figures of one model ({2 * args.cells} cells, each with {args.models} models; parse "
          f"failures, ceilings): one cell changed (a live runner's cell) {one_cell:.1f} ms, every cell changed (an "
          f"ingest) {every_cell:.1f} ms, nothing changed {unchanged:.1f} ms; refresh_ranks (every model), same run: "
          f"{ranks:.1f} ms")
    print(f"Model page figures: stored {new_read:.1f} ms; computed at read time (before V12) {old_read:.1f} ms")


if __name__ == "__main__":
    main()
