"""Compare (side-by-side generations) queries: the same items across 2-4 systems (model × prompt language).

A system is "model|prompt_lang". An item's score for a system is the mean of its per-answer scores on the
chosen metric over option orders and runs; it is right when every answer scored 1 (binary metrics only).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from store.queries import query
from store.queries.explore import BINARY_SQL, predictions_of, run_windows

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
    # len(list_distinct(list(x))) counts the distinct values as count(DISTINCT x) does, in one hash aggregate
    # (DuckDB plans two count(DISTINCT ...) as two aggregates joined)
    return con.execute("""
        SELECT task, lang, len(list_distinct(list(model_id))) AS n_models,
               len(list_distinct(list(prompt_lang))) AS n_prompt_langs
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
    """Per-item metrics of a cell (from the node counts of its latest pre-aggregated cell), headline first: metric,
    is_headline, binary."""
    return con.execute(f"""
        WITH m AS (
            SELECT DISTINCT metric FROM drill_nodes
            WHERE cell_no = (SELECT max(cell_no) FROM drill_cells WHERE task = ? AND lang = ? AND items > 0))
        SELECT m.metric, coalesce(bool_or(a.is_headline), false) AS is_headline,
               m.metric IN {BINARY_SQL} AS binary
        FROM m LEFT JOIN aggregates a ON a.task = ? AND a.lang = ? AND a.metric = m.metric
        GROUP BY m.metric ORDER BY is_headline DESC, m.metric""", [task, lang, task, lang]).df()


def _system_rows(systems: tuple[str, ...]) -> tuple[str, list]:
    values = ", ".join("(?, ?, ?)" for _ in systems)
    params: list = []
    for label, system in zip(LABELS, systems):
        params.extend([label, *split_system(system)])
    return f"SELECT * FROM (VALUES {values}) v(label, model_id, prompt_lang)", params


@query
def compare_items(con, *, task: str, lang: str, systems: tuple[str, ...], metric: str,
                  prompts: bool = False) -> pd.DataFrame:
    """Items of a cell answered by every system, one column set per label A-D, from the stored item outcomes of
    the systems' cells (a few thousand rows, one grouping).

    Columns: item_id, then for each label X: score_X (0-1), right_X (NULL for non-binary metrics), parsed_X; with
    `prompts`, prompt_disagree (some chosen model is right with one prompt language and wrong with the other: read
    from both prompt languages' cells of every chosen model, so only the slice that needs it asks for it); and input
    (the item's input fields, first 200 characters). `compare_search` finds the items a search matches.
    """
    if not 1 <= len(systems) <= len(LABELS):
        raise ValueError(f"choose 1-{len(LABELS)} systems, not {len(systems)}")
    sys_sql, params = _system_rows(systems)
    labels = LABELS[:len(systems)]
    models = sorted({split_system(s)[0] for s in systems})
    cols = ", ".join(
        f"any_value(value) FILTER (WHERE label = '{x}') AS score_{x}, "
        f"any_value(rt) FILTER (WHERE label = '{x}') AS right_{x}, "
        f"any_value(parsed) FILTER (WHERE label = '{x}') AS parsed_{x}" for x in labels)
    answered = " AND ".join(f"score_{x} IS NOT NULL" for x in labels)
    if prompts:  # every prompt language of the chosen models; a cell no system chose has no label
        cells = "LEFT JOIN sys ON sys.model_id = d.model_id AND sys.prompt_lang = d.prompt_lang " \
                "WHERE d.task = ? AND d.lang = ? AND list_contains(?, d.model_id)"
        cell_params = [task, lang, models]
        disagree = ", " + " OR ".join(
            "coalesce(bool_and(ok) FILTER (WHERE model_id = ? AND prompt_lang = 'en') <> "
            "bool_and(ok) FILTER (WHERE model_id = ? AND prompt_lang = 'native'), false)" for _ in models) \
            + " AS prompt_disagree"
        disagree_params = [m for m in models for _ in (0, 1)]
    else:
        cells = "JOIN sys ON sys.model_id = d.model_id AND sys.prompt_lang = d.prompt_lang " \
                "WHERE d.task = ? AND d.lang = ?"
        cell_params, disagree, disagree_params = [task, lang], "", []
    return con.execute(f"""
        WITH sys AS ({sys_sql}),
        cells AS (SELECT d.cell_no, d.model_id, d.prompt_lang, sys.label FROM drill_cells d {cells}),
        sc AS (
            SELECT c.label, c.model_id, c.prompt_lang, o.item_id, o.value, o.right_all AS ok, o.parsed,
                   CASE WHEN o.metric IN {BINARY_SQL} THEN o.right_all END AS rt
            FROM item_outcomes o JOIN cells c ON c.cell_no = o.cell_no
            WHERE o.cell_no IN (SELECT cell_no FROM cells) AND o.metric = ?),
        wide AS (SELECT item_id, {cols}{disagree} FROM sc GROUP BY item_id),
        text AS (SELECT item_id, json_extract_string(inputs, '$.*') AS fields FROM items WHERE task = ? AND lang = ?)
        SELECT wide.*, left(array_to_string(t.fields, ' | '), 200) AS input
        FROM wide JOIN text t ON t.item_id = wide.item_id
        WHERE {answered} ORDER BY wide.item_id""",
                       [*params, *cell_params, metric, *disagree_params, task, lang]).df()


