"""Drill-down results for the explorer pages, with their 95% Wilson intervals computed by the evaluator.

The store's drill-down queries (PACUTE levels, LINDSEA nodes) return n and `correct`; `q` runs a query through the
app's cache (`store.cached.q`) and adds `ci_low`/`ci_high` (0-100) from `evaluator.aggregate.wilson`, the same
function the cell scores use, so an interval is computed one way everywhere.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from evaluator.aggregate import wilson
from store import cached


def with_intervals(df: Any, k: str = "correct", n: str = "n") -> Any:
    """`df` with 95% Wilson `ci_low`/`ci_high` (0-100) after `value`, for frames with `k` successes of `n` items."""
    if not isinstance(df, pd.DataFrame) or not {k, n} <= set(df.columns) or "ci_low" in df.columns:
        return df
    bounds = [wilson(float(c) / float(m), int(m)) if m else (float("nan"), float("nan"))
              for c, m in zip(df[k], df[n])]
    out = df.copy()
    at = list(out.columns).index("value") + 1 if "value" in out.columns else len(out.columns)
    out.insert(at, "ci_low", [100 * lo for lo, _ in bounds])
    out.insert(at + 1, "ci_high", [100 * hi for _, hi in bounds])
    return out


def q(name: str, **params) -> Any:
    """The registered store query `name` (cached), with Wilson intervals where it returns successes and n."""
    return with_intervals(cached.q(name, **params))
