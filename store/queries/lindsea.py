"""LINDSEA explorer queries: task scores, and the branch → phenomenon → category drilldown with its items.

`lindsea_facts` reads a model's per-item rows for one language once; the tree, the drilldown bars and the item
list are small queries over that frame (the app caches both steps).
"""
from __future__ import annotations

import pandas as pd

from store.queries import query
from store.queries.explore import binary_metrics

BRANCH_SQL = """CASE WHEN {t} = 'lindsea-mp' THEN 'syntax'
    WHEN {t} LIKE 'lindsea-pragmatic%' THEN 'pragmatics' ELSE 'semantics' END"""
"""The paper's Figure 4 grouping of LINDSEA tasks: minimal pairs → syntax, coreference and translation →
semantics, pragmatic reasoning → pragmatics."""

LEVELS = ("branch", "phenomenon", "category", "subcategory")
"""Drill-down keys, coarse to fine."""


@query
def lindsea_cells(con, *, model: str, lang: str) -> pd.DataFrame:
    """Headline score of every LINDSEA task for one model and language, EN and native prompt side by side."""
    return con.execute(f"""
        SELECT {BRANCH_SQL.format(t='a.task')} AS branch, a.task, a.prompt_lang, a.metric,
               a.value, a.ci_low, a.ci_high, a.n, a.chance, a.parse_fail_rate * 100 AS parse_fail_pct,
               a.value < a.chance AS below_chance, a.status, a.note
        FROM aggregates a
        WHERE a.task LIKE 'lindsea-%' AND a.model_id = ? AND a.lang = ? AND a.is_headline
        ORDER BY branch DESC, a.task, a.prompt_lang""", [model, lang]).df()


@query
def lindsea_facts(con, *, model: str, lang: str) -> pd.DataFrame:
    """One row per (task, item, prompt language) of a model's LINDSEA scores on 0/1 metrics.

    Columns: branch, phenomenon, category, subcategory (NULL when none), task, item_id, prompt_lang, value (item
    score 0-1: mean over option orders and runs), chance (50 for binary choices, 0 for open answers), right_ab,
    right_ba (per option order; NULL when not asked), right_all, correct_sentence, wrong_sentence, text, warnings.
    """
    return con.execute(f"""
        WITH scored AS (
            SELECT r.task, s.item_id, r.prompt_lang, avg(s.value) AS value,
                   max(CASE WHEN s.metric = 'accuracy' THEN 50.0 ELSE 0.0 END) AS chance,
                   bool_and(s.value >= 1) FILTER (WHERE s.ord = 'ab') AS right_ab,
                   bool_and(s.value >= 1) FILTER (WHERE s.ord = 'ba') AS right_ba,
                   bool_and(s.value >= 1) AS right_all
            FROM runs r JOIN scores s ON s.run_id = r.run_id
            WHERE r.task LIKE 'lindsea-%' AND r.model_id = ? AND r.lang = ? AND NOT r.superseded
              AND list_contains(?, s.metric)
            GROUP BY r.task, s.item_id, r.prompt_lang)
        SELECT {BRANCH_SQL.format(t='x.task')} AS branch,
               coalesce(nullif(i.phenomenon, ''), 'translation') AS phenomenon,
               coalesce(nullif(i.category, ''), '(none)') AS category,
               nullif(nullif(i.subcategory, ''), 'none') AS subcategory,
               x.task, x.item_id, x.prompt_lang, x.value, x.chance, x.right_ab, x.right_ba, x.right_all,
               i.inputs->>'correct' AS correct_sentence, i.inputs->>'wrong' AS wrong_sentence,
               coalesce(i.inputs->>'text', i.inputs->>'conclusion') AS text,
               array_to_string(i.warnings, '; ') AS warnings
        FROM scored x JOIN items i ON i.task = x.task AND i.lang = ? AND i.item_id = x.item_id""",
                       [model, lang, binary_metrics(con), lang]).df()


