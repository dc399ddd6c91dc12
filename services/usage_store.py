"""Cost and speed per model, computed once when runs are written and stored.

`refresh_usage` runs wherever a model's roll-ups are refreshed (services.ingest.refresh_rollups: ingest, upload
deletion, the live runner's refresh, a Hub pull), inside the same transaction: for each prompt language, per task
family and over every family (''), evaluator.usage.usage_summary over the model's current runs. The leaderboard
only filters the stored rows. `backfill_usage` fills the models of a store written before V10.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import duckdb

from evaluator.usage import usage_summary
from store.db import transaction
from store.usage import fill_run_usage, models_without_usage, run_usage, save_usage


def usage_rows(groups: Sequence[Mapping[str, Any]]) -> list[dict]:
    """One row per (prompt_lang, family) and per (prompt_lang, '' = every family) from a model's runs
    (`store.usage.run_usage`; a run without family counts in '' only)."""
    by_lang: dict[str, list] = {}
    for g in groups:
        by_lang.setdefault(g["prompt_lang"], []).append(g)
    rows = []
    for prompt_lang in sorted(by_lang):
        records = by_lang[prompt_lang]
        rows.append({"prompt_lang": prompt_lang, "family": "", **usage_summary(records)})
        families: dict[str, list] = {}
        for g in records:
            if g["family"] is not None:
                families.setdefault(g["family"], []).append(g)
        rows += [{"prompt_lang": prompt_lang, "family": family, **usage_summary(families[family])}
                 for family in sorted(families)]
    return rows


def refresh_usage(con: duckdb.DuckDBPyConnection, model_ids: Iterable[str],
                  prompt_langs: Sequence[str] | None = None,
                  runs: Mapping[str, Sequence[tuple]] | None = None) -> None:
    """Recompute and store the usage of these models (inside the caller's transaction); `prompt_langs`: only
    their rows in these prompt languages (the runs of a refreshed cell count in its prompt language only); `runs`:
    model -> its current runs as `store.usage.model_runs` read them in this transaction, when the caller did."""
    langs = sorted(set(prompt_langs)) if prompt_langs is not None else None
    for model_id in sorted(set(model_ids)):
        rows = run_usage(con, model_id, langs, runs.get(model_id) if runs else None)
        save_usage(con, model_id, usage_rows(rows), langs)


def backfill_usage(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Store the usage of models that have current runs but none stored, in one transaction, after giving the run
    counts of an older export their tokens and latency (V15); returns the models."""
    fill_run_usage(con)
    missing = models_without_usage(con)
    if missing:
        with transaction(con):
            refresh_usage(con, missing)
    return missing
