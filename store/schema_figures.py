"""Migrations 9-15: the figures computed once by the evaluator and stored for the pages to read, the
item outcomes' answers in a shape that is cheaper to write and each run's tokens and latency.

V9 human-evaluation results of open campaigns, V10 cost and speed per model, V11 LINDSEA / PACUTE drill-down levels,
V12 page figures (reported rows normalised, a cell's field, parse failures, PACUTE ceilings, a file's own scores per
run), V13 Compare's paired tests, V14 item outcomes' answers without their order text, V15 each run's tokens and
latency beside its answer counts. `store.schema.MIGRATIONS` applies them in order after V1-V8.
"""
from __future__ import annotations

V9 = (
    """CREATE TABLE IF NOT EXISTS campaign_provisional (
        campaign_id VARCHAR,                   -- an OPEN campaign: its figures from the judgements so far
        kind VARCHAR, system VARCHAR, criterion VARCHAR, level VARCHAR,   -- as campaign_results
        value DOUBLE, low DOUBLE, high DOUBLE, -- tau: no interval (NULL) until the campaign finishes
        n INTEGER, items INTEGER, correct INTEGER,
        PRIMARY KEY (campaign_id, kind, system, criterion, level))""",
    """CREATE TABLE IF NOT EXISTS campaign_quality (
        campaign_id VARCHAR, annotator VARCHAR,
        repeat_agreement DOUBLE,               -- share of repeated judgements equal to the first (NULL: no repeat)
        repeats INTEGER,
        caught_corrupted BOOLEAN,              -- NULL: the annotator did not judge the corrupted candidate
        PRIMARY KEY (campaign_id, annotator))""",
    """CREATE TABLE IF NOT EXISTS language_alphas (
        protocol VARCHAR, lang VARCHAR, criterion VARCHAR,
        campaigns INTEGER,                     -- campaigns whose judgements count
        level VARCHAR, alpha DOUBLE, units INTEGER, annotators INTEGER,
        PRIMARY KEY (protocol, lang, criterion))""",
    """CREATE TABLE IF NOT EXISTS campaign_computed (
        campaign_id VARCHAR PRIMARY KEY,       -- the judgements and status its stored figures were computed from:
        status VARCHAR, judgements BIGINT, last_judged TIMESTAMP,   -- a difference means they are stale
        computed_at TIMESTAMP DEFAULT current_timestamp)""",
)
"""Human-evaluation figures stored when judgements are written: an open campaign's provisional results,
quality checks per annotator, Krippendorff's alpha per protocol and language across campaigns, all computed by
evaluator.human.results in the judgement's transaction (services.human_results), and what each campaign's figures
were computed from, so a store upgraded to V9 or a Hub pull recomputes the stale ones once."""

V10 = (
    """CREATE TABLE IF NOT EXISTS model_usage (
        model_id VARCHAR, prompt_lang VARCHAR,
        family VARCHAR,                        -- benchmark family, '' = every family
        requests BIGINT, tokens_in BIGINT, tokens_out BIGINT,   -- over the model's current (not superseded) runs
        mean_latency_s DOUBLE,                 -- per timed request; NULL when no request was timed
        cost DOUBLE,                           -- at the runs' operator prices; NULL unless every run with tokens has both
        PRIMARY KEY (model_id, prompt_lang, family))""",
)
"""Cost and speed per model, computed by evaluator.usage.usage_summary whenever a model's roll-ups are refreshed
(services.usage_store) and only filtered by the leaderboard's "Cost and speed" table."""

