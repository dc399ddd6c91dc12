"""Drill-down levels pooled from a cell group's node counts: what the LINDSEA tree and the PACUTE levels show.

`pooled_levels` takes node counts (items `n`, `correct` = sum of item scores 0-1, `chance` 0-100, and the node's
keys) and returns one row per key prefix, coarse to fine: depth 0 pools every node, depth d groups by the first d
keys. Each row has n, correct, value = 100 * correct / n (items pooled), its 95% Wilson interval
(`evaluator.stats.wilson`, 0-100; None when the scores are not 0-1), chance (the highest of its nodes'), `parts`
(groups one level down) and `macro` (the mean of their values; None at the deepest level).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from evaluator.stats import wilson


def _row(keys: tuple, n: int, correct: float, chance: float | None) -> dict[str, Any]:
    value = 100 * correct / n if n else None
    share = correct / n if n else None
    if share is None or not -1e-9 <= share <= 1 + 1e-9:  # no items, or scores off 0-1 (a proportion's interval only)
        return {"keys": keys, "n": n, "correct": correct, "value": value, "ci_low": None, "ci_high": None,
                "chance": chance}
    low, high = wilson(min(1.0, max(0.0, share)), n)
    return {"keys": keys, "n": n, "correct": correct, "value": value, "ci_low": 100 * low, "ci_high": 100 * high,
            "chance": chance}


def pooled_levels(nodes: Iterable[Mapping[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    """Rows {depth, keys (tuple of the first `depth` key values), n, correct, value, ci_low, ci_high, chance, parts,
    macro} for every depth 0..len(keys) and every key prefix present in `nodes`."""
    nodes = [nd for nd in nodes if int(nd["n"] or 0) > 0]
    rows: list[dict[str, Any]] = []
    by_depth: list[dict[tuple, dict]] = []
    for depth in range(len(keys) + 1):
        sums: dict[tuple, list] = defaultdict(lambda: [0, 0.0, None])
        for nd in nodes:
            acc = sums[tuple(nd[k] for k in keys[:depth])]
            acc[0] += int(nd["n"])
            acc[1] += float(nd["correct"])
            ch = nd.get("chance")
            acc[2] = ch if acc[2] is None else max(acc[2], ch) if ch is not None else acc[2]
        by_depth.append({k: {"depth": depth, **_row(k, *v)} for k, v in sums.items()})
    for depth, level in enumerate(by_depth):
        for key, row in level.items():
            children = ([c["value"] for k, c in by_depth[depth + 1].items() if k[:depth] == key]
                        if depth < len(keys) else [])
            rows.append({**row, "parts": len(children), "macro": sum(children) / len(children) if children else None})
    return rows
