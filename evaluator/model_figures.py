"""Figures of the Model page that compare a model with the field or sum its runs, computed once by the wiring
(services.page_figures) whenever a model's roll-ups are refreshed and stored (V12); the page only reads them.

- `cell_field`: on one headline cell, each visible model's rank range among the models' 95% intervals (the
  interval-overlap rule of `evaluator.ranking.rank_ranges`), the field's median value and the model's difference
  to it.
- `parse_failures`: a model's unparsed answers per language and prompt language over its current runs, open-ended
  tasks left out (their answers are never parsed).
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Iterable, Mapping

from evaluator.ranking import rank_ranges
from evaluator.registry import TASKS


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


def parse_failures(runs: Iterable[Mapping]) -> list[dict]:
    """Rows of a model's current runs (task, lang, prompt_lang, answers, unparsed) -> one row per (lang,
    prompt_lang) with answers, unparsed and fail_pct (100 * unparsed / answers), sorted; runs of open-ended tasks
    and runs without answers left out."""
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in runs:
        spec = TASKS.get(r["task"])
        if (spec is not None and spec.mode == "open") or not r["answers"]:
            continue
        acc = sums[(r["lang"], r["prompt_lang"])]
        acc[0] += int(r["answers"])
        acc[1] += int(r["unparsed"])
    return [{"lang": lang, "prompt_lang": pl, "answers": a, "unparsed": u, "fail_pct": 100.0 * u / a}
            for (lang, pl), (a, u) in sorted(sums.items())]
