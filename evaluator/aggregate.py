"""Cell scores from item results: value on 0-100, confidence interval, n, runs, parse failures, chance.

A cell is one (model, task, lang, prompt_lang); `aggregate_cell` gets its (Item, ItemResult) pairs, possibly
from several runs (SEA-HELM runs every model 8 times) and, for binary choices, both option orders. Item metrics
follow SEA-HELM's multi-run rule: each question's mean over the runs, then the mean over questions
(`cell_columns.item_value`; with complete runs that is the mean of the runs' scores). Corpus metrics (macro-F1,
balanced accuracy, order consistency, ...) are computed per run from all its rows and averaged over runs, as
SEA-HELM scores each run's file and averages the runs (`docs/score_calculations.md`, "Task Level", at 6844e6c).

Intervals are 95%: the reference library's own bootstrap where a metric has one (ROUGE-L's seeded
BootstrapAggregator, whose mid is the score; sacrebleu's for chrF++); otherwise a percentile bootstrap over items
(all rows of a drawn item come along, so runs and orders stay clustered), seeded. A cell of one run keeps Wilson
for 0/1 item scores (never degenerate at 0% or 100%). A cell of several runs is bootstrapped for every metric, and
for a classification or multiple-choice task the draws are stratified by gold class (`stats.stratified_draws`:
each resample keeps every class's item count). Beside the interval a cell of several runs notes its run-to-run
spread (`stats.run_sd`: the sample SD of the per-run scores, `CellScore.run_sd`), and a classification or
multiple-choice cell whose rarest gold class has fewer than `LOW_CLASS_SUPPORT` items is flagged in its note.
SEA-HELM's own aggregation (`helpers/results_aggregation.ipynb` at 6844e6c) estimates the same per-question mean
by drawing one run per question 30 times (seed 94370244) and reports the standard error of those draws; it has no
question bootstrap, so the interval here is Tanaw's: over questions, which is what varies between benchmarks'
samples, and stratified so that every resample keeps the class balance that balanced accuracy depends on.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from evaluator import cell_columns as columns
from evaluator import cell_counts
from evaluator.cell_columns import CellColumns, Layout
from evaluator.chance import metric_chance, normalized_score
from evaluator.metrics import METRICS
from evaluator.metrics.base import MetricSpec, item_score
from evaluator.scoring import gold_for
from evaluator.spec import Item, ItemResult, TaskSpec
from evaluator.stats import bootstrap_draws, percentile_interval, run_sd, stratified_draws, wilson

BOOTSTRAP_SEED = 4156
"""Seed for every bootstrap (the value the BHASA paper uses for ROUGE), so intervals are reproducible."""
N_BOOTSTRAP = 1000
LOW_CLASS_SUPPORT = 10
"""A classification or multiple-choice cell whose rarest gold class has fewer items than this is flagged: its
per-class recall (balanced accuracy, macro-F1) rests on too few items."""
LOW_SUPPORT_NOTE = "low class support"
"""How the flag reads in a cell's note."""


@dataclass(frozen=True)
class CellScore:
    """One metric of one cell, ready for the store and the leaderboard."""

    metric: str
    """Metric key in `METRICS`."""
    value: float | None
    """Score on 0-100 (mean over runs); None when not computed."""
    ci_low: float | None
    """Lower end of the 95% interval (0-100)."""
    ci_high: float | None
    """Upper end of the 95% interval (0-100)."""
    n: int
    """Distinct items scored."""
    n_runs: int
    """Distinct runs among the predictions."""
    parse_fail_rate: float
    """Share of predictions whose answer could not be parsed (0-1)."""
    chance: float | None
    """Chance level on 0-100, or None when not meaningful for this metric."""
    normalized: float | None
    """(value − chance)/(100 − chance)·100, not clipped: negative means below chance."""
    is_headline: bool
    """This metric is the task's headline for the language."""
    status: str
    """"ok", "not_scored" (not implemented or not computable from these rows) or "unavailable" (missing package
    or checkpoint)."""
    note: str = ""
    """Why a value is missing, how the interval was made, runs and below-chance remarks."""
    run_sd: float | None = None
    """Run-to-run spread on 0-100: the sample SD of the per-run scores; None for one run."""
    min_class_n: int | None = None
    """Items in the rarest gold class (classification and multiple choice); None for other tasks."""


@dataclass(frozen=True)
class _Row:
    item: Item
    result: ItemResult
    gold: Any
    extras: dict
    task: TaskSpec