def _system_runs(con, task: str, lang: str, systems: tuple[str, ...]) -> list[tuple[str, object, object]]:
    """Current runs of the systems on a cell with the write windows of their predictions (`run_windows`)."""
    pairs = [list(split_system(s)) for s in systems]
    return run_windows(
        con, "r.task = ? AND r.lang = ? AND NOT r.superseded AND list_contains(?, [r.model_id, r.prompt_lang])",
        [task, lang, pairs])


def _windows(rows) -> list[tuple[str, object, object]]:
    """`run_windows` rows from rows of a `compare_runs` frame (`itertuples`), in run id order (their timestamps as
    DuckDB gave them)."""
    def stamp(value):
        return None if pd.isna(value) else value.to_pydatetime()
    return sorted((r.run_id, stamp(r.created_at), stamp(r.written_until)) for r in rows)


@query
def compare_search(con, *, task: str, lang: str, systems: tuple[str, ...], search: str) -> pd.DataFrame:
    """Items of a cell whose input fields and gold (as one text) or output from one of the systems contains `search`
    (case-insensitive): item_id."""
    preds, params = predictions_of(_system_runs(con, task, lang, systems), "p.output ILIKE ?", [f"%{search}%"])
    return con.execute(f"""
        SELECT item_id FROM items
        WHERE task = ? AND lang = ?
          AND concat_ws(' ', array_to_string(json_extract_string(inputs, '$.*'), ' '), json_extract_string(gold, '$'))
              ILIKE ?
        UNION SELECT item_id FROM ({preds}) ORDER BY 1""", [task, lang, f"%{search}%", *params]).df()


@query
def compare_slice(con, *, items: pd.DataFrame, slice: str = "all", search: str | None = None,
                  matched: tuple[str, ...] = (), limit: int = 500) -> pd.DataFrame:
    """Rows of `compare_items` in a slice (see SLICES), in item order, at most `limit`; with a `search`, only the
    items it `matched` (`compare_search`). Cut from the frame itself, with the column types of a DuckDB result."""
    pos = _slice_positions(items, slice, matched if search else None)[:limit]
    shown = items.take(pos)
    if "prompt_disagree" in shown.columns:
        shown = shown.drop(columns="prompt_disagree")
    shown = shown.reset_index(drop=True)
    retype = {c: t for c, t in ((c, _duckdb_type(shown[c])) for c in shown.columns) if t is not None}
    return shown.astype(retype) if retype else shown


@query
def compare_slice_ids(con, *, items: pd.DataFrame, slice: str = "all", search: str | None = None,
                      matched: tuple[str, ...] = (), limit: int = 500) -> list[str]:
    """The item ids of `compare_slice` with the same arguments, without building its frame (the page's "next
    failing item" needs only them)."""
    pos = _slice_positions(items, slice, matched if search else None)[:limit]
    return items["item_id"].to_numpy()[pos].tolist()


