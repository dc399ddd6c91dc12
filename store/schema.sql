-- The store's current schema: every table and view, as a new store is created (`store.schema.ensure_schema`).
-- An older store is upgraded by the migrations in store/schema.py and store/schema_figures.py, which end at this
-- same schema. Primary keys are natural keys, so re-ingesting the same rows is a no-op.
--
-- Stored: what arrives (models, items, runs, predictions, scores, reported rows, uploads, queue, human judgements)
-- and what is expensive to compute when a cell changes (bootstrapped cell aggregates, roll-ups and ranks, drill-down
-- pre-aggregates, paired tests, human-evaluation figures). Views: figures a query derives from those in
-- milliseconds, defined once at the end of this file.

CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp);

CREATE TABLE models (
    model_id VARCHAR PRIMARY KEY,          -- the model name as shown
    family VARCHAR, organisation VARCHAR,
    params_b DOUBLE,                       -- parameters in billions, NULL when unknown
    model_type VARCHAR,                    -- base | instruct | reasoning
    origin VARCHAR NOT NULL,               -- evaluated | uploaded | reported | demo
    weights VARCHAR,                       -- open | closed
    licence VARCHAR, url VARCHAR,
    sea_tuned BOOLEAN DEFAULT false,
    hidden BOOLEAN DEFAULT false,
    created_at TIMESTAMP DEFAULT current_timestamp,
    owner VARCHAR DEFAULT 'operator',      -- the identity that first wrote it: operator | uploader:<name> |
                                           -- upload-token; only it adds runs or changes the card
    declared_data VARCHAR[],               -- benchmarks or datasets the card declares in its training data (task
                                           -- names, families or dataset names): flagged on those cells
    training_data VARCHAR);                -- the card's own words on its training data (plain text, never rendered)

CREATE TABLE tasks (
    task VARCHAR PRIMARY KEY, family VARCHAR, grp VARCHAR, langs VARCHAR[], mode VARCHAR,
    metrics VARCHAR[], headline JSON, chance JSON, description VARCHAR, version INTEGER);

CREATE TABLE items (
    task VARCHAR, lang VARCHAR, item_id VARCHAR,
    inputs JSON, gold JSON, options JSON, metadata JSON, warnings VARCHAR[],
    phenomenon VARCHAR, category VARCHAR, subcategory VARCHAR, level INTEGER,
    content_hash VARCHAR,                  -- hash of the inputs, to match foreign ids
    PRIMARY KEY (task, lang, item_id));

CREATE TABLE runs (
    run_id VARCHAR PRIMARY KEY,
    model_id VARCHAR NOT NULL, task VARCHAR NOT NULL, lang VARCHAR NOT NULL,
    prompt_lang VARCHAR NOT NULL,          -- en | native
    run_no INTEGER NOT NULL DEFAULT 1,
    settings JSON,                         -- generation settings, endpoint, harness options
    source VARCHAR NOT NULL,               -- evaluated | upload | demo
    harness VARCHAR,                       -- tanaw | seahelm | lm-eval | pacute-bench | native
    source_file VARCHAR, source_hash VARCHAR,
    superseded BOOLEAN DEFAULT false,      -- replaced by a newer upload; kept as history
    created_at TIMESTAMP DEFAULT current_timestamp);

CREATE TABLE predictions (
    run_id VARCHAR, item_id VARCHAR, ord VARCHAR DEFAULT 'ab',
    prompt VARCHAR, output VARCHAR, answer VARCHAR, parsed BOOLEAN,
    reasoning VARCHAR, tokens_in INTEGER, tokens_out INTEGER, latency_s DOUBLE, finish_reason VARCHAR,
    option_logprobs DOUBLE[], extras JSON,
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, ord));

CREATE TABLE scores (
    run_id VARCHAR, item_id VARCHAR, ord VARCHAR DEFAULT 'ab', metric VARCHAR, value DOUBLE,
    PRIMARY KEY (run_id, item_id, ord, metric));

CREATE TABLE aggregates (
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
    PRIMARY KEY (model_id, task, lang, prompt_lang, metric));

CREATE TABLE reported (
    source VARCHAR, citation VARCHAR, task VARCHAR, lang VARCHAR, metric VARCHAR, paper_metric VARCHAR,
    system VARCHAR, prompt_lang VARCHAR, value DOUBLE, note VARCHAR);

CREATE TABLE self_reported (
    run_id VARCHAR, item_id VARCHAR, metric VARCHAR, value DOUBLE,
    PRIMARY KEY (run_id, item_id, metric));

