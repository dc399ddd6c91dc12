"""The store's schema: store/schema.sql is the current one (every table and view), which a new store is created
from; the versioned migrations below upgrade an older store to it. `ensure_schema` does either in one transaction.

Primary keys are natural keys so that re-ingesting the same rows is a no-op:
items by (task, lang, item_id); runs by run_id (a hash of model, task, lang, prompt language, run number
and source); predictions by (run_id, item_id, order); scores by (run_id, item_id, order, metric);
aggregates by (model_id, task, lang, prompt_lang, metric).
"""
from __future__ import annotations

import re
from pathlib import Path

import duckdb

from store.schema_figures import V9, V10, V11, V12, V13, V14, V15

CURRENT_SCHEMA = (Path(__file__).with_name("schema.sql")).read_text(encoding="utf-8")
"""Every table and view of the current schema (store/schema.sql)."""
VIEW_SQL = {m.group(1): m.group(0) for m in re.finditer(r"^CREATE VIEW (\w+) AS.*?;$", CURRENT_SCHEMA, re.S | re.M)}
"""View name -> its CREATE VIEW statement, from CURRENT_SCHEMA."""
VIEWS = tuple(VIEW_SQL)
"""Figures once stored as tables, now views over the stored rows: an older store's tables of these names are
dropped by V17 and V18, an older export's files of them are not imported (`store.parquet.checked_manifest`)."""

V1 = (
    """CREATE TABLE IF NOT EXISTS schema_version (
        version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)""",
    """CREATE TABLE IF NOT EXISTS models (
        model_id VARCHAR PRIMARY KEY,          -- the model name as shown
        family VARCHAR, organisation VARCHAR,
        params_b DOUBLE,                       -- parameters in billions, NULL when unknown
        model_type VARCHAR,                    -- base | instruct | reasoning
        origin VARCHAR NOT NULL,               -- evaluated | uploaded | reported | demo
        weights VARCHAR,                       -- open | closed
        licence VARCHAR, url VARCHAR,
        sea_tuned BOOLEAN DEFAULT false,
        hidden BOOLEAN DEFAULT false,
        created_at TIMESTAMP DEFAULT current_timestamp)""",
    """CREATE TABLE IF NOT EXISTS tasks (
        task VARCHAR PRIMARY KEY, family VARCHAR, grp VARCHAR, langs VARCHAR[], mode VARCHAR,
        metrics VARCHAR[], headline JSON, chance JSON, description VARCHAR, version INTEGER)""",
    """CREATE TABLE IF NOT EXISTS items (
        task VARCHAR, lang VARCHAR, item_id VARCHAR,
        inputs JSON, gold JSON, options JSON, metadata JSON, warnings VARCHAR[],
        phenomenon VARCHAR, category VARCHAR, subcategory VARCHAR, level INTEGER,
        content_hash VARCHAR,                  -- hash of the inputs, to match foreign ids
        PRIMARY KEY (task, lang, item_id))""",
    """CREATE TABLE IF NOT EXISTS runs (
        run_id VARCHAR PRIMARY KEY,
        model_id VARCHAR NOT NULL, task VARCHAR NOT NULL, lang VARCHAR NOT NULL,
        prompt_lang VARCHAR NOT NULL,          -- en | native
        run_no INTEGER NOT NULL DEFAULT 1,
        settings JSON,                         -- generation settings, endpoint, harness options
        source VARCHAR NOT NULL,               -- evaluated | upload | demo
        harness VARCHAR,                       -- tanaw | seahelm | lm-eval | pacute-bench | native
        source_file VARCHAR, source_hash VARCHAR,
        superseded BOOLEAN DEFAULT false,      -- replaced by a newer upload; kept as history
        created_at TIMESTAMP DEFAULT current_timestamp)""",
    """CREATE TABLE IF NOT EXISTS predictions (
        run_id VARCHAR, item_id VARCHAR, ord VARCHAR DEFAULT 'ab',
        prompt VARCHAR, output VARCHAR, answer VARCHAR, parsed BOOLEAN,
        reasoning VARCHAR, tokens_in INTEGER, tokens_out INTEGER, latency_s DOUBLE, finish_reason VARCHAR,
        option_logprobs DOUBLE[], extras JSON,
        created_at TIMESTAMP DEFAULT current_timestamp,
        PRIMARY KEY (run_id, item_id, ord))""",
    """CREATE TABLE IF NOT EXISTS scores (
        run_id VARCHAR, item_id VARCHAR, ord VARCHAR DEFAULT 'ab', metric VARCHAR, value DOUBLE,
        PRIMARY KEY (run_id, item_id, ord, metric))""",
    """CREATE TABLE IF NOT EXISTS aggregates (
        model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR,
        value DOUBLE,                          -- 0-100 scale; NULL when not scored
        ci_low DOUBLE, ci_high DOUBLE,
        n INTEGER, n_runs INTEGER,
        parse_fail_rate DOUBLE,                -- share of outputs that could not be parsed (0-1)
        chance DOUBLE,                         -- 0-100 scale
        normalized DOUBLE,                     -- (value - chance) / (100 - chance) * 100, not clipped
        is_headline BOOLEAN,
        status VARCHAR,                        -- ok | not_scored | unavailable
        note VARCHAR,
        computed_at TIMESTAMP DEFAULT current_timestamp,
        PRIMARY KEY (model_id, task, lang, prompt_lang, metric))""",
    """CREATE TABLE IF NOT EXISTS reported (
        source VARCHAR, citation VARCHAR, task VARCHAR, lang VARCHAR, metric VARCHAR, paper_metric VARCHAR,
        system VARCHAR, prompt_lang VARCHAR, value DOUBLE, note VARCHAR)""",
    """CREATE TABLE IF NOT EXISTS self_reported (
        run_id VARCHAR, item_id VARCHAR, metric VARCHAR, value DOUBLE,
        PRIMARY KEY (run_id, item_id, metric))""",
    """CREATE TABLE IF NOT EXISTS ingests (
        source_hash VARCHAR PRIMARY KEY, file_name VARCHAR, format VARCHAR, model_id VARCHAR,
        n_rows INTEGER, actor VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp)""",
)