def _rows(task: TaskSpec, pairs: Sequence[tuple[Item, ItemResult]]) -> list[_Row]:
    out = []
    for item, res in pairs:
        p = res.prediction
        extras = {**res.extras, "item_id": item.item_id, "task": task.name, "lang": item.lang, "order": p.order,
                  "run": p.run, "prompt_lang": p.prompt_lang, "metadata": item.metadata, "inputs": item.inputs,
                  "scores": res.scores}
        out.append(_Row(item, res, gold_for(task, item, p), extras, task))
    return out


def _item_score(spec: MetricSpec, r: _Row) -> float:
    """The stored item score, or computed now when the row was scored before the metric existed."""
    if spec.name in r.result.scores:
        return float(r.result.scores[spec.name])
    answer = r.result.answer if r.result.parsed else None
    if spec.item is None:
        return 0.0
    return item_score(spec, answer, r.gold, task=r.task, item=r.item, output=r.result.prediction.output,
                      extras=r.result.extras)


def _triples(rows: Sequence[_Row]) -> list[tuple]:
    return [(r.result.answer if r.result.parsed else None, r.gold, r.extras) for r in rows]


def _by_run(rows: Sequence[_Row]) -> list[list[_Row]]:
    by_run: dict[int, list[_Row]] = defaultdict(list)
    for r in rows:
        by_run[r.result.prediction.run].append(r)
    return list(by_run.values())


def _run_values(spec: MetricSpec, rows: Sequence[_Row]) -> list[float]:
    """A corpus metric on 0-1 for each run of the rows (runs without a value left out)."""
    return [v for v in (spec.corpus(_triples(run_rows)) for run_rows in _by_run(rows)) if not math.isnan(v)]


def _run_mean(values: Sequence[float]) -> float:
    """The mean over runs of per-run values (NaN for none)."""
    return float(np.mean(values)) if len(values) else float("nan")


def _value(spec: MetricSpec, rows: Sequence[_Row]) -> float:
    """A corpus metric on 0-1 for rows of possibly several runs: per run, then the mean over runs."""
    return _run_mean(_run_values(spec, rows))


def _bootstrap(spec: MetricSpec, rows: Sequence[_Row], draws: np.ndarray) -> np.ndarray:
    """Bootstrap statistics (0-1) of a corpus metric without a label-count form, from resampling items with all
    their rows (`draws`: indices into the sorted item ids): the metric's own vectorised resampling where it has
    one, else the metric on each resample."""
    by_item: dict[str, list[_Row]] = defaultdict(list)
    for r in rows:
        by_item[r.item.item_id].append(r)
    ids = sorted(by_item)  # the interval is a function of the items, not of the order rows arrive in
    if spec.resample is not None:
        # Run by run over the same draws, then the mean over runs (a run with no rows in a resample is left out of
        # that resample's mean).
        by_run_item: dict[tuple[int, str], list[_Row]] = defaultdict(list)
        for r in rows:
            by_run_item[(r.result.prediction.run, r.item.item_id)].append(r)
        per_run = [np.asarray(spec.resample([_triples(by_run_item.get((run, i), [])) for i in ids], draws),
                              dtype=float)
                   for run in sorted({r.result.prediction.run for r in rows})]
        stacked = np.vstack(per_run)
        counted = (~np.isnan(stacked)).sum(axis=0)
        stats = np.where(counted > 0, np.nansum(stacked, axis=0) / np.maximum(counted, 1), np.nan)
        return stats[~np.isnan(stats)]
    triples = {i: [(r.result.prediction.run, t) for r, t in zip(by_item[i], _triples(by_item[i]))] for i in ids}
    stats = []
    for draw in draws:
        runs: dict[int, list[tuple]] = defaultdict(list)
        for j in draw:
            for run, t in triples[ids[j]]:
                runs[run].append(t)
        vals = [v for v in (spec.corpus(ts) for ts in runs.values()) if not math.isnan(v)]
        stats.append(float(np.mean(vals)) if vals else float("nan"))
    return np.array([s for s in stats if not math.isnan(s)])


def _empty(metric: str, task: TaskSpec, lang: str, n: int, n_runs: int, fail: float, status: str,
           note: str) -> CellScore:
    return CellScore(metric, None, None, None, n, n_runs, fail, None, None,
                     metric == task.headline_metric(lang), status, note)


