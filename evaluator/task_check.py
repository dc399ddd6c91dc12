"""Every task's named parts exist: its loader, answer reader and metrics are registered (`evaluator.plugins`).

The registry reads task files without importing the code they name (that code imports the registry), so the names
are checked here, above both: by `python -m evaluator tasks` and before the store mirrors the registry
(`services.ingest.sync_registry`), so a task naming a missing part fails with its file and field, and writes
nothing.
"""
from __future__ import annotations

from typing import Iterable

from evaluator.datasets import LOADERS
from evaluator.extract import EXTRACTORS
from evaluator.metrics import METRICS
from evaluator.registry import TASKS
from evaluator.spec import TaskSpec
from evaluator.tasks import TaskError


def problems(tasks: Iterable[TaskSpec] | None = None) -> list[str]:
    """"file: field: unknown ..." for every loader, answer reader or metric a task names that nothing registered."""
    out = []
    for t in TASKS.values() if tasks is None else tasks:
        where = t.source or f"task {t.name!r}"
        if not t.data and t.loader not in LOADERS:
            out.append(f"{where}: loader: {LOADERS.hint(t.loader)}")
        if t.extractor not in EXTRACTORS:
            out.append(f"{where}: extractor: {EXTRACTORS.hint(t.extractor)}")
        out += [f"{where}: metrics: {METRICS.hint(m)}" for m in t.metrics if m not in METRICS]
    return out


def check() -> None:
    """TaskError listing every problem (`problems`) when there is one."""
    found = problems()
    if found:
        raise TaskError("; ".join(found))
