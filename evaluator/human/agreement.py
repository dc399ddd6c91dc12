"""Agreement and correlation for human judgements, computed by the field's libraries.

Inter-annotator agreement is Krippendorff's alpha from the `krippendorff` package; agreement of an automatic
metric with the human scores is Kendall's tau from `scipy.stats.kendalltau`, at item level (one pair per rated
candidate) and at system level (one pair per system: the means), with percentile bootstrap intervals that resample
items with a recorded seed. Means come with 95% intervals: Wilson for 0/1 criteria ("correct out of N"), Student t
otherwise. SciPy's statistics are imported when first used (over a second of a process's start on the 2-core machine,
`benchmarks/bench_startup.py`, which the pages and commands that only read stored results would pay).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Mapping, Sequence

import krippendorff
import numpy as np

from evaluator.stats import percentile_interval, wilson


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% interval and the number of observations behind it."""

    value: float
    low: float
    high: float
    n: int


def alpha(judgements: Mapping[str, Mapping[str, float]], level: str = "nominal") -> float:
    """Krippendorff's alpha; `judgements` maps unit (item/candidate) -> annotator -> value. NaN when undefined."""
    units = sorted(judgements)
    annotators = sorted({a for u in units for a in judgements[u]})
    data = np.full((len(annotators), len(units)), np.nan)
    for j, u in enumerate(units):
        for a, v in judgements[u].items():
            data[annotators.index(a), j] = v
    paired = (~np.isnan(data)).sum(axis=0) >= 2
    values = data[:, paired]
    if values.size == 0 or len(np.unique(values[~np.isnan(values)])) < 2:
        return float("nan")  # no pairable unit, or a single value everywhere: alpha is undefined
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def mean_interval(values: Sequence[float], binary: bool = False) -> Estimate:
    """Mean with a 95% interval: Wilson for 0/1 values, Student t otherwise (NaN interval for n < 2)."""
    n = len(values)
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    from scipy import stats

    mean = float(np.mean(values))
    if binary:
        low, high = wilson(mean, n)
        return Estimate(mean, low, high, n)
    if n < 2:
        return Estimate(mean, float("nan"), float("nan"), n)
    sem = stats.sem(values)
    if sem == 0:
        return Estimate(mean, mean, mean, n)
    low, high = stats.t.interval(0.95, n - 1, loc=mean, scale=sem)
    return Estimate(mean, float(low), float(high), n)


def _tau(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) < 2:
        return float("nan")
    from scipy import stats

    return float(stats.kendalltau(x, y).statistic)


def _bootstrap(items: list[str], statistic, seed: int, n_boot: int) -> tuple[float, float]:
    """Percentile 95% interval over `n_boot` resamples of the items; NaN for n_boot = 0 (point estimate only)."""
    if n_boot <= 0:
        return float("nan"), float("nan")
    rng = random.Random(seed)
    draws = [statistic([rng.choice(items) for _ in items]) for _ in range(n_boot)]
    draws = [d for d in draws if not math.isnan(d)]
    if len(draws) < n_boot // 2:
        return float("nan"), float("nan")
    return percentile_interval(draws)


def item_tau(pairs: Mapping[tuple[str, str], tuple[float, float]], seed: int = 0, n_boot: int = 1000) -> Estimate:
    """Item-level Kendall tau between human and metric scores; `pairs` maps (item, system) -> (human, metric)."""
    items = sorted({i for i, _ in pairs})
    by_item: dict[str, list[tuple[float, float]]] = {}
    for (i, _), hm in sorted(pairs.items()):
        by_item.setdefault(i, []).append(hm)

    def tau_of(chosen: list[str]) -> float:
        flat = [hm for i in chosen for hm in by_item[i]]
        return _tau([h for h, _ in flat], [m for _, m in flat])

    low, high = _bootstrap(items, tau_of, seed, n_boot)
    return Estimate(tau_of(items), low, high, len(pairs))


def system_tau(pairs: Mapping[tuple[str, str], tuple[float, float]], seed: int = 0, n_boot: int = 1000) -> Estimate:
    """System-level Kendall tau: per-system means of human and metric scores over the items (bootstrapped)."""
    items = sorted({i for i, _ in pairs})
    systems = sorted({s for _, s in pairs})

    def tau_of(chosen: list[str]) -> float:
        hs, ms = [], []
        for s in systems:
            got = [pairs[(i, s)] for i in chosen if (i, s) in pairs]
            if not got:
                return float("nan")
            hs.append(float(np.mean([h for h, _ in got])))
            ms.append(float(np.mean([m for _, m in got])))
        return _tau(hs, ms)

    low, high = _bootstrap(items, tau_of, seed, n_boot)
    return Estimate(tau_of(items), low, high, len(systems))
