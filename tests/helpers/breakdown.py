"""Per-level micro and macro means computed directly from (item, result) pairs: the reference the pages' pooled
level figures are checked against."""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

import numpy as np

from evaluator.spec import Item, ItemResult


def breakdown(pairs: Sequence[tuple[Item, ItemResult]], metric: str, keys: Sequence[str] = ("level",),
              macro_over: str = "subcategory") -> list[dict[str, Any]]:
    """Per group of `item.metadata[keys]`: n, micro mean (over items) and macro mean (over `macro_over` values),
    both 0-100. For PACUTE hierarchy levels: micro pools a level's items, macro weighs its subcategories equally.
    """
    groups: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for item, res in pairs:
        key = tuple(item.metadata.get(k) for k in keys)
        groups[key][str(item.metadata.get(macro_over))].append(res.scores.get(metric, 0.0))
    out = []
    for key in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
        subs = groups[key]
        flat = [v for vals in subs.values() for v in vals]
        out.append({**dict(zip(keys, key)), "n": len(flat), "n_" + macro_over: len(subs),
                    "micro": 100 * float(np.mean(flat)),
                    "macro": 100 * float(np.mean([np.mean(v) for v in subs.values()]))})
    return out
