"""The derived tables a refresh writes, read for comparison (a live run or an ingest against a recompute)."""
from __future__ import annotations

DERIVED = ("aggregates", "rollups", "drill_cells", "drill_nodes", "item_outcomes", "run_counts", "failed_flags",
           "model_usage", "drill_levels", "pair_tests")
"""The derived tables a refresh writes, compared with a recompute."""


def derived(con) -> dict[str, list[tuple]]:
    """Every derived table's rows, sorted, without the times nor the store's cell numbering."""
    out = {}
    for table in DERIVED:
        cols = [c for c, t in con.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?",
            [table]).fetchall() if "TIMESTAMP" not in t and c not in ("cell_no", "cell_a", "cell_b")]
        out[table] = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL").fetchall()
    return out
