"""PACUTE's character-level ceiling per model: the mean of the control tasks' scores (LangGame, multi-digit
addition, CUTE; English prompt), per format and metric (PACUTE paper Section 5). Computed once by the wiring
(services.page_figures) when a model's roll-ups are refreshed, stored (V12) and only read by the PACUTE page."""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping

from evaluator.rollup import CONTROLS
from evaluator.tasks.pacute import PARTS


def control_ceilings(cells: Iterable[Mapping]) -> list[dict]:
    """A model's English-prompt cell scores (task, metric, value, n) -> one row per (fmt, metric) over its control
    tasks: ceiling (mean of their values), controls (their stems, in task order) and n (their items together)."""
    groups: dict[tuple[str, str], list[Mapping]] = defaultdict(list)
    for c in cells:
        value = c["value"]
        if c["task"] in CONTROLS and c["task"] in PARTS and value is not None and value == value:
            groups[(PARTS[c["task"]][1], c["metric"])].append(c)
    rows = []
    for (fmt, metric), part in sorted(groups.items()):
        part = sorted(part, key=lambda c: c["task"])
        rows.append({"fmt": fmt, "metric": metric, "ceiling": sum(c["value"] for c in part) / len(part),
                     "controls": ", ".join(PARTS[c["task"]][0] for c in part),
                     "n": sum(int(c["n"] or 0) for c in part)})
    return rows
