"""PACUTE explorer queries: the L0-L5 hierarchy per model, level means, main-suite tasks and controls.

Levels and their means filter the stored levels (`drill_levels`, pooled from the node counts with their Wilson
intervals by evaluator.drill_levels); nothing here reads per-item rows."""
from __future__ import annotations

import pandas as pd

from store.queries import query
from store.reference import HUMAN_BASELINE_SOURCE

CONTROL_STEMS = ("langgame", "mda", "cute")
"""Control benchmarks shown as a ceiling (English only)."""

MCQ_CHANCE = 25.0
"""Four options per MCQ item (PACUTE paper Section 3): chance is 25%."""

LEVEL_NAMES = {0: "L0 character recognition", 1: "L1 character manipulation", 2: "L2 morpheme decomposition",
               3: "L3 morpheme manipulation", 4: "L4 morpheme composition", 5: "L5 multi-step transformation"}
"""Hierarchy levels as named in the PACUTE paper."""


def _hierarchy(fmt: str) -> str:
    if fmt not in ("mcq", "gen"):
        raise ValueError(f"fmt must be mcq or gen, not {fmt!r}")
    return f"pacute-hierarchical-{fmt}"


LEVELS_SQL = """
    SELECT * FROM drill_levels
    WHERE scope = ? AND lang = 'tl' AND list_contains(?, model_id) AND prompt_lang = ? AND metric = ?"""
"""Stored hierarchy levels of the chosen models (services.drill_levels pooled them from the node counts): depth 1
per level, depth 0 the whole hierarchy; n (items), correct (sum of item scores 0-1, an item's score being its mean
over runs), value (0-100), ci_low/ci_high (95% Wilson), macro (depth 0: mean of the level values), parts (levels)."""


@query
def pacute_levels(con, *, models: tuple[str, ...], fmt: str = "mcq", metric: str = "mcq_acc",
                  prompt_lang: str = "en") -> pd.DataFrame:
    """Per model and level: n, correct, value (0-100), ci_low, ci_high (95% Wilson), chance, below_chance,
    level_name and level_label ("L2 (n=10)", the range of n over models when it differs)."""
    chance = MCQ_CHANCE if fmt == "mcq" else 0.0
    names = "CASE level " + " ".join(f"WHEN {k} THEN '{v}'" for k, v in LEVEL_NAMES.items()) + " END"
    return con.execute(f"""
        WITH lv AS ({LEVELS_SQL} AND depth = 1)
        SELECT model_id, level, {names} AS level_name, n, correct, value, ci_low, ci_high, {chance} AS chance,
               ci_high < {chance} AS below_chance,
               'L' || level || ' (n=' || CASE WHEN min(n) OVER w = max(n) OVER w
                   THEN (min(n) OVER w)::VARCHAR
                   ELSE min(n) OVER w || '-' || max(n) OVER w END || ')' AS level_label
        FROM lv WINDOW w AS (PARTITION BY level) ORDER BY model_id, level""",
                       [_hierarchy(fmt), list(models), prompt_lang, metric]).df()


@query
def pacute_level_means(con, *, models: tuple[str, ...], fmt: str = "mcq", metric: str = "mcq_acc",
                       prompt_lang: str = "en") -> pd.DataFrame:
    """Per model: micro mean (all hierarchy items pooled) and macro mean (mean of the level means), n, levels."""
    return con.execute(f"""
        SELECT model_id, value AS micro, macro, n, parts AS n_levels
        FROM ({LEVELS_SQL} AND depth = 0) ORDER BY model_id""",
                       [_hierarchy(fmt), list(models), prompt_lang, metric]).df()


@query
def pacute_suite(con, *, models: tuple[str, ...], fmt: str = "mcq", metric: str = "mcq_acc",
                 prompt_lang: str = "en") -> pd.DataFrame:
    """Cell scores of the main-suite tasks and the controls for the chosen format and metric.

    Controls exist in English only, so they are read with the English prompt whatever `prompt_lang` is.
    Columns: model_id, task, stem, kind ("suite" | "control"), value, ci_low, ci_high, n, chance, below_chance.
    """
    controls = list(CONTROL_STEMS)
    return con.execute("""
        SELECT a.model_id, a.task, regexp_extract(a.task, '^pacute-(.*)-(mcq|gen)$', 1) AS stem,
               CASE WHEN list_contains(?, stem) THEN 'control' ELSE 'suite' END AS kind,
               a.value, a.ci_low, a.ci_high, a.n, a.chance, a.ci_high < a.chance AS below_chance
        FROM aggregates a
        WHERE a.task LIKE 'pacute-%' AND a.task NOT LIKE 'pacute-hierarchical-%' AND a.task LIKE ?
          AND list_contains(?, a.model_id) AND a.metric = ?
          AND a.prompt_lang = CASE WHEN list_contains(?, stem) THEN 'en' ELSE ? END
        ORDER BY kind DESC, a.task, a.model_id""",
                       [controls, f"%-{fmt}", list(models), metric, controls, prompt_lang]).df()


@query
def pacute_ceiling(con, *, models: tuple[str, ...], fmt: str = "mcq", metric: str = "mcq_acc") -> pd.DataFrame:
    """Per model, the mean score over the control benchmarks (English prompt): the character-level ceiling, as
    stored by services.page_figures (evaluator.ceiling): model_id, ceiling, controls, n."""
    return con.execute("""
        SELECT model_id, ceiling, controls, n FROM control_ceilings
        WHERE list_contains(?, model_id) AND fmt = ? AND metric = ? ORDER BY model_id""",
                       [list(models), fmt, metric]).df()


