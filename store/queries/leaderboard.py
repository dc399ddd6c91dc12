"""Leaderboard queries: headline cells per model, averages per competency / language / overall, reported rows.

Averages (overall, per competency, per language) are the roll-ups `evaluator.rollup` computed at ingest and the
wiring stored in `rollups`; this module only reads them. `coverage` says how many cells a model's overall covers.
Demo baselines and reported paper rows are never ranked.
"""
from __future__ import annotations

import duckdb
import pandas as pd

from store.queries import query

RANKED_ORIGINS = ("evaluated", "uploaded")
RANK_COLUMNS = ("overall_low", "overall_high", "rank_best", "rank_worst")
"""Stored with the roll-ups: the overall's 95% interval and the rank range (interval-overlap rule)."""
CEILING = "controls (ceiling)"
"""Column of the control tasks' mean (PACUTE): shown beside the overall, never part of it."""

_CELLS_SQL = """
SELECT a.model_id AS model, m.origin, m.model_type, m.params_b, m.weights, m.sea_tuned, m.organisation,
       a.task, t.family, t.grp, a.lang, a.prompt_lang, a.metric, a.value, a.ci_low, a.ci_high, a.n, a.n_runs,
       a.chance, a.normalized, a.parse_fail_rate, a.status, a.note
FROM aggregates a
JOIN models m ON m.model_id = a.model_id
LEFT JOIN tasks t ON t.task = a.task
WHERE a.is_headline AND a.prompt_lang = ? AND NOT coalesce(m.hidden, false)
  AND (? IS NULL OR t.family = ?)
  AND (? IS NULL OR list_contains(?, a.model_id))
ORDER BY a.model_id, a.task, a.lang
"""


@query
def leaderboard_cells(con: duckdb.DuckDBPyConnection, prompt_lang: str = "en", family: str | None = None,
                      models: tuple[str, ...] | None = None) -> pd.DataFrame:
    """One row per (model, task, lang) headline cell: raw value, CI, n, normalized, format-failure rate, status.

    `models` restricts to those model ids (the shared page filters); None = every visible model.
    """
    ids = list(models) if models is not None else None
    df = con.execute(_CELLS_SQL, [prompt_lang, family, family, ids, ids]).df()
    df["cell"] = df["task"] + " · " + df["lang"]
    df["below_chance"] = df["ci_high"] < df["chance"]  # the whole 95% interval below chance, not a point under it
    return df


def _score_col(score: str) -> str:
    if score not in ("normalized", "value"):
        raise ValueError("score must be 'normalized' or 'value'")
    return score


def _averages(con: duckdb.DuckDBPyConnection, prompt_lang: str, col: str, family: str | None,
              models: list[str]) -> pd.DataFrame:
    """Stored roll-ups of `models` as columns: overall, one per competency, `lang:<code>` per language, coverage."""
    df = con.execute("""
        SELECT model_id AS model, level, key, value, coverage FROM rollups
        WHERE prompt_lang = ? AND family = ? AND score = ? AND list_contains(?, model_id)""",
                     [prompt_lang, family or "", col, models]).df()
    if df.empty:
        return pd.DataFrame(columns=["model", "overall", "coverage", *RANK_COLUMNS])
    df["column"] = df["level"].map({"overall": "overall", "competency": "", "language": "lang:",
                                    "ceiling": CEILING, "interval": "overall_", "rank": "rank_"}) + df["key"]
    wide = df.pivot_table(index="model", columns="column", values="value", aggfunc="first")
    coverage = df[df["level"] == "overall"].set_index("model")["coverage"].rename("coverage")
    comps = sorted(df.loc[df["level"] == "competency", "column"].unique())
    langs = sorted(df.loc[df["level"] == "language", "column"].unique())
    ceiling = [CEILING] if CEILING in wide.columns else []
    wide = wide.reindex(columns=["overall", *ceiling, *comps, *langs, *RANK_COLUMNS])
    return pd.concat([wide, coverage], axis=1).reset_index(names="model")


