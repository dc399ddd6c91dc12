"""What the Methodology page shows: the registry-generated facts of `evaluator.methodology.docs` (sample figures read
from `data/methodology_figures.json`, never re-scored at render time) and the roll-up rule worked on an example.

The page imports this module instead of the evaluator (pages import only the store's read API, services and the
registry). Attributes not defined here are `evaluator.methodology.docs`'s own.
"""
from __future__ import annotations

from typing import Any

from evaluator.methodology import docs as _docs
from evaluator.rollup import worked_example


def __getattr__(name: str) -> Any:
    return getattr(_docs, name)


def rollup_example() -> str:
    """The roll-up rule worked on a small example, computed by `evaluator.rollup`."""
    return worked_example()