CREATE TABLE ingests (
    source_hash VARCHAR PRIMARY KEY, file_name VARCHAR, format VARCHAR, model_id VARCHAR,
    n_rows INTEGER, actor VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp);

CREATE TABLE audit (
    happened_at TIMESTAMP DEFAULT current_timestamp,
    actor VARCHAR NOT NULL,                -- who: "cli:<user>", "web:<token label>", "admin"
    action VARCHAR NOT NULL,               -- upload | noop | reject | hide | unhide | delete | replace
    source_hash VARCHAR, model_id VARCHAR, file_name VARCHAR,
    detail VARCHAR                         -- one line: counts, reasons
);

CREATE TABLE uploads (
    source_hash VARCHAR PRIMARY KEY,       -- sha256 of the uploaded bytes (same key as ingests)
    model_id VARCHAR NOT NULL, file_name VARCHAR, formats VARCHAR,
    status VARCHAR NOT NULL DEFAULT 'visible',   -- visible | hidden (deleted uploads leave only audit rows)
    n_predictions INTEGER, n_summary INTEGER, n_warnings INTEGER,
    actor VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp);

CREATE TABLE self_reported_cells (
    source_hash VARCHAR, model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR,
    metric VARCHAR, value DOUBLE,          -- as the file gives it (its own scale); never ranked
    PRIMARY KEY (source_hash, model_id, task, lang, prompt_lang, metric));

CREATE TABLE ratings (
    task VARCHAR, lang VARCHAR, item_id VARCHAR,
    model_id VARCHAR, rater VARCHAR,
    criterion VARCHAR,                     -- score column name in the uploaded CSV
    value DOUBLE,
    source_file VARCHAR, source_hash VARCHAR,
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (task, lang, item_id, model_id, rater, criterion));

CREATE TABLE submissions (
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
    started_at TIMESTAMP, finished_at TIMESTAMP,
    mode VARCHAR);                         -- NULL: an evaluation run | leakage: the leakage probes

CREATE TABLE hub_sync (
    synced_at TIMESTAMP DEFAULT current_timestamp,
    action VARCHAR,                        -- pull | push
    repo_id VARCHAR, revision VARCHAR,     -- commit pulled or pushed
    ok BOOLEAN, message VARCHAR, pr_url VARCHAR);

CREATE TABLE rollups (
    model_id VARCHAR, prompt_lang VARCHAR,
    family VARCHAR,                        -- benchmark family, '' = every family
    score VARCHAR,                         -- value | normalized (both 0-100)
    level VARCHAR,                         -- overall | competency | language
    key VARCHAR,                           -- competency or language code; '' for overall
    value DOUBLE, coverage INTEGER,        -- the mean and the number of headline cells behind it
    PRIMARY KEY (model_id, prompt_lang, family, score, level, key));

CREATE TABLE metrics (
    metric VARCHAR PRIMARY KEY, display VARCHAR,
    is_binary BOOLEAN,                     -- per-item scores are 0/1 (an item is right or wrong)
    higher_is_better BOOLEAN);

CREATE TABLE campaigns (
    campaign_id VARCHAR PRIMARY KEY,
    task VARCHAR NOT NULL, lang VARCHAR NOT NULL,
    protocol VARCHAR NOT NULL,             -- mt | summarisation | ratings (an imported ratings CSV)
    systems JSON,                          -- [[model_id, prompt_lang], ...] rated (the reference is one more)
    n_items INTEGER, k INTEGER,            -- sampled items; annotators per item
    seed INTEGER,                          -- the sampling and shuffling seed, recorded
    n_repeats INTEGER,                     -- quality-check repeats per annotator
    status VARCHAR NOT NULL DEFAULT 'open',   -- open | finished
    created_by VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp, finished_at TIMESTAMP);

CREATE TABLE campaign_candidates (
    campaign_id VARCHAR, item_id VARCHAR,
    cand_id VARCHAR,                       -- opaque id shown to nobody; the page numbers candidates 1..n
    system VARCHAR,                        -- "model_id|prompt_lang", "reference" or "corrupted" (never shown)
    text VARCHAR,
    PRIMARY KEY (campaign_id, item_id, cand_id));

CREATE TABLE campaign_assignments (
    campaign_id VARCHAR, annotator VARCHAR,
    seq INTEGER,                           -- the annotator's n-th item (0-based)
    item_id VARCHAR,
    cand_order VARCHAR[],                  -- this annotator's shuffled candidate order
    is_repeat BOOLEAN DEFAULT false,       -- a quality-check repeat of an earlier item
    PRIMARY KEY (campaign_id, annotator, seq));

