"""Shared pieces of the explorer queries: model filters, per-item score rows, and the LINDSEA drilldown.

Per-item rows join runs → predictions → scores → items. Intervals on drill-down means are 95% Wilson score
intervals over the binary per-answer scores (each option order of a minimal pair is one answer).
"""
from __future__ import annotations

import pandas as pd

from store.queries import query

SIZE_BUCKETS: dict[str, tuple[float, float | None]] = {
    "<4B": (0, 4), "4-15B": (4, 15), "15-100B": (15, 100), ">100B": (100, None)}
"""Model size filter buckets: label -> [low, high) in billions of parameters."""

BINARY_METRICS = ("accuracy", "contains_match", "exact_match", "mcq_acc", "mcq_norm_acc")
"""Per-item metrics that are 0/1, so an item is right or wrong."""

LINDSEA_BRANCH_SQL = """CASE WHEN {t} = 'lindsea-mp' THEN 'syntax'
    WHEN {t} LIKE 'lindsea-pragmatic%' THEN 'pragmatics' ELSE 'semantics' END"""
"""The paper's Figure 4 grouping of LINDSEA tasks: minimal pairs → syntax, coreference and translation →
semantics, pragmatic reasoning → pragmatics."""


def wilson_sql(k: str, n: str) -> str:
    """SQL for the 95% Wilson interval (0-100) of k successes in n trials: `low, high`."""
    z2 = "3.8416"
    centre = f"(({k}) / ({n}) + {z2} / (2.0 * ({n})))"
    half = f"(1.96 * sqrt(({k}) / ({n}) * (1 - ({k}) / ({n})) / ({n}) + {z2} / (4.0 * ({n}) * ({n}))))"
    den = f"(1 + {z2} / ({n}))"
    return f"100 * ({centre} - {half}) / {den} AS ci_low, 100 * ({centre} + {half}) / {den} AS ci_high"


def model_filter_sql(alias: str = "m", *, size: str | None = None, model_type: str | None = None,
                     weights: str | None = None, sea_tuned: bool | None = None,
                     search: str | None = None) -> tuple[str, list]:
    """A `WHERE`-ready condition on the models table (aliased `alias`) and its parameters; hidden models excluded."""
    conds, params = [f"NOT coalesce({alias}.hidden, false)"], []
    if size == "unknown":
        conds.append(f"{alias}.params_b IS NULL")
    elif size:
        low, high = SIZE_BUCKETS[size]
        conds.append(f"{alias}.params_b >= ?")
        params.append(low)
        if high is not None:
            conds.append(f"{alias}.params_b < ?")
            params.append(high)
    if model_type:
        conds.append(f"{alias}.model_type = ?")
        params.append(model_type)
    if weights:
        conds.append(f"{alias}.weights = ?")
        params.append(weights)
    if sea_tuned is not None:
        conds.append(f"coalesce({alias}.sea_tuned, false) = ?")
        params.append(bool(sea_tuned))
    if search:
        conds.append(f"concat_ws(' ', {alias}.model_id, {alias}.family, {alias}.organisation) ILIKE ?")
        params.append(f"%{search}%")
    return " AND ".join(conds), params


@query
def explore_models(con, *, size: str | None = None, model_type: str | None = None, weights: str | None = None,
                   sea_tuned: bool | None = None, search: str | None = None,
                   task_prefix: str | None = None) -> pd.DataFrame:
    """Models passing the shared filters (with runs of a task starting with `task_prefix`, when given)."""
    where, params = model_filter_sql("m", size=size, model_type=model_type, weights=weights, sea_tuned=sea_tuned,
                                     search=search)
    fam = ""
    if task_prefix:
        fam = "AND m.model_id IN (SELECT model_id FROM runs WHERE task LIKE ? AND NOT superseded)"
        params.append(f"{task_prefix}%")
    return con.execute(f"""
        SELECT m.model_id, m.family, m.organisation, m.params_b, m.model_type, m.weights, m.sea_tuned, m.origin
        FROM models m WHERE {where} {fam} ORDER BY m.model_id""", params).df()


