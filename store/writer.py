"""Plain-value writes used by the pipeline: upserts on natural keys, called inside one transaction.

Nothing here opens or commits a transaction: callers wrap a whole ingest in `store.db.transaction`
so that a failure leaves every table as it was.
"""
from __future__ import annotations

import json
from itertools import chain, repeat
from operator import attrgetter
from typing import Any, Iterable, Mapping, Sequence

import duckdb
import pandas as pd

from store.owners import OPERATOR

MODEL_FIELDS = ("model_id", "family", "organisation", "params_b", "model_type", "origin", "weights", "licence",
                "url", "sea_tuned", "owner")
OWNER_FIELD = "owner"
"""Set when the model is first written (OPERATOR unless given) and never changed by an upsert: only its owner
may write to a model (services.upload.ingest_upload checks before writing)."""


def _json(v: Any) -> str | None:
    return None if v is None else json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)


def upsert_model(con: duckdb.DuckDBPyConnection, model: Mapping[str, Any]) -> None:
    """Insert a model, or fill in the metadata fields given (non-null) for an existing one (never its owner)."""
    if not model.get("model_id"):
        raise ValueError("model_id is required")
    vals = [model.get(f) for f in MODEL_FIELDS]
    vals[MODEL_FIELDS.index("origin")] = model.get("origin") or "uploaded"
    vals[MODEL_FIELDS.index("sea_tuned")] = bool(model.get("sea_tuned") or False)
    vals[MODEL_FIELDS.index(OWNER_FIELD)] = model.get(OWNER_FIELD) or OPERATOR
    updates = ", ".join(f"{f} = coalesce(excluded.{f}, models.{f})" for f in MODEL_FIELDS[1:] if f != OWNER_FIELD)
    con.execute(f"INSERT INTO models ({', '.join(MODEL_FIELDS)}) VALUES ({', '.join('?' * len(MODEL_FIELDS))}) "
                f"ON CONFLICT (model_id) DO UPDATE SET {updates}", vals)


def sync_tasks(con: duckdb.DuckDBPyConnection, rows: Iterable[Mapping[str, Any]]) -> None:
    """Mirror the task registry into the `tasks` table (for the methodology page and joins), in one statement."""
    _insert_values(con, "tasks", [
        [r["task"], r["family"], r["grp"], list(r["langs"]), r["mode"], list(r["metrics"]), _json(r.get("headline")),
         _json(r.get("chance")), r.get("description"), r.get("version", 1)] for r in rows])


def sync_metrics(con: duckdb.DuckDBPyConnection, rows: Iterable[Mapping[str, Any]]) -> None:
    """Mirror the metric registry's facts (display name, 0/1-ness, direction) into the `metrics` table, in one
    statement."""
    _insert_values(con, "metrics", [[r["metric"], r.get("display"), bool(r["binary"]),
                                     bool(r.get("higher_is_better", True))] for r in rows])


def _insert_values(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """INSERT OR REPLACE whole rows (every column, in the table's order) as one parameterised VALUES list (one
    statement instead of one per row: ~0.4 s less for the registry, which every live run and ingest writes)."""
    if not rows:
        return
    marks = "(" + ", ".join("?" * len(rows[0])) + ")"
    con.execute(f"INSERT OR REPLACE INTO {table} VALUES {', '.join([marks] * len(rows))}",
                [v for row in rows for v in row])


def _stored(v: Any) -> Any:
    """A value as a registered pandas frame stores it: NaN becomes NULL."""
    return None if isinstance(v, float) and v != v else v


def _insert_columns(con: duckdb.DuckDBPyConnection, table: str, cols: Sequence[str], rows: Sequence[Sequence[Any]]
                    ) -> None:
    """Insert `rows` (values in `cols` order) in one statement, each column passed as one list parameter (no frame
    to build and register: a fixed cost that every refresh paid per table); NaN is stored as NULL. The INSERT casts
    each list's values to its column's type (an explicit CAST per column cost ~0.1-0.5 ms per statement)."""
    if not rows:
        return
    values = [[_stored(r[k]) for r in rows] for k in range(len(cols))]
    con.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join('unnest(?)' for _ in cols)}", values)


ROLLUP_COLUMNS = ("model_id", "prompt_lang", "family", "score", "level", "key", "value", "coverage")


