"""Compare (side-by-side generations) queries: the same items across 2-4 systems (model × prompt language).

A system is "model|prompt_lang". An item's score for a system is the mean of its per-answer scores on the
chosen metric over option orders and runs; it is right when every answer scored 1 (binary metrics only).
"""
from __future__ import annotations

import pandas as pd

from store.queries import query
from store.queries.explore import BINARY_METRICS

SLICES = ("all", "a_right_b_wrong", "a_wrong_b_right", "all_wrong", "any_wrong", "unparseable",
          "prompt_disagree")
"""Item filters offered on the Compare page."""

LABELS = "ABCD"


def split_system(system: str) -> tuple[str, str]:
    """("model", "prompt_lang") from "model|prompt_lang" (prompt language defaults to "en")."""
    model, _, prompt_lang = system.rpartition("|")
    return (model, prompt_lang) if model else (system, "en")


@query
def compare_cells(con) -> pd.DataFrame:
    """Every scored (task, lang) with its number of models and prompt languages (open-ended tasks excluded)."""
    return con.execute("""
        SELECT task, lang, count(DISTINCT model_id) AS n_models, count(DISTINCT prompt_lang) AS n_prompt_langs
        FROM aggregates WHERE status = 'ok' AND value IS NOT NULL GROUP BY ALL ORDER BY task, lang""").df()


@query
def compare_systems(con, *, task: str, lang: str) -> pd.DataFrame:
    """Systems available for a cell: system ("model|prompt_lang"), model_id, prompt_lang, runs."""
    return con.execute("""
        SELECT model_id || '|' || prompt_lang AS system, model_id, prompt_lang, count(*) AS runs
        FROM runs WHERE task = ? AND lang = ? AND NOT superseded GROUP BY ALL ORDER BY model_id, prompt_lang""",
                       [task, lang]).df()


@query
def compare_metrics(con, *, task: str, lang: str) -> pd.DataFrame:
    """Metrics scored for a cell, headline first: metric, is_headline, binary."""
    return con.execute("""
        SELECT s.metric, bool_or(coalesce(a.is_headline, false)) AS is_headline,
               list_contains(?, s.metric) AS binary
        FROM (SELECT DISTINCT s.metric FROM runs r JOIN scores s ON s.run_id = r.run_id
              WHERE r.task = ? AND r.lang = ? AND NOT r.superseded) s
        LEFT JOIN aggregates a ON a.task = ? AND a.lang = ? AND a.metric = s.metric
        GROUP BY s.metric ORDER BY is_headline DESC, s.metric""",
                       [list(BINARY_METRICS), task, lang, task, lang]).df()


def _system_rows(systems: tuple[str, ...]) -> tuple[str, list]:
    values = ", ".join("(?, ?, ?)" for _ in systems)
    params: list = []
    for label, system in zip(LABELS, systems):
        params.extend([label, *split_system(system)])
    return f"SELECT * FROM (VALUES {values}) v(label, model_id, prompt_lang)", params