V11 = (
    """CREATE TABLE IF NOT EXISTS drill_levels (
        model_id VARCHAR, lang VARCHAR, prompt_lang VARCHAR,
        scope VARCHAR,                         -- 'lindsea' (the language's LINDSEA tasks pooled, 0/1 metrics) or a
        metric VARCHAR,                        -- PACUTE hierarchy task with its metric ('' for LINDSEA)
        depth INTEGER,                         -- 0 = everything pooled; d = grouped by the first d keys
        branch VARCHAR, phenomenon VARCHAR, category VARCHAR, subcategory VARCHAR,  -- LINDSEA keys
        level INTEGER,                         -- PACUTE key
        n BIGINT, correct DOUBLE,              -- items and the sum of their scores (0-1)
        value DOUBLE, ci_low DOUBLE, ci_high DOUBLE,   -- 100 * correct / n and its 95% Wilson interval (0-100)
        chance DOUBLE, parts INTEGER,          -- groups one level down
        macro DOUBLE)                          -- the mean of their values (NULL at the deepest level)""",
)
"""Drill-down levels (LINDSEA tree, PACUTE levels) pooled from the node counts by evaluator.drill_levels whenever a
model's roll-ups are refreshed (services.drill_levels); the explorer pages only filter them."""

V12 = (
    """CREATE TABLE IF NOT EXISTS reported_normalized (
        source VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR, system VARCHAR,
        value DOUBLE,                          -- the reported value it was computed from
        chance DOUBLE,                         -- 0-100, as the cell's aggregates use it (NULL: none)
        normalized DOUBLE)                     -- (value - chance) / (100 - chance) * 100 (NULL without chance)""",
    """CREATE TABLE IF NOT EXISTS cell_field (
        model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR,   -- a headline cell
        rank_best INTEGER, rank_worst INTEGER, -- rank range among the visible models' intervals on the cell
        n_models INTEGER,                      -- visible models with a scored value on the cell
        field_median DOUBLE, delta DOUBLE,     -- their median value, and this model's value minus it
        inputs_hash VARCHAR,                   -- of the cell's visible scored rows it was computed from (a
                                               -- refresh recomputes only cells whose rows changed)
        PRIMARY KEY (model_id, task, lang, prompt_lang, metric))""",
    """CREATE TABLE IF NOT EXISTS parse_failures (
        model_id VARCHAR, lang VARCHAR, prompt_lang VARCHAR,   -- current runs, open-ended tasks left out
        answers BIGINT, unparsed BIGINT,
        fail_pct DOUBLE,                       -- 100 * unparsed / answers
        PRIMARY KEY (model_id, lang, prompt_lang))""",
    """CREATE TABLE IF NOT EXISTS control_ceilings (
        model_id VARCHAR, fmt VARCHAR, metric VARCHAR,  -- PACUTE format (mcq | gen) and metric, English prompt
        ceiling DOUBLE,                        -- mean of the control tasks' values (0-100)
        controls VARCHAR,                      -- the control stems averaged, e.g. 'langgame, mda'
        n BIGINT,                              -- their items together
        PRIMARY KEY (model_id, fmt, metric))""",
    """CREATE TABLE IF NOT EXISTS run_self_reported (
        run_id VARCHAR, metric VARCHAR,
        value DOUBLE,                          -- mean of the file's own per-item scores (its own scale)
        items BIGINT,
        PRIMARY KEY (run_id, metric))""",
)
"""Figures the pages showed as read-time arithmetic, now computed by the evaluator and stored by the
wiring (services.page_figures): the papers' reported rows normalised like the aggregates (when they load), each
headline cell's rank range and field median among the visible models and each model's parse failures per language
and PACUTE control ceiling (whenever a model's roll-ups are refreshed), and the mean of an uploaded file's own
per-item scores per run (at ingest). Queries only filter and join them."""