class _Cell:
    """One cell's rows as columns (`evaluator.cell_columns`), and as row objects only when a metric needs them."""

    def __init__(self, task: TaskSpec, cols: CellColumns):
        self.task, self.cols, self.lay = task, cols, Layout.of(cols)
        self._rows: tuple | None = None

    def rows(self) -> tuple[list[_Row], Layout]:
        """The rows (pairs order) and their layout."""
        if self._rows is None:
            pairs = self.cols.pairs()
            self._rows = (_rows(self.task, pairs), Layout.of(CellColumns.from_pairs(pairs)))
        return self._rows

    def item_values(self, spec: MetricSpec) -> tuple[np.ndarray, Layout]:
        """Every row's item score of `spec` and the rows' layout: the stored scores, or (some row scored before
        the metric existed) each row's score taken or computed now, in pairs order."""
        values = columns.item_scores(spec, self.cols)
        if values is not None:
            return values, self.lay
        rows, lay = self.rows()
        return np.array([_item_score(spec, r) for r in rows], dtype=float), lay


def aggregate_cell(task: TaskSpec, lang: str, pairs: Sequence[tuple[Item, ItemResult]] | None = None, *,
                   n_boot: int = N_BOOTSTRAP, seed: int = BOOTSTRAP_SEED,
                   columns: CellColumns | None = None) -> list[CellScore]:
    """One CellScore per metric of the task, from the (item, result) pairs of one cell (or the same rows as
    `columns`, in store order: run, item id, order)."""
    cell = _Cell(task, columns if columns is not None else CellColumns.from_pairs(list(pairs or ())))
    cols, lay = cell.cols, cell.lay
    items = [cols.items[i] for i in lay.first]
    n, n_runs = len(items), len(lay.runs)
    fail = float(np.mean(~cols.parsed)) if cols.n_rows else 0.0
    out = []
    for name in task.metrics:
        spec = METRICS.get(name)
        if spec is not None and spec.langs and lang not in spec.langs:
            continue  # e.g. Thai-only newmm variants: no cell for other languages
        if spec is None:
            out.append(_empty(name, task, lang, n, n_runs, fail, "not_scored", "metric not implemented yet"))
            continue
        reason = spec.unavailable() if spec.unavailable is not None else None
        if reason:
            out.append(_empty(name, task, lang, n, n_runs, fail, "unavailable", f"{spec.display} unavailable: {reason}"))
            continue
        if not cols.n_rows:
            out.append(_empty(name, task, lang, 0, 0, 0.0, "not_scored", "no predictions"))
            continue
        out.append(_score(spec, task, lang, cell, items, fail, n_boot, seed))
    return out


def _gold_class(task: TaskSpec, lang: str, item: Item) -> str | None:
    """An item's gold class: its label (closed label set), its option letter (binary choices, letter golds), or the
    letter of the option its gold text is (multiple choice: the answer's position, as SEA-HELM's MCQ labels
    are letters); None otherwise."""
    gold = item.gold
    if not isinstance(gold, str) or not gold:
        return None
    if gold in task.labels.get(lang, ()):
        return gold
    if len(gold) == 1 and gold.isascii() and gold.isupper() and (task.option_fields or item.options):
        return gold
    if item.options and gold in item.options:
        return chr(ord("A") + item.options.index(gold))
    return None


def gold_classes(task: TaskSpec, lang: str, items: Sequence[Item]) -> list[str] | None:
    """Each item's gold class when the cell is classification or multiple choice (every item has one, and some
    class is shared by several items: SEA-HELM's test for multi-choice labels, `helpers/results_aggregation.ipynb`
    at 6844e6c); else None."""
    classes = [_gold_class(task, lang, i) for i in items]
    if not classes or any(c is None for c in classes):
        return None
    return classes if len(set(classes)) < len(classes) else None


def _strata(task: TaskSpec, lang: str, cell: _Cell) -> tuple[int, ...] | None:
    """Each item's gold-class code in bootstrap order (sorted ids), or None when the cell has no gold classes."""
    if "strata" not in cell.lay.cache:
        classes = gold_classes(task, lang, [cell.cols.items[i] for i in cell.lay.ids])
        codes = None
        if classes is not None:
            pos = {c: k for k, c in enumerate(sorted(set(classes)))}
            codes = tuple(pos[c] for c in classes)
        cell.lay.cache["strata"] = codes
    return cell.lay.cache["strata"]


def _draws(task: TaskSpec, lang: str, cell: _Cell, n_boot: int, seed: int) -> tuple[np.ndarray, bool]:
    """The cell's bootstrap draws and whether they are stratified: by gold class for a classification or
    multiple-choice cell of several runs, plain for any other cell (so one-run intervals are as before)."""
    strata = _strata(task, lang, cell) if len(cell.lay.runs) > 1 else None
    if strata is not None:
        return stratified_draws(seed, n_boot, strata), True
    return bootstrap_draws(seed, n_boot, len(cell.lay.ids)), False


