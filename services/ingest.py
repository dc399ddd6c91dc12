"""Predictions into the store: validate against our items, score, write, aggregate, roll up — in one transaction.

Uploads, the CLI `ingest` command and live runs all go through here, so every number in the store (cell
aggregates and roll-ups) is computed by the evaluator's own metrics and `evaluator.rollup`.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import duckdb

from evaluator import task_check
from evaluator.bulk import paused_gc
from evaluator.cell_columns import CellColumns
from evaluator.drilldown import columns_drilldown
from evaluator.formats.base import FormatError
from evaluator.formats.mapping import ItemIndex
from evaluator.metrics import METRICS
from evaluator.ranking import rank_ranges
from evaluator.registry import TASKS
from evaluator.rollup import rollup_rows
from evaluator.spec import Item, ItemResult, Prediction
from services import refresh_inputs
from services.drill_levels import refresh_levels
from services.page_figures import refresh_model_figures
from services.pair_tests import refresh_pair_tests
from services.leakage import refresh_leakage
from services.refresh_inputs import Merged
from services.stored_columns import cell_pairs as _rebuild
from services.stored_columns import stored_columns
from services.usage_store import refresh_usage
from store import cell_rows, writer
from store.db import transaction
from store.drill_levels import Groups
from store.drilldown import run_count_rows, save_drilldowns
from store.usage import model_runs


class IngestError(ValueError):
    """The file cannot be ingested; `errors` name file, line and field. Nothing was written."""

    def __init__(self, errors: Sequence[FormatError]):
        self.errors = list(errors)
        shown = "\n".join(str(e) for e in self.errors[:20])
        more = f"\n… and {len(self.errors) - 20} more" if len(self.errors) > 20 else ""
        super().__init__(f"{len(self.errors)} problem(s):\n{shown}{more}")


@dataclass
class CellSummary:
    """Headline result of one (task, lang, prompt_lang) cell after an ingest."""

    task: str
    lang: str
    prompt_lang: str
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    normalized: float | None
    parse_fail_rate: float | None
    status: str
    note: str | None = None


@dataclass
class IngestSummary:
    """What an ingest did."""

    file: str
    model_id: str
    n_predictions: int
    noop: bool = False
    cells: list[CellSummary] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)


def run_id(model_id: str, task: str, lang: str, prompt_lang: str, run_no: int, source: str) -> str:
    """Stable id of a run: the same model, cell, run number and source always give the same id."""
    key = json.dumps([model_id, task, lang, prompt_lang, run_no, source])
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def content_hash(item: Item) -> str:
    """Hash of an item's task, language and inputs, to match rows whose ids differ from ours."""
    blob = json.dumps([item.task, item.lang, dict(item.inputs)], ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def task_rows() -> list[dict]:
    """The registry as rows for the store's `tasks` table."""
    return [{"task": t.name, "family": t.family, "grp": t.group, "langs": t.langs, "mode": t.mode,
             "metrics": t.metrics, "headline": {lang: t.headline_metric(lang) for lang in t.langs},
             "chance": {lang: t.chance_level(lang) for lang in t.langs}, "description": t.description,
             "version": t.version} for t in TASKS.values()]


def metric_rows() -> list[dict]:
    """The metric registry's facts as rows for the store's `metrics` table (0/1-ness from `MetricSpec.binary`)."""
    return [{"metric": m.name, "display": m.display, "binary": m.binary, "higher_is_better": m.higher_is_better}
            for m in METRICS.values()]


def sync_registry(con: duckdb.DuckDBPyConnection) -> None:
    """Mirror the task and metric registries into the store (inside the caller's transaction); TaskError, before
    anything is written, when a task names a loader, answer reader or metric nothing registered."""
    task_check.check()
    writer.sync_tasks(con, task_rows())
    writer.sync_metrics(con, metric_rows())


def refresh_rollups(con: duckdb.DuckDBPyConnection, model_ids: Iterable[str],
                    cells: Sequence[tuple[str, str, str]] | None = None, levels: Groups | None = None,
                    inputs: Merged | None = None) -> None:
    """Recompute and store the roll-ups of these models from their stored headline aggregates, with their usage
    and drill-down levels. `cells`: the (task, lang, prompt_lang) cells just recomputed; only the usage of their
    prompt languages and the levels they pool into can have changed, so only those are recomputed (`levels`: their
    groups, when the caller read them). `inputs`: what the reads below would give now, for one model, when the
    caller has it (`services.refresh_inputs`: a live refresh whose inputs were read ahead)."""
    langs = sorted({c[2] for c in cells}) if cells is not None else None
    model_ids = sorted(set(model_ids))
    if inputs is not None:
        (headline, overalls), runs = inputs.rollups, {model_ids[0]: inputs.runs}
    else:
        headline, overalls = writer.rollup_inputs(con, model_ids, RANKED_ORIGINS)  # one read for both
    rows = {model_id: rollup_rows(headline[model_id]) for model_id in model_ids}
    writer.replace_rollups(con, rows, rank_rows(con, rows, overalls))  # with every rank range: one delete, one insert
    if inputs is None:
        runs = {model_id: model_runs(con, model_id) for model_id in model_ids}  # one read for usage
    for model_id in model_ids:
        refresh_usage(con, [model_id], langs, runs)  # cost and speed per model, stored beside its roll-ups (V10)
        refresh_levels(con, [model_id], cells, levels)  # LINDSEA / PACUTE drill-down levels from its nodes (V11)
    refresh_model_figures(con, model_ids, cells,  # its cells' field and PACUTE ceilings (V12)
                          inputs.field if inputs is not None else None)


RANKED_ORIGINS = ("evaluated", "uploaded")
"""Origins that are ranked (demo baselines and runs are reference points)."""


def refresh_ranks(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute every rank range (`evaluator.ranking.rank_ranges` over the stored overall intervals of the ranked
    models, per prompt language, family and scale) and store them as roll-up rows of level 'rank'."""
    writer.save_ranks(con, rank_rows(con))


def rank_rows(con: duckdb.DuckDBPyConnection, fresh: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
              found: Sequence[tuple] | None = None) -> list[dict]:
    """Every rank range as roll-up rows (model_id, prompt_lang, family, score, key best | worst, value) from the
    stored overall intervals of the ranked models; `fresh`: models' roll-up rows about to replace their stored ones;
    `found`: the stored rows as `writer.rollup_inputs` read them (else read here)."""
    groups: dict[tuple, dict[str, tuple]] = {}
    for m, prompt_lang, family, score, v, lo, hi in writer.ranked_overalls(con, RANKED_ORIGINS, fresh, found):
        groups.setdefault((prompt_lang, family, score), {})[m] = (
            lo if lo is not None and lo == lo else v, hi if hi is not None and hi == hi else v)  # none: the point
    rows = []
    for (prompt_lang, family, score), intervals in groups.items():
        base = {"prompt_lang": prompt_lang, "family": family, "score": score}
        rows += [{**base, "model_id": m, "key": k, "value": float(r)}
                 for m, (best, worst) in rank_ranges(intervals).items() for k, r in (("best", best), ("worst", worst))]
    return rows


def score_all(preds: Sequence[Prediction], items: ItemIndex, file: str, *, unmatched: str = "error",
              progress: Callable[[int, int], None] | None = None
              ) -> tuple[list[tuple[Item, ItemResult]], list[FormatError], list[FormatError]]:
    """Match each prediction to our item (`items`: the upload's one item index) and score it; returns (pairs,
    errors, warnings). Scoring is a pure function of the item and the answer's output, option order,
    log-probabilities and reasoning, so rows repeating those (other runs answering alike) are scored once."""
    pairs, errors, warnings = [], [], []
    scored: dict[tuple, ItemResult] = {}
    for i, p in enumerate(preds):
        cell = items.cell(p.task, p.lang)
        if isinstance(cell, str):
            errors.append(FormatError(file, p.line, "task", f"{p.task}/{p.lang}: {cell}"))
            continue
        item = cell.items.get(p.item_id)
        if item is None:
            problem = FormatError(file, p.line, "item_id", f"no item {p.item_id!r} in {p.task}/{p.lang}")
            (errors if unmatched == "error" else warnings).append(problem)
            continue
        pairs.append((item, _scored(scored, item, p)))
        if progress and (i % 200 == 0 or i == len(preds) - 1):
            progress(i + 1, len(preds))
    return pairs, errors, warnings


def _scored(seen: dict[tuple, ItemResult], item: Item, pred: Prediction) -> ItemResult:
    """`score_prediction` of the row, or the result of an earlier row with the same item and answer (its
    answer, scores and extras, with this row's prediction; the scores and extras mappings are shared, and nothing
    writes to them after scoring)."""
    from evaluator.scoring import score_prediction

    key = (pred.task, item.lang, item.item_id, pred.output, pred.order, pred.option_logprobs, pred.reasoning)
    try:
        done = seen.get(key)
    except TypeError:  # an unhashable field (log-probabilities given as a list): scored on its own
        return score_prediction(TASKS[pred.task], item, pred)
    if done is None:
        done = seen[key] = score_prediction(TASKS[pred.task], item, pred)
        return done
    return dataclasses.replace(done, prediction=pred)  # read-only mappings, shared


def _in_memory(pairs: Sequence[tuple[Item, ItemResult]]) -> dict[tuple[str, str, str], list]:
    """Scored pairs per (task, lang, prompt_lang) as the store keeps them: one row per (run, item, order), the
    last one winning, in the order the store reads them back (run, item id, order); cells sorted."""
    cells: dict[tuple[str, str, str], dict[tuple, tuple[Item, ItemResult]]] = defaultdict(dict)
    for item, res in pairs:
        p = res.prediction
        cells[(p.task, p.lang, p.prompt_lang)][(p.run, p.item_id, p.order)] = (item, res)
    return {cell: [rows[key] for key in sorted(rows)] for cell, rows in sorted(cells.items())}


WRITTEN_ROWS_MAX = 20_000
"""Up to this many rows in all, the cells `refresh_aggregates` is handed as just written are aggregated from their
scored pairs; above it they are read back as columns, one scan (about half the time for 100,000 rows:
`evaluator.cell_columns.CellColumns.from_pairs` touches every Python object, the scan none), the same rows in the
same order (tests/store/test_ingest_once.py)."""


def refresh_aggregates(con: duckdb.DuckDBPyConnection, model_id: str, cells: Iterable[tuple[str, str, str]], *,
                       written: Mapping[tuple[str, str, str], tuple[list, set[str]]] | None = None,
                       state: cell_rows.RefreshState | None = None,
                       ahead: refresh_inputs.Ahead | None = None) -> list[CellSummary]:
    """Recompute and store the aggregates of (task, lang, prompt_lang) cells from every active run.

    `written`: cell -> (scored pairs, run ids) an ingest just wrote; a cell with no other active run is aggregated
    from those pairs as they are, without reading its rows back from the store, unless such cells hold more than
    `WRITTEN_ROWS_MAX` rows in all (then reading them back is cheaper). `state`: the cells' (sorted, without
    repeats) `store.cell_rows.RefreshState` when the caller knows it (the live sink's clean cells), else it is read
    here. `ahead`: the refresh's reads of these cells taken before (`services.refresh_inputs.read_ahead`) when the
    caller knows nothing they read was written since (the live sink), merged here with what the refresh writes
    instead of read after it. The cyclic garbage collector is paused meanwhile (`evaluator.bulk.paused_gc`: the row
    work makes no cycles; its passes cost ~5% of a refresh)."""
    with paused_gc():
        return _refresh_aggregates(con, model_id, cells, written, state, ahead)


def _refresh_aggregates(con: duckdb.DuckDBPyConnection, model_id: str, cells: Iterable[tuple[str, str, str]],
                        written: Mapping[tuple[str, str, str], tuple[list, set[str]]] | None,
                        state: cell_rows.RefreshState | None, ahead: refresh_inputs.Ahead | None) -> list[CellSummary]:
    keys = sorted(set(cells))
    if state is None:  # active runs, next drill cell number, what is stored
        state = cell_rows.refresh_state(con, model_id, keys)
    own: dict[tuple[str, str, str], list] = {}  # cells held in full by `written`: no other active run
    for key in keys:
        fresh, runs = (written or {}).get(key, (None, set()))
        if fresh is not None and all(r[4] in runs for r in state.runs if r[:3] == key):
            own[key] = fresh
    columns: dict[tuple[str, str, str], CellColumns] = (
        {key: CellColumns.from_pairs(fresh) for key, fresh in own.items()}
        if sum(map(len, own.values())) <= WRITTEN_ROWS_MAX else {})
    rest = [k for k in keys if k not in columns]
    if rest:
        def pairs(key: tuple[str, str, str]) -> Callable[[], list]:
            if key in own:  # the rows just written, in the store's order: what `_rebuild` would read
                return lambda: list(own[key])
            return lambda: _rebuild(con, model_id, TASKS[key[0]], *key[1:])

        columns |= stored_columns(con, model_id, rest, lambda task: TASKS[task].metrics, pairs, state.runs)
    drills = {key: columns_drilldown(columns[key]) for key in keys}
    if all(key in own for key in keys):  # aggregated beside the drill-down's writes (`AGGREGATOR`)
        aggregating = AGGREGATOR.submit(_aggregates, keys, columns)
        try:
            save_drilldowns(con, model_id, drills, state=state)
        except BaseException:
            concurrent.futures.wait([aggregating])
            raise
        computed = aggregating.result()
    else:  # a metric without a columnar form reads a stored cell's rows back, on this connection: here
        computed = _aggregates(keys, columns)
        save_drilldowns(con, model_id, drills, state=state)
    out = []
    for task_name, lang, prompt_lang in keys:
        cols, scores = columns[(task_name, lang, prompt_lang)], computed[(task_name, lang, prompt_lang)]
        head = next((c for c in scores if c.is_headline), scores[0] if scores else None)
        if head is not None:
            out.append(CellSummary(task_name, lang, prompt_lang, head.metric, head.value, head.ci_low, head.ci_high,
                                   head.n, head.normalized, head.parse_fail_rate, head.status, head.note))
        else:
            out.append(CellSummary(task_name, lang, prompt_lang, "-", None, None, None, cols.n_rows, None, None,
                                   "not_scored", "no automatic metric (human-rated)"))
    merged = None
    if ahead is not None and ahead.model_id == model_id and ahead.cells == tuple(keys):
        merged = refresh_inputs.merge(ahead, computed, drills, run_count_rows(drills, state.runs))
    refresh_pair_tests(con, model_id, keys,  # Compare's paired tests on these cells' item outcomes (V13)
                       merged.pairs if merged is not None else None)
    refresh_leakage(con, model_id, keys, lambda key: columns[key].pairs())  # output leakage signals (V20)
    writer.save_aggregates_batch(con, model_id, computed, stored="aggregates" in state.stored)
    refresh_rollups(con, [model_id], keys, state.levels, merged)
    return out


AGGREGATOR = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tanaw-aggregate")
"""The thread a refresh computes its cells' aggregates on (`evaluator.aggregate.aggregate_cell`: bootstraps, mostly
Python and small numpy products) while its own thread writes the cells' drill-downs, statements during which DuckDB
releases the interpreter, so that on two cores the two overlap. Only for cells whose rows are all in memory (the
pairs an ingest or a live run just wrote): a stored cell's rows may be read back lazily, on the refresh's connection.
One thread for the process, started at the first refresh: refreshes running at once take turns on it."""


def _aggregates(keys: Sequence[tuple[str, str, str]], columns: Mapping[tuple[str, str, str], CellColumns]
                ) -> dict[tuple[str, str, str], list]:
    """`aggregate_cell` of each cell from its columns."""
    from evaluator.aggregate import aggregate_cell

    return {key: aggregate_cell(TASKS[key[0]], key[1], columns=columns[key]) for key in keys}


def ingest_predictions(con: duckdb.DuckDBPyConnection, preds: Iterable[Prediction], *, model: Mapping[str, Any],
                       source: Mapping[str, Any], data_dir=None, unmatched: str = "error",
                       progress: Callable[[int, int], None] | None = None,
                       items: ItemIndex | None = None) -> IngestSummary:
    """Score predictions against our gold and write everything in one transaction (a no-op for a known file).

    `model`: {"model_id", and optional metadata}; `source`: {"file", "hash", "format", "harness", "kind",
    "actor", "settings"}; `items`: the item index the upload was mapped with (`evaluator.formats.mapping`), so
    items are loaded once per upload (default: a fresh one over `data_dir`). Raises IngestError (nothing written) when any prediction cannot be matched or scored.
    """
    preds = list(preds)
    file, model_id = source.get("file", "<predictions>"), model["model_id"]
    if source.get("hash") and writer.already_ingested(con, source["hash"], model_id):
        return IngestSummary(file=file, model_id=model_id, n_predictions=len(preds), noop=True)
    items = items if items is not None else ItemIndex(data_dir)
    pairs, errors, warnings = score_all(preds, items, file, unmatched=unmatched, progress=progress)
    if errors:
        raise IngestError(errors)
    if not pairs:
        raise IngestError([FormatError(file, None, None, "no prediction matched an item; nothing to ingest")])
    fresh = _in_memory(pairs)  # one row per key, the last one winning
    kind = source.get("kind", "upload")
    run_source = source.get("hash") or kind
    summary = IngestSummary(file=file, model_id=model_id, n_predictions=len(pairs), warnings=warnings)
    by_run: dict[tuple, list[ItemResult]] = defaultdict(list)
    for (task, lang, prompt_lang), cell_pairs in fresh.items():
        for _, res in cell_pairs:
            by_run[(task, lang, prompt_lang, res.prediction.run)].append(res)
    run_ids = {key: run_id(model_id, *key, run_source) for key in sorted(by_run)}
    with transaction(con):
        writer.upsert_model(con, {"origin": "uploaded", **model})
        sync_registry(con)
        writer.upsert_items(con, [it for task, lang in sorted({k[:2] for k in fresh})
                                  for it in items.cell(task, lang).items.values()], content_hash)
        replace = writer.runs_stored(con, list(run_ids.values()))  # else their rows are appended, unchecked
        writer.upsert_runs(con, [{"run_id": rid, "model_id": model_id, "task": task, "lang": lang,
                                  "prompt_lang": prompt_lang, "run_no": run_no, "settings": source.get("settings"),
                                  "source": kind, "harness": source.get("harness", source.get("format")),
                                  "source_file": file, "source_hash": source.get("hash")}
                                 for (task, lang, prompt_lang, run_no), rid in run_ids.items()])
        writer.save_results_batch(con, [(rid, by_run[key]) for key, rid in run_ids.items()], replace=replace)
        summary.run_ids.extend(run_ids.values())
        written = {cell: (cell_pairs, {rid for (t, lg, pl, rn), rid in run_ids.items() if (t, lg, pl) == cell})
                   for cell, cell_pairs in fresh.items()}
        summary.cells = refresh_aggregates(con, model_id, list(fresh), written=written)
        if source.get("hash"):
            writer.record_ingest(con, source["hash"], file, source.get("format", "native"), model_id, len(pairs),
                                 source.get("actor"))
    return summary
