"""PACUTE explorer queries: the L0-L5 hierarchy per model, level means, main-suite tasks and controls."""
from __future__ import annotations

import pandas as pd

from store.queries import query

CONTROL_STEMS = ("langgame", "mda", "cute")
"""Control benchmarks shown as a ceiling (English only)."""

MCQ_CHANCE = 25.0
"""Four options per MCQ item (PACUTE paper Section 3): chance is 25%."""

LEVEL_NAMES = {0: "L0 character recognition", 1: "L1 character manipulation", 2: "L2 morpheme decomposition",
               3: "L3 morpheme manipulation", 4: "L4 morpheme composition", 5: "L5 multi-step transformation"}
"""Hierarchy levels as named in the PACUTE paper."""


@query
def pacute_facts(con, *, models: tuple[str, ...], fmt: str = "mcq", metric: str = "mcq_acc",
                 prompt_lang: str = "en") -> pd.DataFrame:
    """Hierarchy items answered by the chosen models: model_id, level, item_id, value (0-1, mean over runs)."""
    if fmt not in ("mcq", "gen"):
        raise ValueError(f"fmt must be mcq or gen, not {fmt!r}")
    task = f"pacute-hierarchical-{fmt}"
    return con.execute("""
        WITH scored AS (
            SELECT r.model_id, s.item_id, avg(s.value) AS value
            FROM runs r JOIN scores s ON s.run_id = r.run_id
            WHERE r.task = ? AND NOT r.superseded AND list_contains(?, r.model_id) AND s.metric = ?
              AND r.prompt_lang = ?
            GROUP BY r.model_id, s.item_id)
        SELECT x.model_id, i.level, x.item_id, x.value
        FROM scored x JOIN items i ON i.task = ? AND i.lang = 'tl' AND i.item_id = x.item_id""",
                       [task, list(models), metric, prompt_lang, task]).df()


@query
def pacute_levels(con, *, facts: pd.DataFrame, fmt: str = "mcq") -> pd.DataFrame:
    """Per model and level: n, correct, value (0-100), chance, below_chance (the wiring adds 95% Wilson intervals),
    level_name and level_label ("L2 (n=10)", the range of n over models when it differs)."""
    chance = MCQ_CHANCE if fmt == "mcq" else 0.0
    names = "CASE level " + " ".join(f"WHEN {k} THEN '{v}'" for k, v in LEVEL_NAMES.items()) + " END"
    return con.execute(f"""
        SELECT model_id, level, {names} AS level_name, count(*) AS n, sum(value) AS correct,
               100 * avg(value) AS value, {chance} AS chance,
               100 * avg(value) < {chance} AS below_chance,
               'L' || level || ' (n=' || CASE WHEN min(count(*)) OVER w = max(count(*)) OVER w
                   THEN (min(count(*)) OVER w)::VARCHAR
                   ELSE min(count(*)) OVER w || '-' || max(count(*)) OVER w END || ')' AS level_label
        FROM facts GROUP BY model_id, level WINDOW w AS (PARTITION BY level) ORDER BY model_id, level""").df()


@query
def pacute_level_means(con, *, facts: pd.DataFrame) -> pd.DataFrame:
    """Per model: micro mean (all hierarchy items pooled) and macro mean (mean of the level means), n, levels."""
    return con.execute("""
        WITH lv AS (SELECT model_id, level, avg(value) AS v, count(*) AS n FROM facts GROUP BY ALL)
        SELECT model_id, 100 * sum(v * n) / sum(n) AS micro, 100 * avg(v) AS macro, sum(n) AS n,
               count(*) AS n_levels
        FROM lv GROUP BY model_id ORDER BY model_id""").df()


@query
def pacute_diagnosis(con, *, levels: pd.DataFrame, chance: float = MCQ_CHANCE) -> pd.DataFrame:
    """The paper's read-out per model from `pacute_levels`: is L2 at chance (its interval reaches `chance`: 25%
    for MCQ, 0 for generation scored by exact or contains match), and do L3-L5 collapse too?

    Columns: model_id, l2_value, l2_ci_low, l2_ci_high, l2_n, l2_at_chance, l3_5_at_chance (all of L3-L5 reach
    chance), l3_5_max (best of L3-L5), flag (L2 at chance and L3-L5 collapse, as the paper predicts).
    """
    return con.execute(f"""
        SELECT model_id,
               max(value) FILTER (WHERE level = 2) AS l2_value, max(ci_low) FILTER (WHERE level = 2) AS l2_ci_low,
               max(ci_high) FILTER (WHERE level = 2) AS l2_ci_high, max(n) FILTER (WHERE level = 2) AS l2_n,
               bool_or(ci_low <= {float(chance)}) FILTER (WHERE level = 2) AS l2_at_chance,
               bool_and(ci_low <= {float(chance)}) FILTER (WHERE level >= 3) AS l3_5_at_chance,
               max(value) FILTER (WHERE level >= 3) AS l3_5_max,
               coalesce(l2_at_chance AND l3_5_at_chance, false) AS flag
        FROM levels GROUP BY model_id ORDER BY model_id""").df()


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
               a.value, a.ci_low, a.ci_high, a.n, a.chance, a.value < a.chance AS below_chance
        FROM aggregates a
        WHERE a.task LIKE 'pacute-%' AND a.task NOT LIKE 'pacute-hierarchical-%' AND a.task LIKE ?
          AND list_contains(?, a.model_id) AND a.metric = ?
          AND a.prompt_lang = CASE WHEN list_contains(?, stem) THEN 'en' ELSE ? END
        ORDER BY kind DESC, a.task, a.model_id""",
                       [controls, f"%-{fmt}", list(models), metric, controls, prompt_lang]).df()


@query
def pacute_ceiling(con, *, models: tuple[str, ...], fmt: str = "mcq", metric: str = "mcq_acc") -> pd.DataFrame:
    """Per model, the mean score over the control benchmarks (English prompt): the character-level ceiling."""
    return con.execute("""
        SELECT model_id, avg(value) AS ceiling, string_agg(regexp_extract(task, '^pacute-(.*)-(mcq|gen)$', 1), ', '
               ORDER BY task) AS controls, sum(n) AS n
        FROM aggregates
        WHERE list_contains(?, regexp_extract(task, '^pacute-(.*)-(mcq|gen)$', 1)) AND task LIKE ?
          AND list_contains(?, model_id) AND metric = ? AND prompt_lang = 'en' AND value IS NOT NULL
        GROUP BY model_id ORDER BY model_id""", [list(CONTROL_STEMS), f"%-{fmt}", list(models), metric]).df()


@query
def pacute_availability(con, *, models: tuple[str, ...]) -> pd.DataFrame:
    """Which hierarchy formats and prompt languages the chosen models have results for: fmt, prompt_lang, models
    (how many of them), items (scored answers)."""
    return con.execute("""
        SELECT regexp_extract(r.task, '^pacute-hierarchical-(mcq|gen)$', 1) AS fmt, r.prompt_lang,
               count(DISTINCT r.model_id) AS models, count(DISTINCT (r.model_id, s.item_id)) AS items
        FROM runs r JOIN scores s ON s.run_id = r.run_id
        WHERE r.task IN ('pacute-hierarchical-mcq', 'pacute-hierarchical-gen') AND NOT r.superseded
          AND list_contains(?, r.model_id)
        GROUP BY ALL ORDER BY fmt, r.prompt_lang""", [list(models)]).df()