@query
def lindsea_answers(con, *, model: str, lang: str, prompt_lang: str, items: tuple[tuple[str, str], ...]
                    ) -> pd.DataFrame:
    """What the model answered to a few (task, item_id) pairs: task, item_id, ord, run_no, answer (NULL when
    unparseable), parsed, output."""
    return con.execute("""
        SELECT r.task, p.item_id, p.ord, r.run_no, p.answer, p.parsed, p.output
        FROM runs r JOIN predictions p ON p.run_id = r.run_id
        WHERE r.model_id = ? AND r.lang = ? AND r.prompt_lang = ? AND NOT r.superseded
          AND list_contains(?, r.task || '/' || p.item_id)
        ORDER BY r.task, p.item_id, p.ord, r.run_no""",
                       [model, lang, prompt_lang, [f"{t}/{i}" for t, i in items]]).df()


def _where(**filters) -> tuple[str, list]:
    conds, params = [], []
    for col, val in filters.items():
        if val is not None:
            conds.append(f"{col} = ?")
            params.append(val)
    return ("WHERE " + " AND ".join(conds)) if conds else "", params


@query
def lindsea_tree(con, *, facts: pd.DataFrame, prompt_lang: str) -> pd.DataFrame:
    """Every node of LINDSEA → branch → phenomenon → category for a treemap: id, parent, label, n (items),
    value (0-100, items pooled). Parents' n equals the sum of their children's."""
    return con.execute("""
        WITH nodes AS (
            SELECT branch, phenomenon, category, count(*) AS n, 100 * avg(value) AS value
            FROM facts WHERE prompt_lang = ?
            GROUP BY GROUPING SETS ((), (branch), (branch, phenomenon), (branch, phenomenon, category)))
        SELECT concat_ws('/', 'LINDSEA', branch, phenomenon, category) AS id,
               CASE WHEN branch IS NULL THEN '' WHEN phenomenon IS NULL THEN 'LINDSEA'
                    WHEN category IS NULL THEN 'LINDSEA/' || branch
                    ELSE concat_ws('/', 'LINDSEA', branch, phenomenon) END AS parent,
               coalesce(category, phenomenon, branch, 'LINDSEA') AS label, n, value
        FROM nodes ORDER BY id""", [prompt_lang]).df()


@query
def lindsea_drill(con, *, facts: pd.DataFrame, depth: int = 3, branch: str | None = None,
                  phenomenon: str | None = None, category: str | None = None) -> pd.DataFrame:
    """Accuracy by branch → phenomenon → category → subcategory (down to `depth`), per prompt language.

    Rows: the group keys, prompt_lang, n (items), correct (sum of item scores), value (0-100), chance, below_chance, label (deepest key with its item count).
    """
    keys = ", ".join(LEVELS[:depth + 1])
    where, params = _where(branch=branch, phenomenon=phenomenon, category=category)
    return con.execute(f"""
        WITH grouped AS (
            SELECT {keys}, prompt_lang, count(*) AS n, sum(value) AS correct, 100 * avg(value) AS value,
                   max(chance) AS chance,
                   100 * avg(value) < max(chance) AS below_chance
            FROM facts {where} GROUP BY {keys}, prompt_lang)
        SELECT *, coalesce({LEVELS[depth]}, '(none)') || ' (n=' || max(n) OVER (PARTITION BY {keys}) || ')' AS label
        FROM grouped ORDER BY ALL""", params).df()


@query
def lindsea_items(con, *, facts: pd.DataFrame, prompt_lang: str | None = None, branch: str | None = None,
                  phenomenon: str | None = None, category: str | None = None, limit: int = 200) -> pd.DataFrame:
    """Items under a drill-down node, whether each option order was answered right, wrong ones first.

    Minimal pairs carry `correct_sentence`/`wrong_sentence`; other tasks their `text`.
    """
    where, params = _where(prompt_lang=prompt_lang, branch=branch, phenomenon=phenomenon, category=category)
    return con.execute(f"""
        SELECT task, item_id, prompt_lang, correct_sentence, wrong_sentence, text, right_ab, right_ba, right_all,
               warnings
        FROM facts {where} ORDER BY right_all, task, item_id, prompt_lang LIMIT ?""", [*params, limit]).df()