def _score(spec: MetricSpec, task: TaskSpec, lang: str, cell: _Cell, items: list[Item], fail: float, n_boot: int,
           seed: int) -> CellScore:
    """One metric of the cell: its value, its 95% interval and the notes saying how they were made."""
    n, n_runs = len(items), len(cell.lay.runs)
    se = stats = None
    if spec.interval is not None:
        per_run = np.array([spec.interval(_triples(run_rows)) for run_rows in _by_run(cell.rows()[0])], dtype=float)
        value, lo, hi = (float(x) for x in per_run.mean(axis=0))
        notes = [f"95% CI: {spec.display}'s reference bootstrap" + (" (mean of per-run intervals)"
                                                                   if len(per_run) > 1 else "")]
        if n_runs > 1 and spec.corpus is None:
            se = columns.clustered_se(*cell.item_values(spec))
        return _close(spec, task, lang, cell, items, fail, value, lo, hi, notes, se, per_run[:, 0])
    draws, stratified = _draws(task, lang, cell, n_boot, seed)
    if spec.corpus is None:  # an item metric: the mean of item scores
        values, lay = cell.item_values(spec)
        value = columns.item_value(values, lay)
        per_run = columns.run_means(values, lay)
        if not spec.binary or n_runs > 1:
            stats = columns.item_bootstrap(values, lay, draws)
        se = columns.clustered_se(values, lay) if n_runs > 1 else None
    elif spec.counted:
        value, per_run, stats = cell_counts.counted_runs(spec, task, lang, cell.cols, cell.lay, draws)
    else:
        rows = cell.rows()[0]
        per_run = _run_values(spec, rows)  # each run's value once; the cell's is their mean, as `_value`
        value, stats = _run_mean(per_run), _bootstrap(spec, rows, draws)
    if math.isnan(value):
        return _empty(spec.name, task, lang, n, n_runs, fail, "not_scored", spec.empty_reason)
    if stats is None:
        lo, hi = wilson(value, n)
        notes = [f"95% CI: Wilson over {n} items"]
    else:
        lo, hi = percentile_interval(stats)
        notes = [f"95% CI: bootstrap over items{' stratified by gold class' if stratified else ''} "
                 f"(B={n_boot}, seed {seed})"]
        if lo == hi and value in (0.0, 1.0):
            lo, hi = wilson(value, n)
            notes.append("degenerate at the boundary: Wilson used")
    return _close(spec, task, lang, cell, items, fail, value, lo, hi, notes, se, per_run)


def _close(spec: MetricSpec, task: TaskSpec, lang: str, cell: _Cell, items: list[Item], fail: float, value: float,
           lo: float, hi: float, notes: list[str], se: float | None, per_run: np.ndarray) -> CellScore:
    """The CellScore with its notes (breakdown, runs, spread, clustered SE, class support), chance and normalised
    value."""
    n_runs = len(cell.lay.runs)
    if spec.detail is not None:
        detail = spec.detail(_triples(_by_run(cell.rows()[0])[0]))
        if detail:
            notes.append(detail + (" (run 1)" if n_runs > 1 else ""))
    sd = run_sd(100 * np.asarray(per_run, dtype=float))
    if n_runs > 1:
        notes.append(f"mean of {n_runs} runs" + (f"; run-to-run SD {sd:.2f} (sample SD of the per-run scores)"
                                                 if sd is not None else "")
                     + (f"; clustered SE by item {100 * se:.2f}" if se is not None else ""))
    strata = _strata(task, lang, cell)
    min_class = int(np.bincount(strata).min()) if strata is not None else None
    if min_class is not None and min_class < LOW_CLASS_SUPPORT:
        notes.append(f"{LOW_SUPPORT_NOTE}: the rarest gold class has {min_class} items (fewer than "
                     f"{LOW_CLASS_SUPPORT})")
    chance = metric_chance(spec, task, lang, items)
    normalized = normalized_score(100 * value, chance)
    if normalized is not None and normalized < 0:
        notes.append("below chance")
    return CellScore(spec.name, 100 * value, 100 * lo, 100 * hi, len(items), n_runs, fail, chance, normalized,
                     spec.name == task.headline_metric(lang), "ok", "; ".join(notes), sd, min_class)