V13 = (
    """CREATE TABLE IF NOT EXISTS pair_tests (
        task VARCHAR, lang VARCHAR, metric VARCHAR,
        model_a VARCHAR, prompt_lang_a VARCHAR,   -- system A (model | prompt language)
        model_b VARCHAR, prompt_lang_b VARCHAR,   -- system B; every pair is stored in both orders
        cell_a BIGINT, cell_b BIGINT,          -- the drill_cells numbers whose item outcomes it was computed from
        n INTEGER,                             -- items both systems have a score for (0: none, no test)
        diff DOUBLE, ci_low DOUBLE, ci_high DOUBLE,   -- mean A - B on 0-100 and its 95% paired-bootstrap interval
        p_value DOUBLE, method VARCHAR,        -- mcnemar-exact (0/1 scores) | paired-bootstrap
        a_only INTEGER, b_only INTEGER,        -- items only A / only B got right (0/1 scores)
        PRIMARY KEY (task, lang, metric, model_a, prompt_lang_a, model_b, prompt_lang_b))""",
)
"""The Compare page's paired test between every two systems of a (task, lang, metric) on all the items both
answered, computed by evaluator.pair_tests whenever a cell's item outcomes are refreshed (services.pair_tests) and
only read by the page. V12 is another slice's; versions are applied by number, whichever lands first."""

ANSWERS_V14 = "STRUCT(run_no INTEGER, ba BOOLEAN, value DOUBLE)[]"
"""item_outcomes.answers since V14: each answer's run number, whether it was asked in option order "ba" (NULL for
every answer of an item never asked in order "ba", as right_ba), and its score."""
ANSWERS_FROM_V7 = """CASE WHEN right_ba IS NULL
        THEN list_transform(answers, lambda a: {'run_no': a.run_no, 'ba': NULL::BOOLEAN, 'value': a.value})
        ELSE list_transform(answers, lambda a: {'run_no': a.run_no, 'ba': a.ord = 'ba', 'value': a.value}) END"""
"""An item_outcomes row's answers as written before V14 (each answer's order as text, "ab" or "ba") in the V14
shape: the migration and the import of an older Parquet export (store.parquet, store.scale) convert with it."""

V14 = (f"ALTER TABLE item_outcomes ALTER answers SET DATA TYPE {ANSWERS_V14} USING {ANSWERS_FROM_V7}",)
"""The item outcomes' answers without their order text: a refresh wrote 100,000 order strings for
100,000 answers, a third of its item-outcome insert and commit; Compare's answer list reads `ba`."""

RUN_USAGE_FILL = (
    """UPDATE run_counts SET tokens_in = p.tokens_in, tokens_out = p.tokens_out, latency_sum = p.latency_sum,
              latency_n = p.latency_n
       FROM (SELECT run_id, coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
                    coalesce(sum(latency_s), 0.0) AS latency_sum, count(latency_s) AS latency_n
             FROM predictions WHERE run_id IN (SELECT run_id FROM run_counts WHERE latency_n IS NULL)
             GROUP BY run_id) p
       WHERE run_counts.run_id = p.run_id AND run_counts.latency_n IS NULL""",
    """UPDATE run_counts SET tokens_in = 0, tokens_out = 0, latency_sum = 0.0, latency_n = 0
       WHERE latency_n IS NULL""",
)
"""Each run count row without tokens and latency (written before V15, or pulled from an older export) gets them
from the run's prediction rows (none: zeros). Later refreshes of the run's cell write them from its rows
(`store.drilldown._save_run_counts`)."""

V15 = ("ALTER TABLE run_counts ADD COLUMN tokens_in BIGINT", "ALTER TABLE run_counts ADD COLUMN tokens_out BIGINT",
       "ALTER TABLE run_counts ADD COLUMN latency_sum DOUBLE", "ALTER TABLE run_counts ADD COLUMN latency_n BIGINT",
       *RUN_USAGE_FILL)
"""Each run's tokens in and out, latency sum and timed answers beside its answer counts, written with
them when its cell is aggregated: a refresh of a model's cost and speed (`store.usage.run_usage`) reads its runs'
rows, not every prediction row of the store (the join on run ids scanned all of them at every live cell refresh:
10.6-13.8 ms a model on a 5,000,000-row store, `benchmarks/bench_run_usage.py`)."""