@query
def compare_slice(con, *, task: str, lang: str, systems: tuple[str, ...], metric: str, slice: str = "all",
                  search: str | None = None, limit: int = 500) -> pd.DataFrame:
    """Items of a cell answered by every system, one column set per system label A-D, filtered by `slice`.

    Columns: item_id, then for each label X: score_X (0-1), right_X (NULL for non-binary metrics), parsed_X;
    last input (the item's input fields, first 200 characters). `search` matches inputs, gold and the systems' outputs.
    """
    if not 1 <= len(systems) <= len(LABELS):
        raise ValueError(f"choose 1-{len(LABELS)} systems, not {len(systems)}")
    if slice not in SLICES:
        raise ValueError(f"unknown slice {slice!r}; one of {', '.join(SLICES)}")
    sys_sql, params = _system_rows(systems)
    labels = LABELS[:len(systems)]
    binary = metric in BINARY_METRICS
    cols = ", ".join(
        f"avg(value) FILTER (WHERE label = '{x}') AS score_{x}, "
        + (f"bool_and(value >= 1) FILTER (WHERE label = '{x}')" if binary else "NULL::BOOLEAN") + f" AS right_{x}, "
        f"bool_and(parsed) FILTER (WHERE label = '{x}') AS parsed_{x}" for x in labels)
    conds = [f"score_{x} IS NOT NULL" for x in labels]
    if slice == "a_right_b_wrong":
        conds.append("right_A AND NOT right_B" if len(labels) > 1 else "false")
    elif slice == "a_wrong_b_right":
        conds.append("NOT right_A AND right_B" if len(labels) > 1 else "false")
    elif slice == "all_wrong":
        conds.append(" AND ".join(f"NOT right_{x}" for x in labels))
    elif slice == "any_wrong":
        conds.append(" OR ".join(f"NOT right_{x}" for x in labels))
    elif slice == "unparseable":
        conds.append(" OR ".join(f"NOT parsed_{x}" for x in labels))
    elif slice == "prompt_disagree":
        conds.append("wide.item_id IN (SELECT item_id FROM disagree)")
    search_sql = ""
    search_params: list = []
    if search:
        search_sql = """AND (array_to_string(json_extract_string(i.inputs, '$.*'), ' ') ILIKE ?
                            OR json_extract_string(i.gold, '$') ILIKE ?
                            OR wide.item_id IN (SELECT item_id FROM rows WHERE output ILIKE ?))"""
        search_params = [f"%{search}%"] * 3
    sql = f"""
        WITH sys AS ({sys_sql}),
        rows AS (
            SELECT sys.label, r.model_id, r.prompt_lang, s.item_id, s.value, p.parsed, p.output
            FROM sys JOIN runs r ON r.model_id = sys.model_id AND r.prompt_lang = sys.prompt_lang
            JOIN scores s ON s.run_id = r.run_id AND s.metric = ?
            JOIN predictions p ON p.run_id = s.run_id AND p.item_id = s.item_id AND p.ord = s.ord
            WHERE r.task = ? AND r.lang = ? AND NOT r.superseded),
        disagree AS (
            SELECT s.item_id FROM runs r JOIN scores s ON s.run_id = r.run_id AND s.metric = ?
            WHERE r.task = ? AND r.lang = ? AND NOT r.superseded
              AND r.model_id IN (SELECT model_id FROM sys)
            GROUP BY s.item_id, r.model_id
            HAVING count(DISTINCT r.prompt_lang) = 2
               AND bool_and(s.value >= 1) FILTER (WHERE r.prompt_lang = 'en')
                   <> bool_and(s.value >= 1) FILTER (WHERE r.prompt_lang = 'native')),
        wide AS (SELECT item_id, {cols} FROM rows GROUP BY item_id)
        SELECT wide.item_id, wide.* EXCLUDE (item_id),
               left(array_to_string(json_extract_string(i.inputs, '$.*'), ' | '), 200) AS input
        FROM wide JOIN items i ON i.task = ? AND i.lang = ? AND i.item_id = wide.item_id
        WHERE {' AND '.join(conds)} {search_sql}
        ORDER BY wide.item_id LIMIT ?"""
    all_params = [*params, metric, task, lang, metric, task, lang, task, lang, *search_params, limit]
    return con.execute(sql, all_params).df()


@query
def compare_item(con, *, task: str, lang: str, item_id: str) -> pd.DataFrame:
    """The item as stored: inputs, gold, options (JSON text), category, warnings."""
    return con.execute("""
        SELECT item_id, inputs::VARCHAR AS inputs, gold::VARCHAR AS gold, options::VARCHAR AS options,
               phenomenon, category, subcategory, level, array_to_string(warnings, '; ') AS warnings
        FROM items WHERE task = ? AND lang = ? AND item_id = ?""", [task, lang, item_id]).df()


@query
def compare_outputs(con, *, task: str, lang: str, item_id: str, systems: tuple[str, ...],
                    metric: str) -> pd.DataFrame:
    """Every answer of the chosen systems to one item: label, model_id, prompt_lang, run_no, ord, prompt,
    output, answer, parsed, score, right (NULL for non-binary metrics), finish_reason."""
    sys_sql, params = _system_rows(systems)
    binary = metric in BINARY_METRICS
    return con.execute(f"""
        WITH sys AS ({sys_sql})
        SELECT sys.label, r.model_id, r.prompt_lang, r.run_no, p.ord, p.prompt, p.output, p.answer, p.parsed,
               s.value AS score, {'s.value >= 1' if binary else 'NULL::BOOLEAN'} AS right, p.finish_reason
        FROM sys JOIN runs r ON r.model_id = sys.model_id AND r.prompt_lang = sys.prompt_lang
        JOIN predictions p ON p.run_id = r.run_id AND p.item_id = ?
        LEFT JOIN scores s ON s.run_id = p.run_id AND s.item_id = p.item_id AND s.ord = p.ord AND s.metric = ?
        WHERE r.task = ? AND r.lang = ? AND NOT r.superseded
        ORDER BY sys.label, r.run_no, p.ord""", [*params, item_id, metric, task, lang]).df()