@query
def leaderboard_table(con: duckdb.DuckDBPyConnection, prompt_lang: str = "en", score: str = "normalized",
                      family: str | None = None, models: tuple[str, ...] | None = None,
                      min_items: int = 0, ranks: tuple[tuple[str, int, int], ...] | None = None) -> pd.DataFrame:
    """Models × (averages, task·lang cells): rank (evaluated/uploaded models with at least `min_items` scored
    answers over their cells here; fewer: listed, "too few items", never ranked), origin, type, size, scores.
    `ranks`: (model, best, worst) rank ranges computed without the models below `min_items`, in place of the
    stored ones (services.board_view.ranks_without_stubs)."""
    col = _score_col(score)
    cells = leaderboard_cells(con, prompt_lang, family, models)
    if cells.empty:
        return pd.DataFrame(columns=["rank", "model", "origin", "overall"])
    models = cells.groupby("model", as_index=False).first()[["model", "origin", "model_type", "params_b", "weights"]]
    shown = cells.assign(val=cells[col].where(cells["status"] == "ok"))
    wide = shown.pivot_table(index="model", columns="cell", values="val", aggfunc="first", dropna=False)
    wide = wide[sorted(wide.columns)]
    averages = _averages(con, prompt_lang, col, family, models["model"].tolist())
    out = models.merge(averages, on="model", how="left").merge(
        wide.reset_index(), on="model", how="left")
    if ranks is not None:
        given = {m: (b, w) for m, b, w in ranks}
        out["rank_best"] = out["model"].map(lambda m: given.get(m, (None, None))[0]).astype(float)
        out["rank_worst"] = out["model"].map(lambda m: given.get(m, (None, None))[1]).astype(float)
    items = cells[cells["status"] == "ok"].groupby("model")["n"].sum()
    enough = out["model"].map(items).fillna(0) >= min_items
    ranked = out["origin"].isin(RANKED_ORIGINS) & out["overall"].notna() & out["rank_best"].notna() & enough
    best, worst = out["rank_best"].where(ranked), out["rank_worst"].where(ranked)
    out["rank"] = best.astype("Int64")
    out["rank range"] = [("too few items" if o in RANKED_ORIGINS and not e else None) if pd.isna(b)
                         else f"{int(b)}" if b == w else f"{int(b)}–{int(w)}"
                         for b, w, o, e in zip(best, worst, out["origin"], enough)]
    out["tied with #1"] = [None if pd.isna(b) else ("#1" if w == 1 else "tied with #1") if b == 1 else ""
                           for b, w in zip(best, worst)]
    out = out.sort_values(["rank", "overall"], ascending=[True, False], na_position="last")
    # scores before rank ranges and model details: a phone-width grid shows rank, model and overall first
    front = ["rank", "model", "overall", *([CEILING] if CEILING in out.columns else []), "rank range", "tied with #1",
             "coverage", "origin", "model_type", "params_b", "weights"]
    return out[front + [c for c in out.columns if c not in front and c not in RANK_COLUMNS]].reset_index(drop=True)


@query
def reported_table(con: duckdb.DuckDBPyConnection, prompt_lang: str = "en", score: str = "value",
                   family: str | None = None) -> pd.DataFrame:
    """Results reported in the papers on each cell's headline metric, one row per system (never ranked); the
    normalised score is the one stored when the rows loaded (services.page_figures, normalised like the
    aggregates)."""
    col = _score_col(score)
    df = con.execute("""
        SELECT r.source, r.system, r.task, r.lang, r.prompt_lang, r.metric, r.value, r.note, r.citation,
               n.chance, n.normalized
        FROM reported r JOIN tasks t ON t.task = r.task
        LEFT JOIN reported_normalized n ON n.source IS NOT DISTINCT FROM r.source AND n.task = r.task
             AND n.lang = r.lang AND n.prompt_lang IS NOT DISTINCT FROM r.prompt_lang AND n.metric = r.metric
             AND n.system IS NOT DISTINCT FROM r.system AND n.value IS NOT DISTINCT FROM r.value
        WHERE json_extract_string(t.headline, '$.' || r.lang) = r.metric
          AND r.prompt_lang IN (?, 'n/a') AND (? IS NULL OR t.family = ?)""", [prompt_lang, family, family]).df()
    if df.empty:
        return pd.DataFrame(columns=["system", "source"])
    df["cell"] = df["task"] + " · " + df["lang"]
    wide = df.pivot_table(index=["system", "source"], columns="cell", values=col, aggfunc="first")
    return wide[sorted(wide.columns)].reset_index()


