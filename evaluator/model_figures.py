"""Figures of the Model page that compare a model with the field or sum its runs, computed once by the wiring
(services.page_figures) whenever a model's roll-ups are refreshed and stored (V12); the page only reads them.

- `cell_field`: on one headline cell, each visible model's rank range among the models' 95% intervals (the
  interval-overlap rule of `evaluator.ranking.rank_ranges`), the field's median value and the model's difference
  to it.
"""
from __future__ import annotations

import statistics
from typing import Mapping

from evaluator.ranking import rank_ranges


def _known(x: float | None) -> bool:
    return x is not None and x == x  # not None, not NaN


def cell_field(cell: Mapping[str, tuple[float, float | None, float | None]]) -> dict[str, dict]:
    """{model: (value, ci_low, ci_high)} of one headline cell (scored values only) -> {model: {rank_best,
    rank_worst, n_models, field_median, delta}}. A model without an interval ranks by its point value."""
    if not cell:
        return {}
    ranges = rank_ranges({m: (lo if _known(lo) else v, hi if _known(hi) else v) for m, (v, lo, hi) in cell.items()})
    median = statistics.median(v for v, _, _ in cell.values())
    return {m: {"rank_best": ranges[m][0], "rank_worst": ranges[m][1], "n_models": len(cell),
                "field_median": median, "delta": v - median} for m, (v, _, _) in cell.items()}
