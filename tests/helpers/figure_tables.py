"""Every stored figure the pages read, as one fingerprint per table or view (row count and a hash of its rows), so
a store built by the code before a change and one built after can be compared without keeping their data.

`tests/data/figures_golden.json` holds the fingerprints of the demo store and of the store built from the public
samples (`tests.helpers.aggregate_golden.build`), written by `python -m tests.helpers.figure_tables` (hashes only:
no sentence of the samples)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "figures_golden.json"
FIGURES = ("aggregates", "rollups", "drill_cells", "drill_nodes", "item_outcomes", "run_counts", "failed_flags",
           "model_usage", "drill_levels", "pair_tests", "cell_field", "parse_failures", "control_ceilings",
           "run_self_reported", "reported_normalized", "campaign_results", "campaign_provisional",
           "campaign_quality", "language_alphas")
"""The tables (or views) of figures the pages read."""


def fingerprints(con) -> dict[str, list]:
    """{table: [rows, sha256 of the rows sorted]}, without times nor the store's cell numbering."""
    out = {}
    for table in FIGURES:
        cols = [c for c, t in con.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? "
            "ORDER BY ordinal_position", [table]).fetchall()
            if "TIMESTAMP" not in t and c not in ("cell_no", "cell_a", "cell_b")]
        rows = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL").fetchall()
        out[table] = [len(rows), hashlib.sha256(repr(rows).encode()).hexdigest()]
    return out


def demo_fingerprints(db: Path) -> dict[str, list]:
    """The fingerprints of a demo store built at `db` as a first start builds it."""
    from services.demo import ensure_default_db
    from store.db import connect

    con = connect(db)
    try:
        assert ensure_default_db(con)
        return fingerprints(con)
    finally:
        con.close()


def samples_fingerprints(data_dir: Path, db: Path) -> dict[str, list]:
    """The fingerprints of the store built from the public samples (`tests.helpers.aggregate_golden.build`)."""
    import duckdb

    from tests.helpers.aggregate_golden import build

    build(data_dir, db)
    con = duckdb.connect(str(db), read_only=True)
    try:
        return fingerprints(con)
    finally:
        con.close()


if __name__ == "__main__":
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        golden = {"demo": demo_fingerprints(Path(tmp) / "demo.duckdb"),
                  "samples": samples_fingerprints(Path(os.environ["TANAW_SAMPLES_DIR"]), Path(tmp) / "s.duckdb")}
    GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(GOLDEN)