@query
def lindsea_cells(con, *, model: str, lang: str) -> pd.DataFrame:
    """Headline score of every LINDSEA task for one model and language, EN and native prompt side by side."""
    return con.execute(f"""
        SELECT {LINDSEA_BRANCH_SQL.format(t='a.task')} AS branch, a.task, a.prompt_lang, a.metric,
               a.value, a.ci_low, a.ci_high, a.n, a.chance, a.parse_fail_rate * 100 AS parse_fail_pct,
               a.value < a.chance AS below_chance, a.status, a.note
        FROM aggregates a
        WHERE a.task LIKE 'lindsea-%' AND a.model_id = ? AND a.lang = ? AND a.is_headline
        ORDER BY branch DESC, a.task, a.prompt_lang""", [model, lang]).df()


_DRILL_LEVELS = ("branch", "phenomenon", "category", "subcategory")


@query
def lindsea_drill(con, *, model: str, lang: str, depth: int = 3, branch: str | None = None,
                  phenomenon: str | None = None, category: str | None = None) -> pd.DataFrame:
    """Accuracy by branch → phenomenon → category → subcategory (down to `depth`), per prompt language.

    An item's score is the mean over its option orders and runs; rows give the group keys, prompt_lang, n (items),
    correct (sum of item scores), value (0-100), ci_low/ci_high (95% Wilson over items, as the cell scores),
    chance (50 for binary choices, 0 for open answers) and label (deepest key with its item count).
    `branch/phenomenon/category` narrow the slice.
    """
    keys = ", ".join(_DRILL_LEVELS[:depth + 1])
    filters, params = [], [model, lang, list(BINARY_METRICS)]
    for col, val in (("branch", branch), ("phenomenon", phenomenon), ("category", category)):
        if val is not None:
            filters.append(f"{col} = ?")
            params.append(val)
    where = ("WHERE " + " AND ".join(filters)) if filters else ""
    return con.execute(f"""
        WITH per_item AS (
            SELECT {LINDSEA_BRANCH_SQL.format(t='r.task')} AS branch,
                   coalesce(nullif(i.phenomenon, ''), 'translation') AS phenomenon,
                   coalesce(nullif(i.category, ''), '(none)') AS category,
                   nullif(nullif(i.subcategory, ''), 'none') AS subcategory,
                   r.prompt_lang, r.task, s.item_id, avg(s.value) AS value,
                   max(CASE WHEN s.metric = 'accuracy' THEN 50.0 ELSE 0.0 END) AS chance
            FROM runs r
            JOIN scores s ON s.run_id = r.run_id
            JOIN items i ON i.task = r.task AND i.lang = r.lang AND i.item_id = s.item_id
            WHERE r.task LIKE 'lindsea-%' AND r.model_id = ? AND r.lang = ? AND NOT r.superseded
              AND list_contains(?, s.metric)
            GROUP BY ALL),
        grouped AS (
        SELECT {keys}, prompt_lang, count(*) AS n, sum(value) AS correct, 100 * avg(value) AS value,
               {wilson_sql('sum(value)', 'count(*)')}, max(chance) AS chance,
               100 * avg(value) < max(chance) AS below_chance
        FROM per_item {where}
        GROUP BY {keys}, prompt_lang)
        SELECT *, coalesce({_DRILL_LEVELS[depth]}, '(none)') || ' (n=' || max(n) OVER (PARTITION BY {keys}) || ')' AS label
        FROM grouped ORDER BY ALL""", params).df()


