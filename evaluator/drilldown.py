"""Drill-down pre-aggregates of one cell (model, task, lang, prompt language), computed when its aggregates are.

The explorer pages group a cell's items by the item's own node columns (LINDSEA phenomenon / category /
subcategory, PACUTE hierarchy level) and list items right or wrong; reading millions of per-item rows for that on
every view is what made them slow. `cell_drilldown` turns the cell's (Item, ItemResult) pairs, the same ones
`evaluator.aggregate.aggregate_cell` gets, into:

- item outcomes, one per (metric, item): its score (0-1, the mean over runs and option orders, as the pages have
  always pooled them), whether it was right in every answer of order "ab", of order "ba", of both, whether every
  answer parsed, and each answer's score;
- node counts, one per (metric, node): items n, `correct` (sum of item scores), `wrong` (items not right in every
  answer), so any grouping of nodes is exact (sums of sums);
- per run number: answers and unparsed answers; per cell: answers, unparsed, items scored;
- failed flags: (flag, item) for items carrying a data-quality flag that some answer got wrong on a 0/1 metric.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Sequence

from evaluator.metrics import METRICS
from evaluator.spec import Item, ItemResult

NODE_KEYS = ("phenomenon", "category", "subcategory", "level")
"""An item's node: its own grouping columns as the store keeps them (None when the item has none)."""


@dataclass
class CellDrilldown:
    """Everything the explorer pages read about one cell besides its aggregates."""

    items: list[dict[str, Any]] = field(default_factory=list)
    """Per (metric, item_id): value, right_ab, right_ba, right_all, parsed, answers [(run_no, ord, value)]."""
    nodes: list[dict[str, Any]] = field(default_factory=list)
    """Per (metric, phenomenon, category, subcategory, level): n, correct, wrong."""
    runs: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Run number -> (answers, unparsed answers)."""
    flags: list[tuple[str, str]] = field(default_factory=list)
    """(flag, item_id) of flagged items answered wrongly on a 0/1 metric, sorted."""
    answers: int = 0
    unparsed: int = 0
    n_items: int = 0
    """Distinct items with a per-item score."""


def node_of(item: Item) -> dict[str, Any]:
    """The item's node columns as the store writes them: text or None (empty is None), level an integer."""
    meta = item.metadata or {}
    out: dict[str, Any] = {k: (None if meta.get(k) in (None, "") else str(meta.get(k))) for k in NODE_KEYS[:3]}
    level = meta.get("level")
    out["level"] = None if level in (None, "") else int(level)
    return out


def _is_binary(metric: str) -> bool:
    spec = METRICS.get(metric)
    return bool(spec is not None and spec.binary)


def _outcome(metric: str, item_id: str, rows: list[tuple[int, str, float]], parsed: bool) -> dict[str, Any]:
    def all_right(order: str | None) -> bool | None:
        vals = [v for _, o, v in rows if order is None or o == order]
        return all(v >= 1 for v in vals) if vals else None

    return {"metric": metric, "item_id": item_id, "value": sum(v for _, _, v in rows) / len(rows),
            "right_ab": all_right("ab"), "right_ba": all_right("ba"), "right_all": all_right(None),
            "parsed": parsed, "answers": [{"run_no": r, "ord": o, "value": v} for r, o, v in rows]}


def cell_drilldown(pairs: Sequence[tuple[Item, ItemResult]]) -> CellDrilldown:
    """The drill-down pre-aggregates of one cell from its scored (Item, ItemResult) pairs (one per stored answer)."""
    out = CellDrilldown()
    items: dict[str, Item] = {}
    parsed: dict[str, bool] = {}
    scored: dict[tuple[str, str], list[tuple[int, str, float]]] = defaultdict(list)
    runs: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for item, res in pairs:
        p = res.prediction
        items[item.item_id] = item
        parsed[item.item_id] = parsed.get(item.item_id, True) and bool(res.parsed)
        runs[p.run][0] += 1
        runs[p.run][1] += not res.parsed
        for metric, value in (res.scores or {}).items():
            scored[(metric, item.item_id)].append((int(p.run), p.order, float(value)))
    out.runs = {run: (a, u) for run, (a, u) in sorted(runs.items())}
    out.answers = sum(a for a, _ in out.runs.values())
    out.unparsed = sum(u for _, u in out.runs.values())
    out.n_items = len({item_id for _, item_id in scored})
    nodes: dict[tuple, list[float]] = defaultdict(lambda: [0, 0.0, 0])
    flags: set[tuple[str, str]] = set()
    for (metric, item_id), rows in sorted(scored.items()):
        outcome = _outcome(metric, item_id, rows, parsed[item_id])
        out.items.append(outcome)
        node = node_of(items[item_id])
        acc = nodes[(metric, *(node[k] for k in NODE_KEYS))]
        acc[0] += 1
        acc[1] += outcome["value"]
        acc[2] += not outcome["right_all"]
        if _is_binary(metric) and not outcome["right_all"]:
            flags.update((flag, item_id) for flag in items[item_id].warnings)
    out.nodes = [{"metric": key[0], **dict(zip(NODE_KEYS, key[1:])), "n": n, "correct": correct, "wrong": wrong}
                 for key, (n, correct, wrong) in sorted(nodes.items(), key=lambda kv: tuple(map(str, kv[0])))]
    out.flags = sorted(flags)
    return out
