"""An uploaded file's own per-item scores, summarised per run and metric (their mean and how many items), computed
once at ingest (services.page_figures) and stored (V12); the Upload page lists them, never ranked."""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable


def run_means(rows: Iterable[tuple[str, str, float]]) -> list[dict]:
    """(run_id, metric, value) per item -> one row per (run_id, metric): value (mean over its items), items."""
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for run_id, metric, value in rows:
        acc[(run_id, metric)].append(float(value))
    return [{"run_id": r, "metric": m, "value": sum(v) / len(v), "items": len(v)} for (r, m), v in sorted(acc.items())]
