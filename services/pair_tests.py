"""The Compare page's paired tests, computed once when item outcomes are written and stored.

`refresh_pair_tests` runs where a model's cells are re-aggregated (services.ingest.refresh_aggregates: ingest,
upload deletion, the live runner's per-cell refresh), inside the same transaction, after the cells' item outcomes
are written: for each refreshed (task, lang), the pairs between the model's refreshed systems (model | prompt
language) and every system on that (task, lang) are recomputed per metric with evaluator.pair_tests on the items
both answered (the stored item outcomes: the scores the page shows), in both orders; tests of cells that are gone
are dropped. `backfill_pair_tests` recomputes what a store upgrade, a drill-down back-fill or a Hub pull left
missing or stale.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable

import duckdb

from evaluator.pair_tests import both_orders, pair_tests
from store.db import transaction
from store.pair_tests import (cell_outcomes, delete_systems_pairs, drop_orphan_pairs, drop_orphans_among,
                              pair_state, save_pair_tests, stale_systems, system_counts)

System = tuple[str, str]
"""(model_id, prompt_lang)."""


def _pairs(systems: list[System], targets: set[System]) -> list[tuple[System, System]]:
    """Each unordered pair of `systems` with at least one side among `targets`, once."""
    return [(a, b) for i, a in enumerate(systems) for b in systems[i + 1:] if a in targets or b in targets]


def pair_rows(task: str, lang: str, outcomes: list[tuple], targets: set[System]) -> list[dict]:
    """Stored rows (both orders) of the pairs involving `targets` on one (task, lang), from its `cell_outcomes`."""
    cells: dict[System, int] = {}
    by_metric: dict[str, dict[System, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for cell_no, model_id, prompt_lang, metric, item_id, value in outcomes:
        cells[(model_id, prompt_lang)] = cell_no
        by_metric[metric][(model_id, prompt_lang)][item_id] = value
    scores = {(metric, system): items for metric, systems in by_metric.items() for system, items in systems.items()}
    pairs = [((metric, a), (metric, b)) for metric, systems in sorted(by_metric.items())
             for a, b in _pairs(sorted(systems), targets)]
    rows = []
    for ((metric, a), (_, b)), t in sorted(both_orders(pair_tests(scores, pairs)).items()):
        stats = {} if t is None else {"n": t.n, "diff": t.diff, "ci_low": t.ci_low, "ci_high": t.ci_high,
                                      "p_value": t.p_value, "method": t.method, "a_only": t.a_only, "b_only": t.b_only}
        rows.append({"task": task, "lang": lang, "metric": metric, "model_a": a[0], "prompt_lang_a": a[1],
                     "model_b": b[0], "prompt_lang_b": b[1], "cell_a": cells[a], "cell_b": cells[b], "n": 0, **stats})
    return rows


def refresh_systems(con: duckdb.DuckDBPyConnection, targets: Iterable[tuple[str, str, str, str]],
                    model_id: str | None = None, state: tuple[dict, list] | None = None) -> int:
    """Recompute and store the tests of (task, lang, model_id, prompt_lang) systems against every other system of
    their (task, lang), and drop orphaned tests (of `model_id` only, when given), inside the caller's transaction;
    returns how many rows were written. `state`: what `pair_state` would read now, when the caller has it
    (`services.refresh_inputs`)."""
    by_cell: dict[tuple[str, str], set[System]] = defaultdict(set)
    for task, lang, model, prompt_lang in targets:
        by_cell[(task, lang)].add((model, prompt_lang))
    systems = [(task, lang, *s) for (task, lang), group in sorted(by_cell.items()) for s in sorted(group)]
    if model_id is not None and by_cell and all(s[2] == model_id for s in systems):
        # one read: the systems per (task, lang) and the model's stored pairs, which hold every pair to delete
        counts, stored = state if state is not None else pair_state(con, sorted(by_cell), model_id)
        keys = set(systems)
        remaining = [r for r in stored if (*r[:2], *r[2:4]) not in keys and (*r[:2], *r[5:7]) not in keys]
        if len(remaining) < len(stored):  # some stored pair names a refreshed system
            delete_systems_pairs(con, systems)
    else:
        delete_systems_pairs(con, systems)  # one statement for every (task, lang)
        counts, remaining = (system_counts(con, sorted(by_cell)) if by_cell else {}), None
    written = 0
    for (task, lang), group in sorted(by_cell.items()):
        if counts.get((task, lang), 0) < 2:  # a model alone on its cell (en or native only): no pair
            continue
        rows = pair_rows(task, lang, cell_outcomes(con, task, lang), group)
        save_pair_tests(con, rows)
        written += len(rows)
    if remaining is None:
        drop_orphan_pairs(con, model_id)
    else:  # the pairs just written name current cells: only the model's other stored pairs can be orphaned
        drop_orphans_among(con, remaining)
    return written


def refresh_pair_tests(con: duckdb.DuckDBPyConnection, model_id: str, cells: Iterable[tuple[str, str, str]],
                       state: tuple[dict, list] | None = None) -> int:
    """Recompute the tests of a model's re-aggregated (task, lang, prompt_lang) cells against every other system
    on them, and drop the tests of cells that are gone (inside the caller's transaction); `state` as for
    `refresh_systems`."""
    return refresh_systems(con, [(task, lang, model_id, prompt_lang) for task, lang, prompt_lang in cells], model_id,
                           state)


def backfill_pair_tests(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """Recompute, in one transaction, the systems whose tests are missing or stale and drop orphaned tests;
    returns the recomputed (task, lang, model_id, prompt_lang)."""
    stale = stale_systems(con)
    with transaction(con):
        if stale:
            refresh_systems(con, stale)
        else:
            drop_orphan_pairs(con)
    return stale