def _slice_positions(items: pd.DataFrame, slice: str, matched: tuple[str, ...] | None) -> np.ndarray:
    """Positions in `items` of the slice's rows (among `matched` unless None), in item order. As in SQL, a missing
    right/wrong (non-binary metrics) is neither true nor false, so a condition on it leaves the row out."""
    if slice not in SLICES:
        raise ValueError(f"unknown slice {slice!r}; one of {', '.join(SLICES)}")
    if slice == "prompt_disagree" and "prompt_disagree" not in items.columns:
        raise ValueError("the prompt_disagree slice needs compare_items(..., prompts=True)")
    labels = [c.removeprefix("score_") for c in items.columns if c.startswith("score_")]

    def rows(col: str, value: bool) -> np.ndarray:
        values = items[col]
        if values.dtype == bool:
            return values.to_numpy() if value else ~values.to_numpy()
        return values.eq(value).fillna(False).to_numpy(dtype=bool)

    none = np.zeros(len(items), dtype=bool)
    if slice == "all":
        keep = ~none
    elif slice in ("a_right_b_wrong", "a_wrong_b_right"):
        keep = (rows("right_A", slice == "a_right_b_wrong") & rows("right_B", slice == "a_wrong_b_right")
                if len(labels) > 1 else none)
    elif slice == "all_wrong":
        keep = np.logical_and.reduce([rows(f"right_{x}", False) for x in labels])
    elif slice == "any_wrong":
        keep = np.logical_or.reduce([rows(f"right_{x}", False) for x in labels])
    elif slice == "unparseable":
        keep = np.logical_or.reduce([rows(f"parsed_{x}", False) for x in labels])
    else:
        keep = rows("prompt_disagree", True)
    if matched is not None:
        keep = keep & items["item_id"].isin(matched).to_numpy(dtype=bool)
    pos = np.flatnonzero(keep)
    ids = items["item_id"].to_numpy()
    if len(ids) > 1 and not (ids[1:] >= ids[:-1]).all():  # compare_items lists them in order already
        pos = pos[np.argsort(ids[pos], kind="stable")]
    return pos


def _duckdb_type(col: pd.Series):
    """The pandas type DuckDB's `.df()` would give this column where it differs (None where it does not): a
    nullable boolean without a missing value is numpy bool, text in an empty result object."""
    if isinstance(col.dtype, pd.BooleanDtype) and not col.isna().any():
        return bool
    if isinstance(col.dtype, pd.StringDtype) and col.empty:
        return object
    return None


@query
def compare_item(con, *, task: str, lang: str, item_id: str) -> pd.DataFrame:
    """The item as stored: inputs, gold, options (JSON text), category, warnings."""
    return con.execute("""
        SELECT item_id, inputs::VARCHAR AS inputs, gold::VARCHAR AS gold, options::VARCHAR AS options,
               phenomenon, category, subcategory, level, array_to_string(warnings, '; ') AS warnings
        FROM items WHERE task = ? AND lang = ? AND item_id = ?""", [task, lang, item_id]).df()