@query
def pacute_availability(con, *, models: tuple[str, ...]) -> pd.DataFrame:
    """Which hierarchy formats and prompt languages the chosen models have results for: fmt, prompt_lang, models
    (how many of them have a cell with scored items)."""
    return con.execute("""
        SELECT regexp_extract(task, '^pacute-hierarchical-(mcq|gen)$', 1) AS fmt, prompt_lang,
               count(DISTINCT model_id) AS models
        FROM drill_cells
        WHERE task IN ('pacute-hierarchical-mcq', 'pacute-hierarchical-gen') AND list_contains(?, model_id)
          AND items > 0
        GROUP BY ALL ORDER BY fmt, prompt_lang""", [list(models)]).df()


HUMAN_COLUMNS = ["task", "stem", "annotator 1", "annotator 2", "annotator 3", "mean", "Fleiss' kappa",
                 "raw agreement", "n"]


@query
def pacute_human_baseline(con, *, fmt: str = "mcq", metric: str = "mcq_acc") -> pd.DataFrame:
    """The paper's human baseline (reported rows of HUMAN_BASELINE_SOURCE) per main-suite task of `fmt`: each
    annotator's score and their mean on `metric` (MCQ: accuracy whatever the metric), Fleiss' kappa (-1..1; empty
    when undefined), raw agreement (%), n items. Never ranked."""
    _hierarchy(fmt)  # checks fmt
    metric = "mcq_acc" if fmt == "mcq" else metric
    rows = con.execute("""
        SELECT task, regexp_extract(task, '^pacute-(.*)-(mcq|gen)$', 1) AS stem, system, metric, value,
               TRY_CAST(regexp_extract(note, '^n=([0-9]+)', 1) AS INTEGER) AS n
        FROM reported WHERE source = ? AND task LIKE ? AND metric IN (?, 'fleiss_kappa', 'raw_agreement')""",
                       [HUMAN_BASELINE_SOURCE, f"pacute-%-{fmt}", metric]).df()
    if rows.empty:
        return pd.DataFrame(columns=HUMAN_COLUMNS)
    rows["column"] = rows["system"].str.replace("human: ", "", regex=False).replace(
        {"mean of 3 annotators": "mean", "agreement of 3 annotators": None})
    rows.loc[rows["metric"] == "fleiss_kappa", "column"] = "Fleiss' kappa"
    rows.loc[rows["metric"] == "raw_agreement", "column"] = "raw agreement"
    wide = rows.groupby(["task", "stem", "column"])["value"].first().unstack("column")
    wide = wide.join(rows.groupby(["task", "stem"])["n"].max()).reset_index()
    return wide.reindex(columns=HUMAN_COLUMNS).sort_values("task", ignore_index=True)


PAPER_RUNS_LABEL = "PACUTE paper runs"
"""How `results pull pacute-paper` labels the runs it ingests (the start of `runs.source_file`)."""


@query
def pacute_paper_runs(con, *, models: tuple[str, ...]) -> pd.DataFrame:
    """Which of the chosen models have PACUTE runs from the paper's published outputs: model_id, source_file."""
    return con.execute("""
        SELECT model_id, min(source_file) AS source_file FROM runs
        WHERE NOT superseded AND task LIKE 'pacute-%' AND list_contains(?, model_id) AND starts_with(source_file, ?)
        GROUP BY model_id ORDER BY model_id""", [list(models), PAPER_RUNS_LABEL]).df()


RULE_ROWS_SQL = """
    SELECT r.model_id, r.task, p.item_id, p.output, p.parsed, p.extras, i.gold, i.options,
           max(s.value) FILTER (WHERE s.metric = 'exact_match') AS exact_match,
           max(s.value) FILTER (WHERE s.metric = 'contains_match') AS contains_match,
           max(s.value) FILTER (WHERE s.metric = 'mcq_acc') AS mcq_acc,
           max(x.value) FILTER (WHERE x.metric = 'exact_match') AS their_exact_match,
           max(x.value) FILTER (WHERE x.metric = 'contains_match') AS their_contains_match,
           max(x.value) FILTER (WHERE x.metric = 'is_correct') AS their_is_correct
    FROM runs r
    JOIN predictions p ON p.run_id = r.run_id
    JOIN items i ON i.task = r.task AND i.lang = r.lang AND i.item_id = p.item_id
    LEFT JOIN scores s ON s.run_id = r.run_id AND s.item_id = p.item_id AND s.ord = p.ord
    LEFT JOIN self_reported x ON x.run_id = r.run_id AND x.item_id = p.item_id
    WHERE r.harness = 'pacute-bench' AND NOT r.superseded AND r.task LIKE 'pacute-%'
    GROUP BY ALL
    ORDER BY r.model_id, r.task, p.item_id"""
"""Per item of every pacute-bench upload: the stored output, parse flag and reader extras, our gold and options,
Tanaw's item scores and pacute-bench's own flags (`self_reported`) side by side."""


@query
def pacute_rule_rows(con) -> pd.DataFrame:
    """Per imported pacute-bench item: Tanaw's scores beside pacute-bench's flags (`RULE_ROWS_SQL`)."""
    return con.execute(RULE_ROWS_SQL).df()