V3 = (
    """CREATE TABLE IF NOT EXISTS ratings (
        task VARCHAR, lang VARCHAR, item_id VARCHAR,
        model_id VARCHAR, rater VARCHAR,
        criterion VARCHAR,                     -- score column name in the uploaded CSV
        value DOUBLE,
        source_file VARCHAR, source_hash VARCHAR,
        created_at TIMESTAMP DEFAULT current_timestamp,
        PRIMARY KEY (task, lang, item_id, model_id, rater, criterion))""",
)
"""Human ratings of open-ended (cultural) responses as uploaded before V8, which copies them into the campaign tables
(protocol 'ratings'); nothing writes or reads this table since."""

V4 = (
    """CREATE TABLE IF NOT EXISTS submissions (
        request_id VARCHAR PRIMARY KEY,        -- hash of model, endpoint and settings at request time
        model_id VARCHAR NOT NULL,             -- the name shown on the leaderboard
        backend VARCHAR NOT NULL,              -- openai (an OpenAI-compatible endpoint) | hub (a Hub model id)
        base_url VARCHAR,                      -- endpoint for backend=openai
        hub_model VARCHAR, revision VARCHAR,   -- Hub repo id and revision for backend=hub
        api_key_env VARCHAR,                   -- name of the env var holding the key (never the key itself)
        tasks VARCHAR, langs VARCHAR, prompt_langs VARCHAR,   -- comma lists as given to `evaluator run`
        item_limit INTEGER,
        submitter VARCHAR, note VARCHAR,
        status VARCHAR NOT NULL DEFAULT 'PENDING',   -- PENDING | RUNNING | FINISHED | FAILED
        worker VARCHAR, error VARCHAR, n_results INTEGER,
        created_at TIMESTAMP DEFAULT current_timestamp,
        started_at TIMESTAMP, finished_at TIMESTAMP)""",
    """CREATE TABLE IF NOT EXISTS hub_sync (
        synced_at TIMESTAMP DEFAULT current_timestamp,
        action VARCHAR,                        -- pull | push
        repo_id VARCHAR, revision VARCHAR,     -- commit pulled or pushed
        ok BOOLEAN, message VARCHAR, pr_url VARCHAR)""",
)
"""Evaluation requests (the submission queue) and the log of Hub pulls and pushes (never exported)."""