@query
def compare_outputs(con, *, task: str, lang: str, item_id: str, systems: tuple[str, ...],
                    metric: str, runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every answer of the chosen systems to one item: label, model_id, prompt_lang, run_no, ord, prompt,
    output, answer, parsed, score, extras (the answer reader's, JSON text), right (NULL for non-binary metrics),
    finish_reason. `runs`: `compare_runs` of the
    same cell and systems when the caller has it (else read here): the item's answers in each run's write window,
    labelled from the runs' rows (no join with `runs` or the systems), and its per-answer scores read from each
    system's cell by its number (`cell_no = ?`: DuckDB skips the other row groups, where a list of numbers or a join
    is scanned row by row); when an answer then has no score and the numbers have changed since `runs` was read,
    again with the current ones."""
    if runs is None:
        runs = compare_runs(con, task=task, lang=lang, systems=systems)
    cells = sorted({int(n) for n in runs["cell_no"] if not pd.isna(n)})
    shown = _answers(con, runs, systems, cells, task, lang, item_id, metric)
    if not shown.empty and shown["score"].isna().any():  # numbers read earlier may be gone (a later write
        # replaced or first wrote the cell: it is numbered anew); then read them now
        fresh = [n for (n,) in con.execute(
            "SELECT cell_no FROM drill_cells WHERE task = ? AND lang = ? AND list_contains(?, [model_id, prompt_lang])"
            " ORDER BY cell_no", [task, lang, [list(split_system(x)) for x in systems]]).fetchall()]
        if cells != fresh:
            shown = _answers(con, runs, systems, fresh, task, lang, item_id, metric)
    return shown


def _answers(con, runs: pd.DataFrame, systems: tuple[str, ...], cells: list[int], task: str, lang: str,
             item_id: str, metric: str) -> pd.DataFrame:
    """`compare_outputs`' frame: the item's answers in each chosen system's runs' write windows (`predictions_of`),
    each branch labelled with its system's label, model, prompt language and run number (no join), and their scores
    from the item's outcomes in these cells (by number, each checked to be of the task and language)."""
    by_system: dict[str, list] = {}
    for r in runs.itertuples():
        by_system.setdefault(r.system, []).append(r)
    windows, tags = [], []
    for label, system in zip(LABELS, systems):
        own = sorted(by_system.get(system, []), key=lambda r: r.run_id)
        windows += _windows(own)
        tags += [(label, *split_system(system), int(r.run_no)) for r in own]
    preds, pred_params = predictions_of(windows, "p.item_id = ?", [item_id],
                                        (("label", "model_id", "prompt_lang", "run_no"), tags))
    scored = ["SELECT model_id, prompt_lang, unnest(answers, recursive := true) FROM item_outcomes "
              "WHERE cell_no = ? AND task = ? AND lang = ? AND item_id = ? AND metric = ?" for _ in cells] or [
        "SELECT NULL::VARCHAR AS model_id, NULL::VARCHAR AS prompt_lang, NULL::INTEGER AS run_no, "
        "NULL::BOOLEAN AS ba, NULL::DOUBLE AS value WHERE false"]
    return con.execute(f"""
        WITH p AS ({preds}),
        s AS ({" UNION ALL ".join(scored)})
        SELECT CAST(p.label AS VARCHAR) AS label, CAST(p.model_id AS VARCHAR) AS model_id,
               CAST(p.prompt_lang AS VARCHAR) AS prompt_lang, CAST(p.run_no AS INTEGER) AS run_no, p.ord, p.prompt,
               p.output, p.answer, p.parsed, s.value AS score, p.extras::VARCHAR AS extras,
               CASE WHEN (SELECT coalesce(bool_or(is_binary), false) FROM metrics WHERE metric = ?)
                    THEN s.value >= 1 END AS right, p.finish_reason
        FROM p LEFT JOIN s ON s.model_id = p.model_id AND s.prompt_lang = p.prompt_lang AND s.run_no = p.run_no
                          AND coalesce(s.ba, false) = (p.ord = 'ba')
        ORDER BY label, run_no, p.ord""",
                       [*pred_params, *(v for no in cells for v in (no, task, lang, item_id, metric)), metric]).df()


@query
def compare_runs(con, *, task: str, lang: str, systems: tuple[str, ...]) -> pd.DataFrame:
    """The current runs of each system on a cell (for run cards): system, run_id, run_no, harness, source,
    source_file, settings (JSON text), created_at, written_until (when its last prediction rows were written, from
    its counts: NaT when unknown; with created_at the write window `compare_outputs` reads), cell_no (its
    pre-aggregated cell's number, `drill_cells`; NULL before one is written)."""
    pairs = [list(split_system(s)) for s in systems]
    return con.execute("""
        SELECT r.model_id || '|' || r.prompt_lang AS system, r.run_id, r.run_no, r.harness, r.source, r.source_file,
               r.settings::VARCHAR AS settings, r.created_at, c.computed_at AS written_until, d.cell_no
        FROM runs r LEFT JOIN run_counts c ON c.run_id = r.run_id
        LEFT JOIN drill_cells d ON d.model_id = r.model_id AND d.task = r.task AND d.lang = r.lang
                               AND d.prompt_lang = r.prompt_lang
        WHERE r.task = ? AND r.lang = ? AND NOT r.superseded AND list_contains(?, [r.model_id, r.prompt_lang])
        ORDER BY system, r.run_no""", [task, lang, pairs]).df()


@query
def compare_pair_tests(con, *, task: str, lang: str, metric: str, systems: tuple[str, ...]) -> pd.DataFrame:
    """The stored paired test (schema V13) of each two chosen systems, in the order chosen (A vs B, A vs C, ...,
    C vs D), on all the items of the cell both answered: pair ("A vs B"), system_a, system_b, n, diff, ci_low,
    ci_high (0-100), p_value, method, a_only, b_only. A pair with no stored test is left out."""
    if not 1 <= len(systems) <= len(LABELS):
        raise ValueError(f"choose 1-{len(LABELS)} systems, not {len(systems)}")
    wanted = [(f"{LABELS[i]} vs {LABELS[j]}", i, j, *split_system(a), *split_system(b))
              for i, a in enumerate(systems) for j, b in enumerate(systems) if i < j]
    if not wanted:
        return pd.DataFrame(columns=["pair", "system_a", "system_b", "n", "diff", "ci_low", "ci_high", "p_value",
                                     "method", "a_only", "b_only"])
    values = ", ".join("(?, ?, ?, ?, ?, ?, ?)" for _ in wanted)
    return con.execute(f"""
        WITH w(pair, i, j, model_a, prompt_lang_a, model_b, prompt_lang_b) AS (VALUES {values})
        SELECT w.pair, t.model_a || '|' || t.prompt_lang_a AS system_a, t.model_b || '|' || t.prompt_lang_b AS system_b,
               t.n, t.diff, t.ci_low, t.ci_high, t.p_value, t.method, t.a_only, t.b_only
        FROM w JOIN pair_tests t USING (model_a, prompt_lang_a, model_b, prompt_lang_b)
        WHERE t.task = ? AND t.lang = ? AND t.metric = ?
        ORDER BY w.i, w.j""", [v for row in wanted for v in row] + [task, lang, metric]).df()