@query
def reported_rows(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every reported row with its citation (for download and the methodology page)."""
    return con.execute("SELECT * FROM reported ORDER BY source, task, lang, system").df()


@query
def leaderboard_families(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Benchmark families that have at least one headline cell, with counts."""
    return con.execute("""
        SELECT t.family, count(DISTINCT a.model_id) AS models, count(*) AS cells
        FROM aggregates a JOIN tasks t ON t.task = a.task WHERE a.is_headline
        GROUP BY t.family ORDER BY t.family""").df()


@query
def leaderboard_matrix(con: duckdb.DuckDBPyConnection, prompt_lang: str = "en", score: str = "normalized",
                       family: str | None = None, models: tuple[str, ...] | None = None,
                       what: str = "value", min_items: int = 0,
                       ranks: tuple[tuple[str, int, int], ...] | None = None) -> pd.DataFrame:
    """Models (rows, ranked order) × task·lang cells (columns) for the heatmap: scores, or hover text when
    `what="hover"` ("raw 72.5 · normalized 45.0 · 95% CI [61.3, 80.8] · n=80", or why a cell is not scored)."""
    col = _score_col(score)
    cells = leaderboard_cells(con, prompt_lang, family, models)
    order = leaderboard_table(con, prompt_lang, score, family, models, min_items, ranks)["model"].tolist()
    if cells.empty:
        return pd.DataFrame()
    if what == "hover":
        def text(r) -> str:
            if r["status"] != "ok":
                return f"not scored yet: {r['note'] or r['status']}"
            below = " · below chance" if r["below_chance"] else ""
            return (f"raw {r['value']:.1f} · normalized {r['normalized']:.1f} · 95% CI [{r['ci_low']:.1f}, "
                    f"{r['ci_high']:.1f}] · n={int(r['n'])}{below}")
        cells = cells.assign(val=cells.apply(text, axis=1))
    else:
        cells = cells.assign(val=cells[col].where(cells["status"] == "ok"))
    wide = cells.pivot_table(index="model", columns="cell", values="val", aggfunc="first", dropna=False)
    return wide.reindex(index=order, columns=sorted(wide.columns))


@query
def rollup_rows(con: duckdb.DuckDBPyConnection, prompt_lang: str | None = None, family: str | None = None,
                score: str = "normalized") -> pd.DataFrame:
    """Stored roll-ups of visible models, long format: model, prompt_lang, family ('' = all), level, key, value,
    coverage (for the CLI and downloads)."""
    return con.execute("""
        SELECT r.model_id AS model, r.prompt_lang, r.family, r.level, r.key, r.value, r.coverage
        FROM rollups r JOIN models m ON m.model_id = r.model_id
        WHERE NOT coalesce(m.hidden, false) AND r.score = ? AND (? IS NULL OR r.prompt_lang = ?)
          AND r.family = coalesce(?, '')
        ORDER BY r.model_id, r.prompt_lang, r.level DESC, r.key""",
                       [_score_col(score), prompt_lang, prompt_lang, family]).df()


@query
def board_availability(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Which (family, prompt language) pairs have headline results of visible models: family, prompt_lang,
    models, ranked (evaluated/uploaded models among them), cells. Pages open on one that has results."""
    return con.execute("""
        SELECT t.family, a.prompt_lang, count(DISTINCT a.model_id) AS models,
               count(DISTINCT a.model_id) FILTER (WHERE list_contains(?, m.origin)) AS ranked, count(*) AS cells
        FROM aggregates a JOIN tasks t ON t.task = a.task JOIN models m ON m.model_id = a.model_id
        WHERE a.is_headline AND a.status = 'ok' AND NOT coalesce(m.hidden, false)
        GROUP BY ALL ORDER BY t.family, a.prompt_lang""", [list(RANKED_ORIGINS)]).df()


@query
def usage_table(con: duckdb.DuckDBPyConnection, prompt_lang: str = "en", family: str | None = None,
                models: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Cost and speed per visible model over its current runs (stored by services.usage_store, family None = every
    family): model, requests, tokens_in, tokens_out, mean_latency_s, cost; models without stored requests left out.
    A token sum of 0 means the files reported none (`run_counts`): NULL here, shown as "—", never 0 tokens."""
    ids = list(models) if models is not None else None
    return con.execute("""
        SELECT u.model_id AS model, u.requests, nullif(u.tokens_in, 0) AS tokens_in,
               nullif(u.tokens_out, 0) AS tokens_out, u.mean_latency_s, u.cost
        FROM model_usage u JOIN models m ON m.model_id = u.model_id
        WHERE u.prompt_lang = ? AND u.family = coalesce(?, '') AND u.requests > 0 AND NOT coalesce(m.hidden, false)
          AND (? IS NULL OR list_contains(?, u.model_id))
        ORDER BY 1""", [prompt_lang, family, ids, ids]).df()