CREATE TABLE judgements (
    campaign_id VARCHAR, annotator VARCHAR, seq INTEGER, item_id VARCHAR, cand_id VARCHAR,
    criterion VARCHAR,                     -- a criterion of the campaign's protocol (evaluator.human.protocols)
    value DOUBLE, note VARCHAR,            -- note: the comment (criterion 'comment') or error spans as JSON
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (campaign_id, annotator, seq, cand_id, criterion));

CREATE TABLE campaign_tokens (
    campaign_id VARCHAR, annotator VARCHAR,
    token_hash VARCHAR UNIQUE,             -- sha256 of the annotator's personal token (the token is never stored)
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (campaign_id, annotator));

CREATE TABLE drill_cells (
    cell_no BIGINT NOT NULL,               -- write number (max + 1): a cell's item_outcomes rows sit together
    model_id VARCHAR NOT NULL, task VARCHAR NOT NULL, lang VARCHAR NOT NULL, prompt_lang VARCHAR NOT NULL,
    answers INTEGER, unparsed INTEGER,     -- answers of the active runs, and those that could not be parsed
    items INTEGER,                         -- distinct items with a per-item score
    computed_at TIMESTAMP DEFAULT current_timestamp);

CREATE TABLE drill_nodes (
    cell_no BIGINT,                        -- drill_cells.cell_no: reads of a model's cells skip the others
    model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR,
    phenomenon VARCHAR, category VARCHAR, subcategory VARCHAR, level INTEGER,   -- the items' node (NULL: none)
    n INTEGER,                             -- items
    correct DOUBLE,                        -- sum of item scores (0-1: mean over runs and option orders)
    wrong INTEGER                          -- items not right in every answer
);

CREATE TABLE item_outcomes (
    cell_no BIGINT,                        -- drill_cells.cell_no: reads of one cell skip other row groups
    model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR, item_id VARCHAR,
    value DOUBLE,                          -- item score 0-1: mean over runs and option orders
    right_ab BOOLEAN, right_ba BOOLEAN,    -- every answer in that option order scored 1 (NULL: not asked)
    right_all BOOLEAN,                     -- every answer scored 1
    parsed BOOLEAN,                        -- every answer parsed
    answers STRUCT(run_no INTEGER, ba BOOLEAN, value DOUBLE)[]   -- each answer: run, asked in order "ba" (NULL:
);                                                                -- the item was never asked so), score

CREATE TABLE run_counts (
    run_id VARCHAR,
    answers INTEGER, unparsed INTEGER,
    computed_at TIMESTAMP DEFAULT current_timestamp,   -- after every prediction row of the run
    tokens_in BIGINT, tokens_out BIGINT,   -- summed over the run's answers (0: none reported)
    latency_sum DOUBLE, latency_n BIGINT   -- summed latency and the answers timed
);

CREATE TABLE campaign_results (
    campaign_id VARCHAR,
    kind VARCHAR,                          -- mean (per system and criterion) | alpha (per criterion) | tau
    system VARCHAR,                        -- "model_id|prompt_lang" for kind mean, '' otherwise
    criterion VARCHAR,                     -- the criterion (mean, alpha) or the automatic metric (tau)
    level VARCHAR,                         -- alpha: level of measurement; tau: item | system; mean: ''
    value DOUBLE, low DOUBLE, high DOUBLE, -- the estimate and its 95% interval
    n INTEGER,                             -- judgements (mean), paired units (alpha), pairs or systems (tau)
    items INTEGER,                         -- items behind a mean
    correct INTEGER,                       -- MT: items a majority judged correct (of `items`)
    PRIMARY KEY (campaign_id, kind, system, criterion, level));

CREATE TABLE campaign_provisional (
    campaign_id VARCHAR,                   -- an OPEN campaign: its figures from the judgements so far
    kind VARCHAR, system VARCHAR, criterion VARCHAR, level VARCHAR,   -- as campaign_results
    value DOUBLE, low DOUBLE, high DOUBLE, -- tau: no interval (NULL) until the campaign finishes
    n INTEGER, items INTEGER, correct INTEGER,
    PRIMARY KEY (campaign_id, kind, system, criterion, level));

CREATE TABLE campaign_quality (
    campaign_id VARCHAR, annotator VARCHAR,
    repeat_agreement DOUBLE,               -- share of repeated judgements equal to the first (NULL: no repeat)
    repeats INTEGER,
    caught_corrupted BOOLEAN,              -- NULL: the annotator did not judge the corrupted candidate
    PRIMARY KEY (campaign_id, annotator));

