"""What the Methodology page shows: the registry-generated facts of `evaluator.metrics.docs` and the roll-up rule,
plus the two sample-based figures, which are computed once per store and data folder (never at render time).

The page imports this module instead of the evaluator (pages import only the store's read API, services and the
registry). Attributes not defined here are `evaluator.metrics.docs`'s own.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from evaluator.metrics import docs as _docs
from evaluator.rollup import worked_example
from store import writer

FIGURES: dict[str, Callable[[str], Any]] = {
    "rouge_variants": _docs.rouge_variants,
    "pacute_differences": _docs.pacute_differences,
}
"""Sample-based figures: name → function of the data folder (slow: they score the shared samples)."""


def __getattr__(name: str) -> Any:
    return getattr(_docs, name)


def data_dir() -> str:
    """The data folder the figures are computed from (`TANAW_DATA_DIR` or ../shared/data), as a string key."""
    from evaluator.datasets import default_data_dir

    return str(default_data_dir())


def rollup_example() -> str:
    """The roll-up rule worked on a small example, computed by `evaluator.rollup`."""
    return worked_example()


def refresh_figures(con, data_dir: str | Path, *, only_missing: bool = True) -> list[str]:
    """Compute the sample figures for `data_dir` and store them (in the caller's transaction); returns the names
    computed. With `only_missing`, figures already stored for this folder are kept."""
    done = []
    for name, compute in FIGURES.items():
        if only_missing and writer.figure(con, name, str(data_dir)) is not None:
            continue
        writer.save_figure(con, name, str(data_dir), json.dumps(compute(str(data_dir)), default=str))
        done.append(name)
    return done