V2 = (
    """CREATE TABLE IF NOT EXISTS audit (
        happened_at TIMESTAMP DEFAULT current_timestamp,
        actor VARCHAR NOT NULL,                -- who: "cli:<user>", "web:<token label>", "admin"
        action VARCHAR NOT NULL,               -- upload | noop | reject | hide | unhide | delete | replace
        source_hash VARCHAR, model_id VARCHAR, file_name VARCHAR,
        detail VARCHAR)                        -- one line: counts, reasons""",
    """CREATE TABLE IF NOT EXISTS uploads (
        source_hash VARCHAR PRIMARY KEY,       -- sha256 of the uploaded bytes (same key as ingests)
        model_id VARCHAR NOT NULL, file_name VARCHAR, formats VARCHAR,
        status VARCHAR NOT NULL DEFAULT 'visible',   -- visible | hidden (deleted uploads leave only audit rows)
        n_predictions INTEGER, n_summary INTEGER, n_warnings INTEGER,
        actor VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp)""",
    """CREATE TABLE IF NOT EXISTS self_reported_cells (
        source_hash VARCHAR, model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR,
        metric VARCHAR, value DOUBLE,          -- as the file gives it (its own scale); never ranked
        PRIMARY KEY (source_hash, model_id, task, lang, prompt_lang, metric))""",
)
"""Uploads: an audit trail of who did what and when, per-upload visibility, and summary-file scores
(SEA-HELM / lm-eval results JSON, pacute-bench evaluation_results) kept as self-reported cells."""

V5 = (
    """CREATE TABLE IF NOT EXISTS rollups (
        model_id VARCHAR, prompt_lang VARCHAR,
        family VARCHAR,                        -- benchmark family, '' = every family
        score VARCHAR,                         -- value | normalized (both 0-100)
        level VARCHAR,                         -- overall | competency | language
        key VARCHAR,                           -- competency or language code; '' for overall
        value DOUBLE, coverage INTEGER,        -- the mean and the number of headline cells behind it
        PRIMARY KEY (model_id, prompt_lang, family, score, level, key))""",
    """CREATE TABLE IF NOT EXISTS metrics (
        metric VARCHAR PRIMARY KEY, display VARCHAR,
        is_binary BOOLEAN,                     -- per-item scores are 0/1 (an item is right or wrong)
        higher_is_better BOOLEAN)""",
)
"""Roll-ups of each model's headline cells (computed by `evaluator.rollup` at ingest) and the metric registry's
facts the queries need (which metrics are 0/1), both written by the wiring."""

