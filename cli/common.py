"""Small helpers shared by CLI commands: printing tables and JSON."""
from __future__ import annotations

import json
import sys
from typing import Any, Sequence


def print_json(obj: Any) -> None:
    """Pretty JSON on stdout (UTF-8, non-ASCII kept)."""
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def print_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> None:
    """A plain aligned text table."""
    cells = [[("" if v is None else str(v)) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("  ".join("-" * w for w in widths))
    for r in cells:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))


def fmt(v: float | None, digits: int = 1) -> str:
    """A score for a table: one decimal, '—' when missing."""
    return "—" if v is None or v != v else f"{v:.{digits}f}"