CREATE TABLE language_alphas (
    protocol VARCHAR, lang VARCHAR, criterion VARCHAR,
    campaigns INTEGER,                     -- campaigns whose judgements count
    level VARCHAR, alpha DOUBLE, units INTEGER, annotators INTEGER,
    PRIMARY KEY (protocol, lang, criterion));

CREATE TABLE campaign_computed (
    campaign_id VARCHAR PRIMARY KEY,       -- the judgements and status its stored figures were computed from:
    status VARCHAR, judgements BIGINT, last_judged TIMESTAMP,   -- a difference means they are stale
    computed_at TIMESTAMP DEFAULT current_timestamp);

CREATE TABLE model_usage (
    model_id VARCHAR, prompt_lang VARCHAR,
    family VARCHAR,                        -- benchmark family, '' = every family
    requests BIGINT, tokens_in BIGINT, tokens_out BIGINT,   -- over the model's current (not superseded) runs
    mean_latency_s DOUBLE,                 -- per timed request; NULL when no request was timed
    cost DOUBLE,                           -- at the runs' operator prices; NULL unless every run with tokens has both
    PRIMARY KEY (model_id, prompt_lang, family));

CREATE TABLE drill_levels (
    model_id VARCHAR, lang VARCHAR, prompt_lang VARCHAR,
    scope VARCHAR,                         -- 'lindsea' (the language's LINDSEA tasks pooled, 0/1 metrics) or a
    metric VARCHAR,                        -- PACUTE hierarchy task with its metric ('' for LINDSEA)
    depth INTEGER,                         -- 0 = everything pooled; d = grouped by the first d keys
    branch VARCHAR, phenomenon VARCHAR, category VARCHAR, subcategory VARCHAR,  -- LINDSEA keys
    level INTEGER,                         -- PACUTE key
    n BIGINT, correct DOUBLE,              -- items and the sum of their scores (0-1)
    value DOUBLE, ci_low DOUBLE, ci_high DOUBLE,   -- 100 * correct / n and its 95% Wilson interval (0-100)
    chance DOUBLE, parts INTEGER,          -- groups one level down
    macro DOUBLE                           -- the mean of their values (NULL at the deepest level)
);

CREATE TABLE reported_normalized (
    source VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR, system VARCHAR,
    value DOUBLE,                          -- the reported value it was computed from
    chance DOUBLE,                         -- 0-100, as the cell's aggregates use it (NULL: none)
    normalized DOUBLE                      -- (value - chance) / (100 - chance) * 100 (NULL without chance)
);

CREATE TABLE cell_field (
    model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR, metric VARCHAR,   -- a headline cell
    rank_best INTEGER, rank_worst INTEGER, -- rank range among the visible models' intervals on the cell
    n_models INTEGER,                      -- visible models with a scored value on the cell
    field_median DOUBLE, delta DOUBLE,     -- their median value, and this model's value minus it
    inputs_hash VARCHAR,                   -- of the cell's visible scored rows it was computed from (a
                                           -- refresh recomputes only cells whose rows changed)
    PRIMARY KEY (model_id, task, lang, prompt_lang, metric));

CREATE TABLE control_ceilings (
    model_id VARCHAR, fmt VARCHAR, metric VARCHAR,  -- PACUTE format (mcq | gen) and metric, English prompt
    ceiling DOUBLE,                        -- mean of the control tasks' values (0-100)
    controls VARCHAR,                      -- the control stems averaged, e.g. 'langgame, mda'
    n BIGINT,                              -- their items together
    PRIMARY KEY (model_id, fmt, metric));

CREATE TABLE pair_tests (
    task VARCHAR, lang VARCHAR, metric VARCHAR,
    model_a VARCHAR, prompt_lang_a VARCHAR,   -- system A (model | prompt language)
    model_b VARCHAR, prompt_lang_b VARCHAR,   -- system B; every pair is stored in both orders
    cell_a BIGINT, cell_b BIGINT,          -- the drill_cells numbers whose item outcomes it was computed from
    n INTEGER,                             -- items both systems have a score for (0: none, no test)
    diff DOUBLE, ci_low DOUBLE, ci_high DOUBLE,   -- mean A - B on 0-100 and its 95% paired-bootstrap interval
    p_value DOUBLE, method VARCHAR,        -- mcnemar-exact (0/1 scores) | paired-bootstrap
    a_only INTEGER, b_only INTEGER,        -- items only A / only B got right (0/1 scores)
    PRIMARY KEY (task, lang, metric, model_a, prompt_lang_a, model_b, prompt_lang_b));