V6 = (
    """CREATE TABLE IF NOT EXISTS campaigns (
        campaign_id VARCHAR PRIMARY KEY,
        task VARCHAR NOT NULL, lang VARCHAR NOT NULL,
        protocol VARCHAR NOT NULL,             -- mt | summarisation | ratings (an imported ratings CSV)
        systems JSON,                          -- [[model_id, prompt_lang], ...] rated (the reference is one more)
        n_items INTEGER, k INTEGER,            -- sampled items; annotators per item
        seed INTEGER,                          -- the sampling and shuffling seed, recorded
        n_repeats INTEGER,                     -- quality-check repeats per annotator
        status VARCHAR NOT NULL DEFAULT 'open',   -- open | finished
        created_by VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp, finished_at TIMESTAMP)""",
    """CREATE TABLE IF NOT EXISTS campaign_candidates (
        campaign_id VARCHAR, item_id VARCHAR,
        cand_id VARCHAR,                       -- opaque id shown to nobody; the page numbers candidates 1..n
        system VARCHAR,                        -- "model_id|prompt_lang", "reference" or "corrupted" (never shown)
        text VARCHAR,
        PRIMARY KEY (campaign_id, item_id, cand_id))""",
    """CREATE TABLE IF NOT EXISTS campaign_assignments (
        campaign_id VARCHAR, annotator VARCHAR,
        seq INTEGER,                           -- the annotator's n-th item (0-based)
        item_id VARCHAR,
        cand_order VARCHAR[],                  -- this annotator's shuffled candidate order
        is_repeat BOOLEAN DEFAULT false,       -- a quality-check repeat of an earlier item
        PRIMARY KEY (campaign_id, annotator, seq))""",
    """CREATE TABLE IF NOT EXISTS judgements (
        campaign_id VARCHAR, annotator VARCHAR, seq INTEGER, item_id VARCHAR, cand_id VARCHAR,
        criterion VARCHAR,                     -- a criterion of the campaign's protocol (evaluator.human.protocols)
        value DOUBLE, note VARCHAR,            -- note: the comment (criterion 'comment') or error spans as JSON
        created_at TIMESTAMP DEFAULT current_timestamp,
        PRIMARY KEY (campaign_id, annotator, seq, cand_id, criterion))""",
    """CREATE TABLE IF NOT EXISTS campaign_tokens (
        campaign_id VARCHAR, annotator VARCHAR,
        token_hash VARCHAR UNIQUE,             -- sha256 of the annotator's personal token (the token is never stored)
        created_at TIMESTAMP DEFAULT current_timestamp,
        PRIMARY KEY (campaign_id, annotator))""",
)
"""Human evaluation campaigns: sampled items with blinded candidates, per-annotator assignments,
judgements, and the hashed annotator tokens (kept out of exports and the Hub sync)."""

V7 = (
    """CREATE TABLE IF NOT EXISTS drill_cells (
        cell_no BIGINT NOT NULL,               -- write number (max + 1): a cell's item_outcomes rows sit together
        model_id VARCHAR NOT NULL, task VARCHAR NOT NULL, lang VARCHAR NOT NULL, prompt_lang VARCHAR NOT NULL,
        answers INTEGER, unparsed INTEGER,     -- answers of the active runs, and those that could not be parsed
        items INTEGER,                         -- distinct items with a per-item score
        computed_at TIMESTAMP DEFAULT current_timestamp)""",
    """CREATE TABLE IF NOT EXISTS drill_nodes (
        cell_no BIGINT,                        -- drill_cells.cell_no: reads of a model's cells skip the others
        model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR,
        phenomenon VARCHAR, category VARCHAR, subcategory VARCHAR, level INTEGER,   -- the items' node (NULL: none)
        n INTEGER,                             -- items
        correct DOUBLE,                        -- sum of item scores (0-1: mean over runs and option orders)
        wrong INTEGER)                         -- items not right in every answer""",
    """CREATE TABLE IF NOT EXISTS item_outcomes (
        cell_no BIGINT,                        -- drill_cells.cell_no: reads of one cell skip other row groups
        model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR, item_id VARCHAR,
        value DOUBLE,                          -- item score 0-1: mean over runs and option orders
        right_ab BOOLEAN, right_ba BOOLEAN,    -- every answer in that option order scored 1 (NULL: not asked)
        right_all BOOLEAN,                     -- every answer scored 1
        parsed BOOLEAN,                        -- every answer parsed
        answers STRUCT(run_no INTEGER, ord VARCHAR, value DOUBLE)[])""",
    """CREATE TABLE IF NOT EXISTS run_counts (
        run_id VARCHAR,
        answers INTEGER, unparsed INTEGER,
        computed_at TIMESTAMP DEFAULT current_timestamp)   -- after every prediction row of the run (see below);
                                                           -- V15 adds tokens_in, tokens_out, latency_sum, latency_n""",
    """CREATE TABLE IF NOT EXISTS failed_flags (
        model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR,
        flag VARCHAR, item_id VARCHAR)         -- flagged items some answer got wrong on a 0/1 metric""",
)
"""Drill-down pre-aggregates, written with a cell's aggregates from `evaluator.drilldown`, so the explorer
pages read hundreds of rows instead of every answer: node counts, per-item outcomes clustered by cell, answers and
parse failures per run, and flagged failures. A run's prediction rows were written between runs.created_at and
run_counts.computed_at (transaction timestamps), which lets per-item reads of predictions skip other row groups."""