_OVERALLS = """
        SELECT {tag} r.model_id, r.prompt_lang, r.family, r.score, r.level, r.key, r.value{pad}
        FROM rollups r JOIN models m ON m.model_id = r.model_id
        WHERE r.level IN ('overall', 'interval') AND list_contains(?, m.origin) AND NOT coalesce(m.hidden, false)
          AND NOT list_contains(?, r.model_id)
        UNION ALL SELECT {tag} model_id, NULL, NULL, NULL, NULL, NULL, NULL{pad} FROM models
        WHERE list_contains(?, model_id) AND list_contains(?, origin) AND NOT coalesce(hidden, false)"""
"""The rows `ranked_overalls` pivots: (model_id, prompt_lang, family, score, level, key, value) of the other
visible models of some origins, and (model_id, NULL…) for each fresh model that is visible and of them."""

HEADLINE_COLUMNS = ("task", "lang", "prompt_lang", "value", "normalized", "status", "ci_low", "ci_high", "chance")
"""Keys of a headline aggregate as `rollup_inputs` gives it."""


def rollup_inputs(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str], origins: Sequence[str],
                  without: Sequence[Sequence[str]] = ()) -> tuple[dict[str, list[dict[str, Any]]], list[tuple]]:
    """What a roll-up refresh of these models reads, in one statement: each model's headline aggregates
    (HEADLINE_COLUMNS, sorted by task, lang, prompt_lang: roll-ups add them in that order), and the other models'
    overall roll-ups `ranked_overalls` needs (its `found`). `without`: (task, lang, prompt_lang) cells whose
    headline rows are left out (a refresh about to write them adds its own: `services.refresh_inputs`)."""
    models = sorted(set(model_ids))
    skip, params = ("AND NOT list_contains(?, [task, lang, prompt_lang])", [[list(c) for c in without]]) \
        if without else ("", [])
    rows = con.execute(f"""
        SELECT true, model_id, task, lang, prompt_lang, status, NULL, value, normalized, ci_low, ci_high, chance
        FROM aggregates WHERE list_contains(?, model_id) AND is_headline {skip}
        UNION ALL {_OVERALLS.format(tag="false,", pad=", NULL, NULL, NULL, NULL")}""",
                       [models, *params, list(origins), models, models, list(origins)]).fetchall()
    return headline_rows(models, [r[1:] for r in rows if r[0]]), [r[1:8] for r in rows if not r[0]]


def headline_rows(models: Sequence[str], rows: Iterable[Sequence[Any]]) -> dict[str, list[dict[str, Any]]]:
    """Model -> its headline aggregates as `rollup_inputs` gives them, from (model_id, task, lang, prompt_lang,
    status, NULL, value, normalized, ci_low, ci_high, chance) rows in any order."""
    headline: dict[str, list[dict[str, Any]]] = {m: [] for m in models}
    for m, task, lang, prompt_lang, status, _, value, normalized, lo, hi, chance in sorted(rows, key=lambda r: r[1:4]):
        headline[m].append(dict(zip(HEADLINE_COLUMNS, (task, lang, prompt_lang, value, normalized, status, lo, hi,
                                                       chance))))
    return headline


def ranked_overalls(con: duckdb.DuckDBPyConnection, origins: Sequence[str],
                    fresh: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                    found: Sequence[tuple] | None = None) -> list[tuple]:
    """Stored overall roll-ups with their 95% interval of every visible model of `origins`, as (model_id,
    prompt_lang, family, score, value, low, high) tuples sorted by prompt_lang, family, score (for the rank
    ranges). `fresh`: model -> its roll-up rows about to be stored, taken instead of its stored ones (it counts if
    it is visible and of `origins`). One plain read, pivoted here (the FILTER aggregates cost ~1.3 ms more);
    `found`: that read's rows when `rollup_inputs` made it."""
    models = sorted(fresh or {})
    if found is None:
        found = con.execute(_OVERALLS.format(tag="", pad=""),
                            [list(origins), models, models, list(origins)]).fetchall()
    rows = [r for r in found if r[4] is not None]
    for (model_id, *_) in (r for r in found if r[4] is None):  # a visible model of `origins`: its new rows
        rows += [(model_id, *(r[c] for c in ("prompt_lang", "family", "score", "level", "key")), _stored(r["value"]))
                 for r in fresh[model_id] if r["level"] in ("overall", "interval")]
    pivot: dict[tuple, dict[tuple, Any]] = {}
    for model_id, prompt_lang, family, score, level, key, value in rows:  # one row per level and key (the key)
        pivot.setdefault((model_id, prompt_lang, family, score), {})[(level, key if level == "interval" else "")] = value
    out = [(*k, v.get(("overall", "")), v.get(("interval", "low")), v.get(("interval", "high")))
           for k, v in pivot.items()]
    return sorted((r for r in out if r[4] is not None), key=lambda r: (r[1], r[2], r[3], r[0]))


