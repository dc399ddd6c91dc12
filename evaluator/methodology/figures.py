"""Sample-based figures for the Methodology page, computed once by `scripts/build_methodology_figures.py`.

The page never re-scores at render time: it reads `data/methodology_figures.json`, which holds only counts, scores
and item ids computed from the public samples (`../shared/data`, see its README): re-scoring of pacute-bench's
released gpt-4.1-nano results, QA F1 under SEA-HELM's and the SQuAD script's normalisation, ROUGE-L variants,
PACUTE MCQ option counts and golds, and the data defects flagged on items. A test recomputes them and compares.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evaluator.datasets import DatasetError, load_items, load_report
from evaluator.datasets.validate import KNOWN_TYPOS, duplicate_groups
from evaluator.methodology.pacute_compat import compare_folder, summarize
from evaluator.metrics import METRICS
from evaluator.metrics.qa import squad_f1, squad_f1_newmm
from evaluator.metrics.summarization import rouge_l
from evaluator.registry import LANG_NAMES, TASKS

FIGURES_JSON = Path(__file__).resolve().parents[2] / "data" / "methodology_figures.json"
PACUTE_SAMPLE = ("pacute", "results-sample", "gpt-4.1-nano", "inference")
"""Where pacute-bench's released per-item results sit under the data directory."""


def load(path: Path = FIGURES_JSON) -> dict[str, Any]:
    """The stored figures, or {} when the file is missing or unreadable (the page then says so)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def pacute_bench(data_dir: Path) -> dict[str, Any]:
    """Per-benchmark totals, differences from the released flags by reason, and what remains after normalising."""
    folder = data_dir.joinpath(*PACUTE_SAMPLE)
    if not folder.is_dir():
        return {}
    totals, diffs = compare_folder(folder)
    return {"model": PACUTE_SAMPLE[2], "n": sum(t.n for t in totals),
            "benchmarks": [asdict(t) for t in totals], "differences": summarize(diffs),
            "remaining": [asdict(d) for d in diffs if d.ours != d.theirs_normalised],
            "items": [{"task": d.task, "item_id": d.item_id, "metric": d.metric, "ours": d.ours, "theirs": d.theirs,
                       "reason": d.reason} for d in diffs if d.ours != d.theirs]}


def qa_gold_plus_20(data_dir: Path) -> list[dict[str, Any]]:
    """Mean QA F1 (0-100) when each prediction is the first gold plus the next 20 context characters."""
    out = []
    for lang in TASKS["qa"].langs:
        path = data_dir / "bhasa" / "qa" / f"{lang}.jsonl"
        if not path.is_file():
            continue
        preds = []
        for r in _jsonl(path):
            gold, start = r["answers"]["text"], r["answers"]["answer_start"][0]
            preds.append((r["context"][start:start + len(gold[0]) + 20] if start >= 0 else gold[0], gold))

        def mean(fn, rule: str) -> float:
            return round(100 * sum(fn(p, g, lang=rule) for p, g in preds) / len(preds), 2)
        out.append({"lang": lang, "n": len(preds), "f1": mean(squad_f1, lang),
                    "f1_with_english_articles": mean(squad_f1, "en"),
                    "f1_newmm": mean(squad_f1_newmm, lang) if lang in METRICS["squad_f1_newmm"].langs else None})
    return out


def rouge_variants(data_dir: Path) -> list[dict[str, Any]]:
    """Title-as-summary ROUGE-L on the XL-Sum samples, 0-100, in each language of the summarisation task: the
    paper-compatible headline and, where the metric exists, the whitespace-free variant (see `docs.ROUGE_NOTE`)."""
    out = []
    for lang in TASKS["abssum"].langs:
        path = Path(data_dir) / "bhasa" / "summarization" / f"{lang}.jsonl"
        if not path.exists():
            continue
        rows = _jsonl(path)
        xl = [rouge_l(r["title"], r["summary"], lang=lang) for r in rows]
        nows = ([rouge_l(r["title"], r["summary"], lang=lang, variant="nows") for r in rows]
                if lang in METRICS["rougeL_nows"].langs else None)
        out.append({"language": LANG_NAMES[lang], "n": len(rows), "rougeL (XL-Sum, headline)": 100 * sum(xl) / len(xl),
                    "rougeL_nows (words only)": None if nows is None else 100 * sum(nows) / len(nows)})
    return out


def pacute_mcq(data_dir: Path) -> dict[str, Any]:
    """Per MCQ task: items, option counts and duplicate groups; the hierarchical file's `answer` vs `options[0]`."""
    tasks = []
    for t in TASKS.values():
        if t.family != "pacute":
            continue
        try:
            items = load_items(t, "tl", data_dir=data_dir)
        except DatasetError:
            continue
        groups = duplicate_groups(items)
        row = {"task": t.name, "n": len(items), "duplicate_groups": len(groups),
               "duplicate_items": sum(map(len, groups))}
        if t.mode == "choice_logprob":
            row["options"] = {str(k): c for k, c in sorted(Counter(len(i.options or ()) for i in items).items())}
        tasks.append(row)
    out: dict[str, Any] = {"tasks": tasks}
    path = data_dir / "pacute" / "benchmarks" / "hierarchical_mcq.jsonl"
    if path.is_file():
        rows = _jsonl(path)
        out["hierarchical_mcq"] = {"n": len(rows), "answer_not_options0": sum(r["answer"] != r["options"][0]
                                                                              for r in rows)}
    return out


def defects(data_dir: Path) -> list[dict[str, Any]]:
    """Known source typos still present in the data (item ids and the fix), from `validate.KNOWN_TYPOS`."""
    out = []
    for (task, lang, item_id), (field, wrong, fixed, where) in KNOWN_TYPOS.items():
        try:
            present = item_id in load_report(task, lang, data_dir=data_dir).flagged
        except DatasetError:
            present = False
        out.append({"task": task, "lang": lang, "item_id": item_id, "field": field, "typo": wrong, "fix": fixed,
                    "fixed_in": where, "present": present})
    return out


def compute(data_dir: Path | str) -> dict[str, Any]:
    """Every figure the Methodology page shows, from the sample data in `data_dir`."""
    root = Path(data_dir)
    return {"pacute_bench": pacute_bench(root), "qa": qa_gold_plus_20(root), "rouge": rouge_variants(root),
            "pacute_mcq": pacute_mcq(root), "defects": defects(root)}
