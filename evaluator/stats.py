"""The interval and test statistics every figure is built with, one implementation each.

- `wilson`: the Wilson score interval of a proportion (closed form, so it also takes the fractional share of a
  mean over runs; equal to `scipy.stats.binomtest(k, n).proportion_ci(method="wilson")` to rounding for whole k,
  tests/unit/test_stats.py);
- `mcnemar_exact`: the two-sided exact McNemar p-value, `scipy.stats.binomtest` on the discordant pairs;
- `bootstrap_draws`, `draw_counts` and `percentile_interval`: the seeded item indices of a percentile bootstrap,
  how often each resample draws each item, and the 95% interval, shared by the cell aggregates
  (`evaluator.aggregate`) and the paired tests (`evaluator.pair_tests`);
- `stratified_draws`: the seeded item indices of a bootstrap stratified by class (each resample keeps every
  class's item count), for cells of several runs of a classification or multiple-choice task;
- `run_sd`: the run-to-run spread of a cell, the sample standard deviation of its per-run scores.

Kendall's tau is `scipy.stats.kendalltau` itself (`evaluator.human.agreement`).
"""
from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np

Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile."""


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion p (0-1) over n trials; stays inside [0, 1] and non-degenerate."""
    if n <= 0:
        return (float("nan"), float("nan"))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: the binomial test of min(a_only, b_only) out of the discordant pairs at 1/2
    (`scipy.stats.binomtest`); 1 when there is no discordant pair."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(min(a_only, b_only), n, 0.5).pvalue)


@functools.lru_cache(maxsize=8)
def bootstrap_draws(seed: int, n_boot: int, n: int) -> np.ndarray:
    """The (n_boot × n) item indices of a seeded bootstrap (`numpy.random.default_rng(seed)`); one read-only array
    per size, shared by a cell's metrics and runs."""
    draws = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    draws.flags.writeable = False
    return draws


@functools.lru_cache(maxsize=8)
def stratified_draws(seed: int, n_boot: int, strata: tuple[int, ...]) -> np.ndarray:
    """The (n_boot × n) item indices of a seeded bootstrap stratified by `strata` (each item's class code): class
    by class in code order, every resample draws as many of that class's items as it has, with replacement, from
    one `numpy.random.default_rng(seed)` stream (columns: the classes' draws side by side). Read-only and shared,
    as `bootstrap_draws`."""
    codes = np.asarray(strata, dtype=np.int64)
    rng = np.random.default_rng(seed)
    parts = []
    for c in np.unique(codes).tolist():
        members = np.flatnonzero(codes == c)
        parts.append(members[rng.integers(0, len(members), size=(n_boot, len(members)))])
    draws = np.hstack(parts) if parts else np.empty((n_boot, 0), dtype=np.int64)
    draws.flags.writeable = False
    return draws


def run_sd(per_run: Sequence[float] | np.ndarray) -> float | None:
    """The run-to-run spread: the sample standard deviation (ddof=1) of the per-run scores, NaN runs left out;
    None with fewer than two runs."""
    values = np.asarray(per_run, dtype=float)
    values = values[~np.isnan(values)]
    return float(np.std(values, ddof=1)) if len(values) > 1 else None


def draw_counts(draws: np.ndarray) -> np.ndarray:
    """How often each item is drawn in each resample of `draws` (resamples × items indices): a (resamples × items)
    float64 matrix, so its product with 0/1 or count columns is exact."""
    rows, n = draws.shape
    counts = np.bincount((np.arange(rows)[:, None] * n + draws).ravel(), minlength=rows * n)
    return counts.reshape(rows, n).astype(np.float64)


def percentile_interval(stats: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval (2.5th and 97.5th percentiles, numpy's linear interpolation) of bootstrap
    statistics; NaN for none."""
    if len(stats) == 0:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return (float(lo), float(hi))
