"""Compute the Methodology page's sample-based figures into data/methodology_figures.json.

Run: python scripts/build_methodology_figures.py [DATA_DIR] (default: ../shared/data). The page reads the JSON and
never re-scores; re-run this script when a metric, an extractor or the samples change (a test checks it is current).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.methodology.figures import FIGURES_JSON, compute  # noqa: E402


def main(data_dir: Path) -> int:
    if not data_dir.is_dir():
        print(f"{data_dir}: not a directory (the public samples, see ../shared/data/README.md)", file=sys.stderr)
        return 2
    figures = compute(data_dir)
    FIGURES_JSON.write_text(json.dumps(figures, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                            encoding="utf-8")
    print(f"wrote {FIGURES_JSON.relative_to(REPO)}: {', '.join(k for k, v in figures.items() if v)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "data"))
