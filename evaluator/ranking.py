"""Honest ranks: a 95% interval for each model's overall score and rank ranges by the interval-overlap rule.

The overall is a fixed weighted mean of headline cells (`evaluator.rollup`), so its standard error follows from
the cells' own 95% intervals, treated as independent normal errors: se = sqrt(sum w_i^2 se_i^2), se_i = (high -
low) / (2 * 1.96). Ranks then follow the rule LMArena uses: a model's best rank is 1 + the number of models whose
interval lies wholly above its own, its worst rank the number of models whose interval reaches its own (itself
included). Models whose best rank is 1 are "tied with #1". Stated on the Methodology page.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from typing import Mapping

from evaluator.rollup import rollup

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""


def overall_interval(cells: Mapping[tuple[str, str], tuple[float, float, float]],
                     groups: Mapping[str, str]) -> tuple[float, float, float]:
    """(overall, low, high) of the roll-up of `cells` {(task, lang): (value, ci_low, ci_high)}: the weight of each
    cell in the overall is read off `rollup` itself (the overall is linear in the cells). A cell without an
    interval adds no uncertainty."""
    keys = list(cells)
    overall = rollup({k: cells[k][0] for k in keys}, groups)["overall"]
    weights = _weights(tuple(keys), tuple(groups[t] for t, _ in keys))
    var = 0.0
    for k, weight in zip(keys, weights):
        _, lo, hi = cells[k]
        if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
            continue
        var += (weight * (hi - lo) / (2 * Z95)) ** 2
    half = Z95 * math.sqrt(var)
    return overall, overall - half, overall + half


@functools.lru_cache(maxsize=512)
def _weights(keys: tuple[tuple[str, str], ...], groups: tuple[str, ...]) -> tuple[float, ...]:
    """Each cell's weight in the overall: `rollup` of its indicator over `keys` (in this order, each task in its
    group). A function of the cells present only, so each model's refresh reuses it instead of one roll-up per
    cell per call."""
    by_task = dict(zip((t for t, _ in keys), groups))
    return tuple(rollup({j: float(j == k) for j in keys}, by_task)["overall"] for k in keys)


def rank_ranges(intervals: Mapping[str, tuple[float, float]]) -> dict[str, tuple[int, int]]:
    """{model: (best rank, worst rank)} from {model: (low, high)} by the interval-overlap rule: best = 1 + the
    other models whose low is above this high, worst = the models (itself included) whose high reaches this low.
    Counted on sorted bounds (n log n: a cell's field is ranked at every refresh); a NaN bound counts nowhere."""
    models = list(intervals)
    lo = np.array([float(intervals[m][0]) for m in models])
    hi = np.array([float(intervals[m][1]) for m in models])
    lows, highs = np.sort(lo[~np.isnan(lo)]), np.sort(hi[~np.isnan(hi)])
    above = len(lows) - np.searchsorted(lows, hi, side="right") - (lo > hi)  # others' lows above this high
    reach = len(highs) - np.searchsorted(highs, lo, side="left")  # highs at or above this low
    return {m: (1 + int(a), int(r)) for m, a, r in zip(models, above, reach)}