@query
def lindsea_tree(con, *, model: str, lang: str, prompt_lang: str) -> pd.DataFrame:
    """Every node of LINDSEA → branch → phenomenon → category for a treemap: id, parent, label, n (items),
    value (0-100, items pooled). Parents' n equals the sum of their children's."""
    return con.execute(f"""
        WITH per_item AS (
            SELECT {LINDSEA_BRANCH_SQL.format(t='r.task')} AS branch,
                   coalesce(nullif(i.phenomenon, ''), 'translation') AS phenomenon,
                   coalesce(nullif(i.category, ''), '(none)') AS category, r.task, s.item_id, avg(s.value) AS value
            FROM runs r
            JOIN scores s ON s.run_id = r.run_id
            JOIN items i ON i.task = r.task AND i.lang = r.lang AND i.item_id = s.item_id
            WHERE r.task LIKE 'lindsea-%' AND r.model_id = ? AND r.lang = ? AND r.prompt_lang = ?
              AND NOT r.superseded AND list_contains(?, s.metric)
            GROUP BY ALL),
        nodes AS (
            SELECT branch, phenomenon, category, count(*) AS n, 100 * avg(value) AS value
            FROM per_item GROUP BY GROUPING SETS ((), (branch), (branch, phenomenon), (branch, phenomenon, category)))
        SELECT concat_ws('/', 'LINDSEA', branch, phenomenon, category) AS id,
               CASE WHEN branch IS NULL THEN '' WHEN phenomenon IS NULL THEN 'LINDSEA'
                    WHEN category IS NULL THEN 'LINDSEA/' || branch
                    ELSE concat_ws('/', 'LINDSEA', branch, phenomenon) END AS parent,
               coalesce(category, phenomenon, branch, 'LINDSEA') AS label, n, value
        FROM nodes ORDER BY id""", [model, lang, prompt_lang, list(BINARY_METRICS)]).df()


@query
def lindsea_items(con, *, model: str, lang: str, phenomenon: str | None = None, category: str | None = None,
                  subcategory: str | None = None, branch: str | None = None,
                  prompt_lang: str | None = None, limit: int = 200) -> pd.DataFrame:
    """Items under a drill-down node with the model's answer in each option order and whether it was right.

    Minimal pairs carry `correct`/`wrong` sentences; other tasks carry their text and gold in `text`/`gold`.
    """
    conds, params = [], [model, lang, list(BINARY_METRICS)]
    for col, val in (("branch", branch), ("phenomenon", phenomenon), ("category", category),
                     ("subcategory", subcategory), ("prompt_lang", prompt_lang)):
        if val is not None:
            conds.append(f"{col} = ?")
            params.append(val)
    params.append(limit)
    return con.execute(f"""
        WITH rows AS (
            SELECT {LINDSEA_BRANCH_SQL.format(t='r.task')} AS branch,
                   coalesce(nullif(i.phenomenon, ''), 'translation') AS phenomenon,
                   coalesce(nullif(i.category, ''), '(none)') AS category,
                   nullif(nullif(i.subcategory, ''), 'none') AS subcategory,
                   r.task, r.prompt_lang, r.run_no, s.item_id, s.ord, s.value, p.answer, p.parsed,
                   i.inputs, i.gold, i.warnings
            FROM runs r
            JOIN scores s ON s.run_id = r.run_id
            JOIN predictions p ON p.run_id = s.run_id AND p.item_id = s.item_id AND p.ord = s.ord
            JOIN items i ON i.task = r.task AND i.lang = r.lang AND i.item_id = s.item_id
            WHERE r.task LIKE 'lindsea-%' AND r.model_id = ? AND r.lang = ? AND NOT r.superseded
              AND list_contains(?, s.metric))
        SELECT task, item_id, prompt_lang,
               any_value(inputs->>'correct') AS correct_sentence, any_value(inputs->>'wrong') AS wrong_sentence,
               any_value(coalesce(inputs->>'text', inputs->>'conclusion')) AS text, any_value(gold::VARCHAR) AS gold,
               max(CASE WHEN ord = 'ab' THEN answer END) AS answer_ab,
               bool_and(value >= 1) FILTER (WHERE ord = 'ab') AS right_ab,
               max(CASE WHEN ord = 'ba' THEN answer END) AS answer_ba,
               bool_and(value >= 1) FILTER (WHERE ord = 'ba') AS right_ba,
               bool_and(value >= 1) AS right_all, bool_or(NOT parsed) AS unparsed,
               any_value(array_to_string(warnings, '; ')) AS warnings
        FROM rows {('WHERE ' + ' AND '.join(conds)) if conds else ''}
        GROUP BY task, item_id, prompt_lang
        ORDER BY right_all, task, item_id, prompt_lang LIMIT ?""", params).df()
