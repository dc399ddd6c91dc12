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


def pacute_rule_counts(rows: Any) -> list[dict]:
    """Per imported pacute-bench model, task, metric and rule: how many items Tanaw scores differently from the
    tool's own flags (`evaluator.methodology.pacute_compat.rule_counts`), from the stored rows of
    `store.queries.pacute.pacute_rule_rows` (a DataFrame or a list of row mappings)."""
    from evaluator.methodology.pacute_compat import rule_counts

    records = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    return rule_counts(records)

