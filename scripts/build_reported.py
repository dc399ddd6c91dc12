"""Build data/reported_results.csv from the papers' reported results (shared/reference), mapped onto Tanaw ids.

Run: python scripts/build_reported.py [REFERENCE_DIR]. The output is the project's own file: task and metric ids
are Tanaw's, each row carries a citation, and PACUTE benchmarks are mapped to task ids where one exists.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "data" / "reported_results.csv"
CITATIONS = {
    "BHASA paper": "Leong et al. (2023), BHASA: A Holistic Southeast Asian Linguistic and Cultural Evaluation "
                   "Suite for Large Language Models, arXiv:2309.06085",
    "PACUTE paper": "PACUTE: Filipino word-structure diagnostics for LLMs (paper in shared/spec/pacute_paper.txt)",
}
BHASA_METRICS = {"strict_f1": "ner_f1", "f1": "squad_f1", "f1_newmm": "squad_f1_newmm", "macro_f1": "macro_f1",
                 "accuracy": "accuracy", "chrf++": "chrf++", "comet22": "comet22", "rougeL": "rougeL"}
PACUTE_TASKS = {"mda": "pacute-mda", "langgame": "pacute-langgame", "manipulation": "pacute-manipulation",
                "syllabification": "pacute-syllabification", "hierarchical": "pacute-hierarchical",
                "morph_production": "pacute-affixation", "morph_extraction": "pacute-affixation"}
PACUTE_METRICS = {("mcq", "normalized_accuracy"): "mcq_norm_acc", ("mcq", "accuracy"): "mcq_acc",
                  ("mcq", "exact_match"): "mcq_acc", ("gen", "exact_match"): "exact_match",
                  ("gen", "contains_match"): "contains_match"}
DIFFERENT_GOLD = ("scored by a different gold: pacute-bench's hierarchical loader takes options[0] as the answer, "
                  "which differs from the file's `answer` (Tanaw's gold) in 464 of 600 items; not comparable with "
                  "Tanaw's cell")
"""Note on the paper's hierarchical MCQ rows (pacute-bench src/pacute_bench/loaders/hierarchical.py @ 89a610f)."""
FIELDS = ("benchmark", "task", "lang", "metric", "paper_metric", "system", "prompt_lang", "value", "note", "citation")


def bhasa_rows(path: Path):
    for r in csv.DictReader(path.open(encoding="utf-8")):
        yield {"benchmark": "BHASA", "task": r["task"], "lang": r["lang"],
               "metric": BHASA_METRICS.get(r["metric"], r["metric"]), "paper_metric": r["metric"],
               "system": r["system"], "prompt_lang": r["prompt_lang"], "value": r["value"], "note": r["note"],
               "citation": CITATIONS[r["source"]]}


def pacute_rows(path: Path):
    for r in csv.DictReader(path.open(encoding="utf-8")):
        stem = PACUTE_TASKS.get(r["benchmark"])
        task = f"{stem}-{r['format']}" if stem else r["benchmark"]
        note = r["note"] + (f"; paper benchmark '{r['benchmark']}'" if r["benchmark"].startswith("morph") else "")
        if r["benchmark"] == "hierarchical" and r["format"] == "mcq":
            note = f"{note}; {DIFFERENT_GOLD}"
        yield {"benchmark": "PACUTE", "task": task, "lang": "tl",
               "metric": PACUTE_METRICS.get((r["format"], r["metric"]), r["metric"]), "paper_metric": r["metric"],
               "system": r["system"], "prompt_lang": "n/a", "value": r["value"], "note": note.strip("; "),
               "citation": CITATIONS[r["source"]]}


def main(ref_dir: Path) -> int:
    rows = [*bhasa_rows(ref_dir / "bhasa_paper_results.csv"), *pacute_rows(ref_dir / "pacute_paper_results.csv")]
    OUT.parent.mkdir(exist_ok=True)
    with OUT.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "reference"))
