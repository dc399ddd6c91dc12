"""Tanaw against pacute-bench on the paper's per-item outputs: every model folder of `results-202605/`.

    python benchmarks/pacute_paper_fidelity.py RESULTS_DIR DATA_DIR [--model NAME ...]

RESULTS_DIR holds pacute-bench's model folders (`results-202605/<model>/` of raileymontalan/pacute-bench at
dcab16b, fetched by the caller); DATA_DIR is a data folder whose `pacute/benchmarks/` is the paper's suite (what
`tanaw data pull` writes). Per folder it prints whether the folder is accepted, the files of another suite version
(not imported, named in warnings), and per cell Tanaw's score beside pacute-bench's own summary with the
difference in points; cells more than a point apart are marked. The per-item differences and the rule behind each
are `evaluator.methodology.pacute_compat.rule_of` (counted on the Methodology page once the folders are ingested).
Nothing is timed.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.formats.mapping import ItemIndex  # noqa: E402
from evaluator.formats.read import read_upload  # noqa: E402
from evaluator.registry import get_task  # noqa: E402
from evaluator.scoring import score_prediction  # noqa: E402

SUMMARY_KEYS = {"mcq_acc": "accuracy", "exact_match": "exact_match", "contains_match": "contains_match"}


def folder_cells(folder: Path, index: ItemIndex) -> tuple[bool, list[str], list[tuple[str, str, float, float]]]:
    """(accepted, warnings naming another version, [(task, metric, ours 0-100, pacute-bench's 0-100)])."""
    up = read_upload(folder, index=index)
    versions = [f"{w.file}: {w.problem}" for w in up.warnings if "version" in w.problem]
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for pred in up.predictions:
        item = index.cell(pred.task, pred.lang).items[pred.item_id]
        for metric, value in score_prediction(get_task(pred.task), item, pred).scores.items():
            scores[(pred.task, metric)].append(value)
    cells = []
    for path in sorted(folder.glob("evaluation_results_*.json"))[-1:]:
        for bench, res in json.loads(path.read_text(encoding="utf-8")).get("benchmarks", {}).items():
            task = get_task(bench).name
            for metric, key in SUMMARY_KEYS.items():
                got = scores.get((task, metric))
                if got and isinstance(res.get(key), (int, float)):
                    cells.append((task, metric, 100 * sum(got) / len(got), 100 * res[key]))
    return up.ok, versions, cells


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("data", type=Path)
    ap.add_argument("--model", action="append", default=[])
    args = ap.parse_args()
    index = ItemIndex(args.data)
    folders = [args.results / m for m in args.model] or sorted(  # model folders (not `human_baseline/`)
        p for p in args.results.iterdir() if p.is_dir() and ((p / "inference").is_dir() or
                                                             any(p.glob("evaluation_results_*.json"))))
    refused = 0
    for folder in folders:
        ok, versions, cells = folder_cells(folder, index)
        refused += not ok
        print(f"\n{folder.name}: {'accepted' if ok else 'REFUSED'}")
        for v in versions:
            print(f"  other version: {v[:200]}")
        for task, metric, ours, theirs in cells:
            mark = "  > 1 point" if abs(ours - theirs) > 1 else ""
            print(f"  {task:40s} {metric:15s} Tanaw {ours:6.2f}  pacute-bench {theirs:6.2f}  "
                  f"{ours - theirs:+6.2f}{mark}")
    print(f"\n{len(folders) - refused} of {len(folders)} folders accepted")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