def replace_rollups(con: duckdb.DuckDBPyConnection, rows: Mapping[str, Sequence[Mapping[str, Any]]],
                    ranks: Sequence[Mapping[str, Any]]) -> None:
    """Replace these models' roll-ups (model -> rows: prompt_lang, family, score, level, key, value, coverage) and
    every stored rank range (as `save_ranks`) at once: one delete, one insert."""
    if len(rows) == 1:  # an equality filter: ~0.1 ms less than a list lookup
        con.execute("DELETE FROM rollups WHERE model_id = ? OR level = 'rank'", list(rows))
    else:
        con.execute("DELETE FROM rollups WHERE list_contains(?, model_id) OR level = 'rank'", [sorted(rows)])
    _insert_columns(con, "rollups", ROLLUP_COLUMNS,
                    [[model_id, *(r.get(c) for c in ROLLUP_COLUMNS[1:])] for model_id in rows for r in rows[model_id]]
                    + [_rank_row(r) for r in ranks])


def _rank_row(r: Mapping[str, Any]) -> list:
    """A rank range (model_id, prompt_lang, family, score, key, value) as a roll-up row of level 'rank'."""
    return [*(r[c] for c in ROLLUP_COLUMNS[:4]), "rank", r["key"], r["value"], None]


def save_ranks(con: duckdb.DuckDBPyConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Replace every stored rank range (roll-up rows of level 'rank', key best | worst) with `rows`
    (model_id, prompt_lang, family, score, key, value)."""
    con.execute("DELETE FROM rollups WHERE level = 'rank'")
    _insert_columns(con, "rollups", ROLLUP_COLUMNS, [_rank_row(r) for r in rows])


def models_without_rollups(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with aggregates but no roll-ups (stores written before roll-ups were stored, or imported), or with
    scored control cells but no stored ceiling (roll-ups written when the controls still counted in the overall), or
    without the overall's interval (written before rank ranges were)."""
    return [r[0] for r in con.execute("""
        SELECT DISTINCT a.model_id FROM aggregates a
        WHERE a.model_id NOT IN (SELECT model_id FROM rollups)
           OR (a.is_headline AND a.status = 'ok' AND a.task IN (SELECT task FROM tasks WHERE grp LIKE '%-control')
               AND a.model_id NOT IN (SELECT model_id FROM rollups WHERE level = 'ceiling'))
           OR a.model_id NOT IN (SELECT model_id FROM rollups WHERE level = 'interval')
        ORDER BY 1""").fetchall()]


def _insert_df(con: duckdb.DuckDBPyConnection, table: str, df: pd.DataFrame, casts: Mapping[str, str],
               *, replace: bool = True) -> None:
    if df.empty:
        return
    view = f"_tanaw_{table}_rows"
    con.register(view, df)
    try:
        cols = list(df.columns)
        select = ", ".join(f"CAST({c} AS {casts[c]}) AS {c}" if c in casts else c for c in cols)
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        con.execute(f"{verb} INTO {table} ({', '.join(cols)}) SELECT {select} FROM {view}")
    finally:
        con.unregister(view)


def upsert_items(con: duckdb.DuckDBPyConnection, items: Sequence[Any], content_hash) -> None:
    """Write items (duck-typed `Item`s); `content_hash(item) -> str` keys foreign-id matching."""
    rows = [{
        "task": it.task, "lang": it.lang, "item_id": it.item_id, "inputs": _json(dict(it.inputs)),
        "gold": _json(it.gold), "options": _json(list(it.options) if it.options is not None else None),
        "metadata": _json(dict(it.metadata)), "warnings": list(it.warnings),
        "phenomenon": _str(it.metadata.get("phenomenon")), "category": _str(it.metadata.get("category")),
        "subcategory": _str(it.metadata.get("subcategory")), "level": it.metadata.get("level"),
        "content_hash": content_hash(it)} for it in items]
    _insert_df(con, "items", pd.DataFrame(rows), {"inputs": "JSON", "gold": "JSON", "options": "JSON",
                                                  "metadata": "JSON", "warnings": "VARCHAR[]", "level": "INTEGER"})


def _str(v: Any) -> str | None:
    return None if v is None or v == "" else str(v)


def upsert_run(con: duckdb.DuckDBPyConnection, run: Mapping[str, Any]) -> None:
    """Insert or refresh a run row; marks older active runs of the same cell and run number as superseded."""
    con.execute(
        "UPDATE runs SET superseded = true WHERE model_id = ? AND task = ? AND lang = ? AND prompt_lang = ? "
        "AND run_no = ? AND run_id <> ? AND NOT superseded",
        [run["model_id"], run["task"], run["lang"], run["prompt_lang"], run["run_no"], run["run_id"]])
    con.execute(
        "INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, run_no, settings, source, harness, "
        "source_file, source_hash, superseded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, false) "
        "ON CONFLICT (run_id) DO UPDATE SET settings = excluded.settings, superseded = false",
        [run["run_id"], run["model_id"], run["task"], run["lang"], run["prompt_lang"], run["run_no"],
         _json(run.get("settings") or {}), run["source"], run.get("harness"), run.get("source_file"),
         run.get("source_hash")])


def save_results(con: duckdb.DuckDBPyConnection, run_id: str, results: Sequence[Any]) -> None:
    """Write predictions and per-item scores of duck-typed `ItemResult`s for one run (replacing same keys)."""
    preds, scores, self_rep = [], [], []
    for r in results:
        p = r.prediction
        preds.append({
            "run_id": run_id, "item_id": p.item_id, "ord": p.order, "prompt": p.prompt, "output": p.output,
            "answer": r.answer, "parsed": bool(r.parsed), "reasoning": r.reasoning, "tokens_in": p.tokens_in,
            "tokens_out": p.tokens_out, "latency_s": p.latency_s, "finish_reason": p.finish_reason,
            "option_logprobs": list(p.option_logprobs) if p.option_logprobs is not None else None,
            "extras": _json(dict(r.extras) if r.extras else None)})
        scores.extend({"run_id": run_id, "item_id": p.item_id, "ord": p.order, "metric": m, "value": float(v)}
                      for m, v in r.scores.items())
        self_rep.extend({"run_id": run_id, "item_id": p.item_id, "metric": m, "value": float(v)}
                        for m, v in (p.self_reported or {}).items())
    _insert_df(con, "predictions", pd.DataFrame(preds),
               {"option_logprobs": "DOUBLE[]", "extras": "JSON", "tokens_in": "INTEGER", "tokens_out": "INTEGER",
                "latency_s": "DOUBLE", "prompt": "VARCHAR", "output": "VARCHAR", "answer": "VARCHAR",
                "reasoning": "VARCHAR", "finish_reason": "VARCHAR"})
    _insert_df(con, "scores", pd.DataFrame(scores), {"value": "DOUBLE"})
    _insert_df(con, "self_reported", pd.DataFrame(self_rep), {"value": "DOUBLE"})


def runs_stored(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> bool:
    """Whether any of these runs has a stored `runs` row (so its predictions, scores and self-reported scores may
    be stored: they are written and deleted with it)."""
    (n,), = con.execute("SELECT count(*) FROM runs WHERE run_id IN (SELECT unnest(?))", [list(run_ids)]).fetchall()
    return n > 0


def upsert_runs(con: duckdb.DuckDBPyConnection, runs: Sequence[Mapping[str, Any]]) -> None:
    """`upsert_run` for many runs in two statements: older active runs of the same cells and run numbers are
    marked superseded, then the runs are inserted or refreshed."""
    if not runs:
        return
    cols = ("run_id", "model_id", "task", "lang", "prompt_lang", "run_no", "settings", "source", "harness",
            "source_file", "source_hash")
    df = pd.DataFrame({c: [_json(r.get("settings") or {}) if c == "settings" else r.get(c) for r in runs]
                       for c in cols})
    view = "_tanaw_runs_batch"
    con.register(view, df)
    try:
        con.execute(f"""
            UPDATE runs SET superseded = true FROM {view} b
            WHERE runs.model_id = b.model_id AND runs.task = b.task AND runs.lang = b.lang
              AND runs.prompt_lang = b.prompt_lang AND runs.run_no = CAST(b.run_no AS INTEGER)
              AND runs.run_id <> b.run_id AND NOT runs.superseded""")
        select = ", ".join("CAST(run_no AS INTEGER)" if c == "run_no" else "CAST(settings AS JSON)"
                           if c == "settings" else c for c in cols)
        con.execute(f"INSERT INTO runs ({', '.join(cols)}, superseded) SELECT {select}, false FROM {view} "
                    "ON CONFLICT (run_id) DO UPDATE SET settings = excluded.settings, superseded = false")
    finally:
        con.unregister(view)



def _extras_json(extras: Mapping[str, Any] | None, memo: dict) -> str | None:
    """`_json` of an answer's extras; equal small extras (they repeat: {"via": ...}) are encoded once."""
    if not extras:
        return None
    try:
        key = tuple(extras.items())
        hit = memo.get(key)
    except TypeError:  # unhashable values (lists of spans): encoded each time
        return _json(dict(extras))
    if hit is None:
        hit = memo[key] = _json(dict(extras))
    return hit


def _append_arrow(con: duckdb.DuckDBPyConnection, table: str, data: Any, casts: Mapping[str, str], *,
                  replace: bool = True) -> None:
    """INSERT OR REPLACE the rows of an Arrow table (columns named as the table's) in one statement; a plain INSERT
    when `replace` is off (no stored row can have their keys: the conflict check cost ~1 s per million rows)."""
    if not data.num_rows:
        return
    view = f"_tanaw_{table}_arrow"
    con.register(view, data)
    try:
        cols = data.schema.names
        select = ", ".join(f"CAST({c} AS {casts[c]}) AS {c}" if c in casts else c for c in cols)
        verb = "INSERT OR REPLACE" if replace else "INSERT"
        con.execute(f"{verb} INTO {table} ({', '.join(cols)}) SELECT {select} FROM {view}")
    finally:
        con.unregister(view)


def save_results_batch(con: duckdb.DuckDBPyConnection, runs: Sequence[tuple[str, Sequence[Any]]], *,
                       replace: bool = True) -> None:
    """`save_results` for every run of an upload at once: one append per table (predictions, scores,
    self-reported item scores), built column by column as Arrow arrays; `runs` holds (run_id, duck-typed
    ItemResults). `replace`: whether stored rows of these runs may exist (else predictions and scores are plain
    appends, no conflict check: a run's rows are stored only with its `runs` row, `runs_stored`, and an upload
    holds one row per key)."""
    import pyarrow as pa

    results = [r for _, rs in runs for r in rs]
    preds = list(map(attrgetter("prediction"), results))
    run_ids = list(chain.from_iterable(repeat(run_id, len(rs)) for run_id, rs in runs))
    item_ids, orders = list(map(attrgetter("item_id"), preds)), list(map(attrgetter("order"), preds))

    def column(rows: list, name: str, kind: Any) -> Any:
        return pa.array(list(map(attrgetter(name), rows)), kind)

    memo: dict = {}
    _append_arrow(con, "predictions", pa.table({
        "run_id": pa.array(run_ids, pa.string()), "item_id": pa.array(item_ids, pa.string()),
        "ord": pa.array(orders, pa.string()), "prompt": column(preds, "prompt", pa.string()),
        "output": column(preds, "output", pa.string()), "answer": column(results, "answer", pa.string()),
        "parsed": pa.array([bool(r.parsed) for r in results], pa.bool_()),
        "reasoning": column(results, "reasoning", pa.string()), "tokens_in": column(preds, "tokens_in", pa.int64()),
        "tokens_out": column(preds, "tokens_out", pa.int64()), "latency_s": column(preds, "latency_s", pa.float64()),
        "finish_reason": column(preds, "finish_reason", pa.string()),
        "option_logprobs": pa.array([list(p.option_logprobs) if p.option_logprobs is not None else None
                                     for p in preds], pa.list_(pa.float64())),
        "extras": pa.array([_extras_json(r.extras, memo) for r in results], pa.string())}),
        {"extras": "JSON", "tokens_in": "INTEGER", "tokens_out": "INTEGER"}, replace=replace)
    one = {tuple(r.scores) for r in results}
    if len(one) == 1 and len(next(iter(one))) == 1:  # one metric per row (the usual case): no row tuples
        (metric,), = one
        scores = {"run_id": run_ids, "item_id": item_ids, "ord": orders, "metric": [metric] * len(results),
                  "value": [float(r.scores[metric]) for r in results]}
    else:
        rows = [(run_id, p.item_id, p.order, m, float(v)) for run_id, r, p in zip(run_ids, results, preds)
                for m, v in r.scores.items()]
        scores = {c: [x[k] for x in rows] for k, c in enumerate(("run_id", "item_id", "ord", "metric", "value"))}
    _append_arrow(con, "scores", pa.table({c: pa.array(v, pa.float64() if c == "value" else pa.string())
                                           for c, v in scores.items()}), {}, replace=replace)
    own = [(run_id, p.item_id, m, float(v)) for run_id, p in zip(run_ids, preds)
           for m, v in (p.self_reported or {}).items()] if any(map(attrgetter("self_reported"), preds)) else []
    _append_arrow(con, "self_reported", pa.table({
        c: pa.array([x[k] for x in own], t) for k, (c, t) in enumerate(
            (("run_id", pa.string()), ("item_id", pa.string()), ("metric", pa.string()), ("value", pa.float64())))}),
        {})  # always checked: its key has no option order, so an item asked in both orders repeats it (the last wins)


def save_aggregates_batch(con: duckdb.DuckDBPyConnection, model_id: str,
                          cells: Mapping[tuple[str, str, str], Sequence[Any]], *, stored: bool = True) -> None:
    """`save_aggregates` for several (task, lang, prompt_lang) cells of a model: one delete, one append.
    `stored`: whether some of the cells have aggregates stored (else there is nothing to delete)."""
    if not cells:
        return
    if stored:
        con.execute("DELETE FROM aggregates WHERE model_id = ? AND list_contains(?, [task, lang, prompt_lang])",
                    [model_id, [list(c) for c in cells]])
    cols = ["model_id", "task", "lang", "prompt_lang", *AGG_FIELDS]
    # in the cells' order, as one statement per cell stored them (roll-ups read them in that order)
    _insert_columns(con, "aggregates", cols, [[model_id, t, lg, pl, *(getattr(c, f) for f in AGG_FIELDS)]
                                              for (t, lg, pl), scores in cells.items() for c in scores])


AGG_FIELDS = ("metric", "value", "ci_low", "ci_high", "n", "n_runs", "parse_fail_rate", "chance", "normalized",
              "is_headline", "status", "note")
AGG_CASTS = ({f: "DOUBLE" for f in ("value", "ci_low", "ci_high", "parse_fail_rate", "chance", "normalized")}
             | {"n": "INTEGER", "n_runs": "INTEGER", "is_headline": "BOOLEAN", "note": "VARCHAR", "status": "VARCHAR"})


def save_aggregates(con: duckdb.DuckDBPyConnection, model_id: str, task: str, lang: str, prompt_lang: str,
                    cells: Sequence[Any]) -> None:
    """Replace the cached aggregates of one (model, task, lang, prompt_lang) cell with duck-typed CellScores."""
    con.execute("DELETE FROM aggregates WHERE model_id = ? AND task = ? AND lang = ? AND prompt_lang = ?",
                [model_id, task, lang, prompt_lang])
    rows = [{"model_id": model_id, "task": task, "lang": lang, "prompt_lang": prompt_lang,
             **{f: getattr(c, f) for f in AGG_FIELDS}} for c in cells]
    _insert_df(con, "aggregates", pd.DataFrame(rows), AGG_CASTS)


def record_ingest(con: duckdb.DuckDBPyConnection, source_hash: str, file_name: str, fmt: str, model_id: str,
                  n_rows: int, actor: str | None = None) -> None:
    """Remember an ingested file so that ingesting it again is a no-op."""
    con.execute("INSERT INTO ingests (source_hash, file_name, format, model_id, n_rows, actor) "
                "VALUES (?, ?, ?, ?, ?, ?)", [source_hash, file_name, fmt, model_id, n_rows, actor])


def already_ingested(con: duckdb.DuckDBPyConnection, source_hash: str, model_id: str) -> bool:
    """Whether this exact file was already ingested for this model."""
    return con.execute("SELECT count(*) FROM ingests WHERE source_hash = ? AND model_id = ?",
                       [source_hash, model_id]).fetchone()[0] > 0
