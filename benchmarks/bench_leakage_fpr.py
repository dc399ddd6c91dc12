"""False-positive rates of the output leakage signals on models that cannot have seen the items.

    python benchmarks/bench_leakage_fpr.py [--write]

Builds the demo store (as a first start does) and counts, per signal, the items flagged among the items judged
over every demo-origin model's cells (the Gemma 3 270M demo run, the majority and random baselines, whose
translations copy the source): their answers as stored, the same answers moved to other items, and other items'
references given as answers (`services.leakage.false_positive_rates`). The demo items were written for Tanaw, so
every flag would be a false positive. `--write` stores the figures in data/leakage_false_positives.json, which the
Methodology page shows and tests/store/test_leakage_fpr.py checks against a fresh computation.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.leakage import FPR_FILE, false_positive_figures  # noqa: E402
from services.demo import ensure_default_db  # noqa: E402
from store.db import connect  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {FPR_FILE.name}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        con = connect(Path(tmp) / "demo.duckdb")
        ensure_default_db(con)
        figures = false_positive_figures(con)
        con.close()
    for r in figures:
        print(f"{r['signal']:22} {r['variant']:20} {r['flagged']:4} of {r['items']:4} items "
              f"(95% upper bound {100 * r['upper']:.2f}%)")
    if args.write:
        FPR_FILE.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {FPR_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