V8 = (
    """CREATE TABLE IF NOT EXISTS campaign_results (
        campaign_id VARCHAR,
        kind VARCHAR,                          -- mean (per system and criterion) | alpha (per criterion) | tau
        system VARCHAR,                        -- "model_id|prompt_lang" for kind mean, '' otherwise
        criterion VARCHAR,                     -- the criterion (mean, alpha) or the automatic metric (tau)
        level VARCHAR,                         -- alpha: level of measurement; tau: item | system; mean: ''
        value DOUBLE, low DOUBLE, high DOUBLE, -- the estimate and its 95% interval
        n INTEGER,                             -- judgements (mean), paired units (alpha), pairs or systems (tau)
        items INTEGER,                         -- items behind a mean
        correct INTEGER,                       -- MT: items a majority judged correct (of `items`)
        PRIMARY KEY (campaign_id, kind, system, criterion, level))""",
    # ratings uploaded before V8 (the Cultural page's CSV) become campaigns of protocol 'ratings', one per task and
    # language, as store.ratings writes them since: candidate id = the first 10 hex digits of sha256(model id),
    # one assignment per (rater, item) numbered in item order
    """INSERT INTO campaigns (campaign_id, task, lang, protocol, systems, n_items, k, seed, n_repeats, status,
                              created_by)
       SELECT 'ratings-' || task || '-' || lang, task, lang, 'ratings', to_json(list(DISTINCT model_id)),
              count(DISTINCT item_id), NULL, NULL, 0, 'finished', 'migration V8'
       FROM ratings GROUP BY task, lang ON CONFLICT DO NOTHING""",
    """INSERT OR IGNORE INTO campaign_candidates
       SELECT DISTINCT 'ratings-' || task || '-' || lang, item_id, left(sha256(model_id), 10), model_id, NULL
       FROM ratings""",
    """INSERT OR IGNORE INTO campaign_assignments
       SELECT cid, rater, (row_number() OVER (PARTITION BY cid, rater ORDER BY item_id) - 1)::INTEGER, item_id,
              cands, false
       FROM (SELECT 'ratings-' || task || '-' || lang AS cid, rater, item_id,
                    list_sort(list(DISTINCT left(sha256(model_id), 10))) AS cands
             FROM ratings GROUP BY ALL)""",
    """INSERT OR IGNORE INTO judgements (campaign_id, annotator, seq, item_id, cand_id, criterion, value, created_at)
       SELECT a.campaign_id, r.rater, a.seq, r.item_id, left(sha256(r.model_id), 10), r.criterion, r.value,
              r.created_at
       FROM ratings r JOIN campaign_assignments a ON a.campaign_id = 'ratings-' || r.task || '-' || r.lang
            AND a.annotator = r.rater AND a.item_id = r.item_id""",
)
"""Results of finished campaigns, computed once by evaluator.human.results when `campaign finish` runs and read by
the leaderboard's human column and the Human evaluation page."""

