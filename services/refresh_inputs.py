"""A live refresh's reads taken ahead of it: what the store holds beside the cells it is about to write.

After writing its cells' rows, a refresh (`services.ingest.refresh_aggregates`) reads the model's headline
aggregates with the other models' overall roll-ups (`store.writer.rollup_inputs`), the model's runs with their
counts (`store.usage.model_runs`), the field's scan of its cells (`store.page_figures.field_scan`) and the pair-test
state of their (task, lang) (`store.pair_tests.pair_state`). All that those reads return, but the refreshed cells'
own rows (their headline aggregates, their runs' counts, their drill-down cells), is written only by refreshes and
by the commits that add runs, models or the registry; so it can be read before the refresh (`read_ahead`: the live
runner does it in its last round, while the last answers are in flight) and merged with the rows the refresh writes
(`merge`), giving the values the reads would give after the writes (tests/store/test_refresh_inputs.py compares
every derived table with a refresh that reads).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import duckdb

from store import live, pair_tests, page_figures, usage, writer
from store.usage import MODEL_RUN_COLUMNS

_COUNTED = [MODEL_RUN_COLUMNS.index(c) for c in list(live.RUN_COUNT_COLUMNS)[1:]]
"""Where a run count row's fields (`store.drilldown.run_count_rows`, after its run id) sit in a `model_runs` row."""


@dataclass(frozen=True)
class Ahead:
    """The reads of a refresh of one model's `cells` (sorted (task, lang, prompt_lang)) without those cells' rows."""

    model_id: str
    cells: tuple[tuple[str, str, str], ...]
    rollups: tuple[dict[str, list[dict[str, Any]]], list[tuple]]
    runs: list[tuple]
    field: list[tuple]
    pairs: tuple[dict[tuple[str, str], int], list[tuple]]
    visible: bool


@dataclass(frozen=True)
class Merged:
    """What the reads give once the refresh has written its cells (`merge`)."""

    rollups: tuple[dict[str, list[dict[str, Any]]], list[tuple]]
    runs: list[tuple]
    field: list[tuple]
    pairs: tuple[dict[tuple[str, str], int], list[tuple]]


def read_ahead(con: duckdb.DuckDBPyConnection, model_id: str, cells: Sequence[tuple[str, str, str]],
               origins: Sequence[str]) -> Ahead:
    """The reads of a refresh of these cells of a model, without the cells' own rows (five plain reads); `origins`:
    the ranked ones (`services.ingest.RANKED_ORIGINS`)."""
    keys = tuple(sorted(set(map(tuple, cells))))
    systems = [(task, lang, model_id, prompt_lang) for task, lang, prompt_lang in keys]
    seen = con.execute("SELECT NOT coalesce(hidden, false) FROM models WHERE model_id = ?", [model_id]).fetchone()
    return Ahead(model_id, keys,
                 writer.rollup_inputs(con, [model_id], origins, without=keys),
                 usage.model_runs(con, model_id),
                 page_figures.field_scan(con, [model_id], keys, others_only=True),
                 pair_tests.pair_state(con, sorted({k[:2] for k in keys}), model_id, without=systems),
                 bool(seen and seen[0]))


def _stored(v: Any) -> Any:
    """A number as the store gives it back: a float, None for NULL (None or NaN are stored as NULL)."""
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def merge(ahead: Ahead, computed: Mapping[tuple[str, str, str], Sequence[Any]],
          drills: Mapping[tuple[str, str, str], Any], counted: Sequence[Sequence[Any]]) -> Merged:
    """`ahead` with the rows the refresh writes: its cells' headline aggregates (`computed`: cell -> CellScores),
    their drill-downs (`drills`: whether each cell has item outcomes) and their runs' counts (`counted`: rows as
    `store.drilldown.run_count_rows` gives them)."""
    headline = [(cell, c) for cell, scores in computed.items() for c in scores if c.is_headline]
    (own_rows, overalls) = ahead.rollups
    rows = list(own_rows[ahead.model_id]) + [
        dict(zip(writer.HEADLINE_COLUMNS, (*cell, _stored(c.value), _stored(c.normalized), c.status,
                                           _stored(c.ci_low), _stored(c.ci_high), _stored(c.chance))))
        for cell, c in headline]
    rows.sort(key=lambda r: (r["task"], r["lang"], r["prompt_lang"]))  # as rollup_inputs sorts them
    counts = {row[0]: row[1:] for row in counted}
    runs = [r if r[0] not in counts else _with_counts(r, counts[r[0]]) for r in ahead.runs]
    field = ahead.field + [
        (True, *cell, c.metric, True, c.status == "ok" and _stored(c.value) is not None and ahead.visible,
         ahead.model_id, _stored(c.value), _stored(c.ci_low), _stored(c.ci_high), None) for cell, c in headline]
    systems, stored = ahead.pairs
    systems = dict(systems)
    for (task, lang, _), drill in drills.items():
        if drill.n_items > 0:  # a current cell with item outcomes counts as a system (`store.pair_tests._CELLS`)
            systems[(task, lang)] = systems.get((task, lang), 0) + 1
    return Merged(({ahead.model_id: rows}, overalls), runs, field, (systems, stored))


def _with_counts(row: tuple, counted: Sequence[Any]) -> tuple:
    """A `model_runs` row with the counts a refresh stores for its run (answers, unparsed, tokens in and out,
    latency sum and timed answers)."""
    out = list(row)
    for at, value in zip(_COUNTED, counted):
        out[at] = value
    return tuple(out)