CREATE TABLE leakage_signals (
    model_id VARCHAR, task VARCHAR, lang VARCHAR, prompt_lang VARCHAR,   -- the cell
    signal VARCHAR,                        -- mt_verbatim | ngram_overlap | unexplained_entities | a probe's name
    flagged BOOLEAN,                       -- the signal flags the cell
    item_ids VARCHAR[],                    -- the items it flags (the clean-items score leaves them out)
    statistic DOUBLE,                      -- output signals: share of the cell's items flagged (0-1)
    p_value DOUBLE,                        -- a probe's test (NULL: no test)
    ci_low DOUBLE, ci_high DOUBLE,         -- 95% interval of the statistic
    n_items INTEGER,                       -- items looked at
    detail VARCHAR,                        -- the rule and threshold, one plain-text line
    computed_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (model_id, task, lang, prompt_lang, signal));

CREATE TABLE uploader_tokens (
    uploader VARCHAR PRIMARY KEY,          -- the identity a token names: its models are "uploader:<name>"'s
    token_hash VARCHAR UNIQUE,             -- sha256 of the uploader's token (the token is never stored)
    created_by VARCHAR, created_at TIMESTAMP DEFAULT current_timestamp);
CREATE TABLE judge_calls (
    call_key VARCHAR PRIMARY KEY,          -- sha256 of judge model, template version, sampling settings and messages
    judge_model VARCHAR, template VARCHAR, -- template as "name@version" (evaluator/judge/templates.yaml)
    sampling JSON, reply VARCHAR,          -- the judge's reply as received (untrusted text)
    tokens_in INTEGER, tokens_out INTEGER, cost_usd DOUBLE,   -- cost: NULL when no price was given
    created_at TIMESTAMP DEFAULT current_timestamp);

CREATE TABLE judge_scores (
    run_id VARCHAR, item_id VARCHAR, ord VARCHAR,   -- the judged turn's answer (order t1, t2, ...)
    judge_model VARCHAR, template VARCHAR, -- who judged, with which prompt ("name@version")
    kind VARCHAR,                          -- single (rating 1-10) | pairwise (1 win, 0.5 tie, 0 loss vs the reference)
    value DOUBLE,                          -- a judge score, never a metric score; NULL: no readable verdict
    verdict VARCHAR,                       -- the rating read, or each order's outcome and the combined one
    sampling JSON,                         -- the judge's sampling settings
    call_keys VARCHAR[],                   -- the judge_calls behind it (empty when self-reported)
    origin VARCHAR,                        -- judged | self-reported (imported with its judge named)
    created_at TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, ord, judge_model, template));

-- Views ------------------------------------------------------------------------------------------------------------

CREATE VIEW parse_failures AS   -- per model, language and prompt language over its current runs, open-ended tasks
                                -- (whose answers are never parsed) and runs without answers left out
    SELECT r.model_id, r.lang, r.prompt_lang,
           CAST(sum(c.answers) AS BIGINT) AS answers, CAST(sum(coalesce(c.unparsed, 0)) AS BIGINT) AS unparsed,
           CAST(100.0 AS DOUBLE) * sum(coalesce(c.unparsed, 0)) / sum(c.answers) AS fail_pct
    FROM runs r JOIN run_counts c ON c.run_id = r.run_id LEFT JOIN tasks t ON t.task = r.task
    WHERE NOT r.superseded AND c.answers > 0 AND coalesce(t.mode, '') <> 'open'
    GROUP BY r.model_id, r.lang, r.prompt_lang;

CREATE VIEW run_self_reported AS   -- an uploaded file's own per-item scores per run and metric (its own scale)
    SELECT run_id, metric, sum(value) / count(*) AS value, count(*) AS items
    FROM self_reported GROUP BY run_id, metric;

CREATE VIEW failed_flags AS   -- per cell, each data-quality flag of an item some answer got wrong on a 0/1 metric
    SELECT DISTINCT o.model_id, o.task, o.lang, o.prompt_lang, unnest(i.warnings) AS flag, o.item_id
    FROM item_outcomes o JOIN metrics m ON m.metric = o.metric AND m.is_binary
    JOIN items i ON i.task = o.task AND i.lang = o.lang AND i.item_id = o.item_id
    WHERE NOT o.right_all AND len(i.warnings) > 0;