V16 = (
    "ALTER TABLE models ADD COLUMN owner VARCHAR DEFAULT 'operator'",   # models stored before: the operator's
    """CREATE TABLE IF NOT EXISTS uploader_tokens (
        uploader VARCHAR PRIMARY KEY,          -- the identity a token names: its models are "uploader:<name>"'s
        token_hash VARCHAR UNIQUE,             -- sha256 of the uploader's token (the token is never stored)
        created_by VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp)""",
)
"""Model ownership: every model belongs to the identity that first wrote it ("operator" for the command line and
for models stored before V16, "uploader:<name>" for an uploader token, "upload-token" for the shared
TANAW_UPLOAD_TOKEN), and only that identity adds runs to it or changes its card (services.upload.ingest_upload);
the per-uploader tokens the operator issues (`python -m evaluator uploader add`), kept out of exports like
campaign tokens."""

V17 = tuple(stmt for name in ("parse_failures", "run_self_reported")
            for stmt in (f"DROP TABLE IF EXISTS {name}", VIEW_SQL[name]))
"""Figures a query derives in milliseconds become views (store/schema.sql): parse failures per language (V12) from
the run counts, the mean of a file's own scores per run (V12) from its per-item rows."""
V18 = ("DROP TABLE IF EXISTS failed_flags", VIEW_SQL["failed_flags"])
"""The failed items' data-quality flags (V7) become a view over the item outcomes and the items' warnings."""

V19 = (
    """CREATE TABLE IF NOT EXISTS judge_calls (
    call_key VARCHAR PRIMARY KEY,          -- sha256 of judge model, template version, sampling settings and messages
    judge_model VARCHAR, template VARCHAR, -- template as "name@version" (evaluator/judge/templates.yaml)
    sampling JSON, reply VARCHAR,          -- the judge's reply as received (untrusted text)
    tokens_in INTEGER, tokens_out INTEGER, cost_usd DOUBLE,   -- cost: NULL when no price was given
    created_at TIMESTAMP DEFAULT current_timestamp)""",
    """CREATE TABLE IF NOT EXISTS judge_scores (
    run_id VARCHAR, item_id VARCHAR, ord VARCHAR,   -- the judged turn's answer (order t1, t2, ...)
    judge_model VARCHAR, template VARCHAR, -- who judged, with which prompt ("name@version")
    kind VARCHAR,                          -- single (rating 1-10) | pairwise (1 win, 0.5 tie, 0 loss vs the reference)
    value DOUBLE,                          -- a judge score, never a metric score; NULL: no readable verdict
    verdict VARCHAR,                       -- the rating read, or each order's outcome and the combined one
    sampling JSON,                         -- the judge's sampling settings
    call_keys VARCHAR[],                   -- the judge_calls behind it (empty when self-reported)
    origin VARCHAR,                        -- judged | self-reported (imported with its judge named)
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, ord, judge_model, template))""",
)
"""The LLM judge (evaluator.judge): every call with its reply, tokens and cost, keyed for the cache (private: the
operator's spending), and the judge scores of conversation turns, named by judge and template, apart from metric
scores (public)."""

V20 = (
    "ALTER TABLE models ADD COLUMN IF NOT EXISTS declared_data VARCHAR[]",
    "ALTER TABLE models ADD COLUMN IF NOT EXISTS training_data VARCHAR",
    """CREATE TABLE IF NOT EXISTS leakage_signals (
        model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR,
        signal VARCHAR, flagged BOOLEAN, item_ids VARCHAR[],
        statistic DOUBLE, p_value DOUBLE, ci_low DOUBLE, ci_high DOUBLE, n_items INTEGER, detail VARCHAR,
        computed_at TIMESTAMP DEFAULT current_timestamp,
        PRIMARY KEY (model_id, task, lang, prompt_lang, signal))""",
)
"""Data-leakage evidence: a model card's declared training data (benchmarks it saw, and its own words), and the
leakage signals per cell (`evaluator.leakage.LeakSignal`, written by `store.leakage`): signals read from a cell's
stored outputs when the cell changes, and the `leakage` run mode's probes."""

V21 = ("ALTER TABLE submissions ADD COLUMN IF NOT EXISTS mode VARCHAR",)
"""A queued request's mode: NULL (an evaluation run) or 'leakage' (the `leakage` run mode's probes)."""

MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = ((1, V1), (2, V2), (3, V3), (4, V4), (5, V5), (6, V6),
                                                       (7, V7), (8, V8), (9, V9), (10, V10), (11, V11),
                                                       (12, V12), (13, V13), (14, V14), (15, V15), (16, V16),
                                                       (17, V17), (18, V18), (19, V19), (20, V20),
                                                       (21, V21))
"""(version, statements) in order; append a new version, never edit an applied one."""

PUBLIC_TABLES = ("models", "tasks", "items", "runs", "predictions", "scores", "aggregates", "reported",
                 "self_reported", "self_reported_cells", "uploads", "rollups", "metrics", "campaigns",
                 "campaign_results", "drill_cells", "drill_nodes", "item_outcomes", "run_counts", "model_usage",
                 "drill_levels", "reported_normalized", "cell_field", "control_ceilings", "pair_tests",
                 "judge_scores", "leakage_signals")
"""The only tables an export, a Hub push or a pull carries (store.parquet.public_tables): what the public board
shows (results, items, models, visible uploads, finished campaigns' figures) and the figures derived from them.
Every other table is private; a table added to the schema must be listed here or in PRIVATE_TABLES
(tests/store/test_private_tables.py)."""
PRIVATE_TABLES = ("schema_version", "hub_sync", "audit", "ingests", "submissions", "ratings", "campaign_candidates",
                  "campaign_assignments", "judgements", "campaign_tokens", "campaign_provisional",
                  "campaign_quality", "language_alphas", "campaign_computed", "uploader_tokens",
                  "judge_calls")
"""Tables that never leave the store and that an import never reads or changes: migrations and the Hub sync log,
the audit trail and ingest log (who did what), the submission queue (submitters, endpoint URLs, key variables),
the human evaluation's blind key and annotators (candidates with the system that wrote each text, assignments,
judgements, ratings, token hashes), the uploaders' token hashes, and the figures computed from those judgements (per-annotator quality, an open
campaign's provisional results, alphas), which each store computes from its own judgements."""


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    """Highest applied migration, 0 for an empty database."""
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'").fetchone()[0]
    if not exists:
        return 0
    return con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()[0]


def applied_versions(con: duckdb.DuckDBPyConnection) -> set[int]:
    """Versions recorded in schema_version (empty for a new database)."""
    if not current_version(con):
        return set()
    return {r[0] for r in con.execute("SELECT version FROM schema_version").fetchall()}


def ensure_schema(con: duckdb.DuckDBPyConnection) -> int:
    """Apply every migration not yet recorded, in version order, in one transaction, then checkpoint; returns the
    max version.

    The checkpoint writes the new schema into the database file, so the write-ahead log never holds a migration:
    DuckDB replays the log when it opens the file, before its built-in function extensions are loaded, and a
    logged ALTER whose expression calls one (V14's `list_transform`) then fails to replay (it tries to download
    the extension) and the store cannot be opened after a crash. If another transaction on this database is open,
    the checkpoint waits for the next one DuckDB makes (on close, or when the log grows)."""
    done = applied_versions(con)
    pending = sorted((v, stmts) for v, stmts in MIGRATIONS if v not in done)
    if not pending:
        return current_version(con)
    con.execute("BEGIN TRANSACTION")
    try:
        if not done:  # a new store: the current schema at once
            con.execute(CURRENT_SCHEMA)
            pending = [(v, ()) for v, _ in pending]
        for v, stmts in pending:
            for stmt in stmts:
                con.execute(stmt)
            con.execute("INSERT INTO schema_version (version) VALUES (?)", [v])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    try:
        con.execute("CHECKPOINT")
    except duckdb.Error:  # another transaction is open: DuckDB checkpoints later
        pass
    return current_version(con)


def row_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Row count of every table but the audit trail (which records refusals too) and the bookkeeping tables
    `schema_version` and `hub_sync`: what the integrity tests compare before and after a failed write."""
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' "
        "AND table_name NOT IN ('audit', 'schema_version', 'hub_sync') ORDER BY 1").fetchall()]
    return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
