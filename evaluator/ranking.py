"""Honest ranks: rank ranges by the interval-overlap rule, from each model's overall 95% interval
(`evaluator.rollup.overall_interval`).

Ranks follow the rule LMArena uses: a model's best rank is 1 + the number of models whose
interval lies wholly above its own, its worst rank the number of models whose interval reaches its own (itself
included). Models whose best rank is 1 are "tied with #1". Stated on the Methodology page.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np


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
