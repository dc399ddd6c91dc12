"""Where our PACUTE generative scoring deliberately differs from pacute-bench's released per-item flags.

pacute-bench (`src/pacute_bench/evaluator.py` @ 89a610f, the release the sample results came from) lower-cases the
response, reads the answer as the first line after `<answer>` (else the response's first line) without removing an
unclosed `<reflection>` block, and compares `answer == ground_truth.strip().lower()` and `ground_truth in answer`
without trimming hyphens or normalising Unicode. Tanaw follows the PACUTE paper (§5: case, whitespace and
leading/trailing hyphens of affix strings) after Unicode NFC and reads only the answer: an output whose reasoning
block never closes has none (unparsed, 0 on both metrics), and without a closed `<answer>` block contains-match
searches the text after the last closed reasoning block.

`compare` re-scores pacute-bench rows through Tanaw's own scoring (`evaluator.scoring.score_prediction`) and, for
each row, also re-scores pacute-bench's *extracted* answer with the paper's normalisation ("theirs, normalised"):
what is left between ours and theirs-normalised is an extraction difference, each with its reason.
"""
from __future__ import annotations

import json
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from evaluator.metrics.match import contains_match_item, exact_match_item, has_answer_block
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item, Prediction

METRICS = ("exact_match", "contains_match")

REASONS = {
    "hyphen": "affix hyphens trimmed before comparing (PACUTE paper §5); pacute-bench compared them verbatim",
    "unicode": "composed and decomposed diacritics (e.g. í vs i + U+0301) compared after Unicode NFC; "
               "pacute-bench compared code points",
    "whole_response": "no closed <answer> block: Tanaw's contains-match searches the text after the last closed "
                      "reasoning block, pacute-bench only its first line",
    "unclosed_reflection": "the <reflection> block never closes (truncated output): Tanaw reads no answer (a "
                           "format failure, 0 on exact and contains match), pacute-bench read the reflection's "
                           "first line as the answer",
    "other": "other extraction difference",
}
"""Why a per-item flag differs, by reason key."""
NORMALISATION = ("hyphen", "unicode")
"""Reasons that disappear once pacute-bench's own answers are compared with the paper's normalisation."""


@dataclass(frozen=True)
class Difference:
    """One item whose exact or contains match differs from pacute-bench's own flag."""

    task: str
    """pacute-bench benchmark name (e.g. `pacute-affixation-gen`)."""
    item_id: str
    metric: str
    """"exact_match" or "contains_match"."""
    ours: bool
    theirs: bool
    """pacute-bench's released flag."""
    theirs_normalised: bool
    """pacute-bench's extracted answer compared with the paper's normalisation (NFC, case, whitespace, hyphens)."""
    reason: str
    """Key in `REASONS`."""


@dataclass(frozen=True)
class Totals:
    """Per-benchmark counts of 1-flags: ours, pacute-bench's as released, and pacute-bench's re-normalised."""

    task: str
    n: int
    ours: Mapping[str, int]
    theirs: Mapping[str, int]
    theirs_normalised: Mapping[str, int]


def _reason(metric: str, response: str, ours: bool, theirs_norm: bool, gold: str, answer: str) -> str:
    lower = response.lower()
    if theirs_norm == ours:  # only the comparison differs: hyphens or code points
        nfc = unicodedata.normalize
        if nfc("NFC", answer) != answer or nfc("NFC", gold) != gold or nfc("NFC", response) != response:
            return "unicode"
        return "hyphen"
    if metric == "contains_match" and ours and not has_answer_block(response):
        return "whole_response"
    if "<reflection>" in lower and "</reflection>" not in lower:
        return "unclosed_reflection"
    return "other"


def _ours(task_name: str, row: Mapping[str, Any]) -> dict[str, bool]:
    """Tanaw's exact and contains match for one pacute-bench row, through the real scoring path."""
    task = get_task(task_name)
    item_id = str(row.get("id"))
    item = Item(task=task.name, lang="tl", item_id=item_id, inputs={}, gold=str(row.get("ground_truth")))
    pred = Prediction(task=task.name, lang="tl", item_id=item_id, prompt_lang="native",
                      output=str(row.get("response") or ""))
    scores = score_prediction(task, item, pred).scores
    return {m: bool(scores[m]) for m in METRICS}


def compare_rows(task: str, rows: Iterable[Mapping[str, Any]]) -> tuple[Totals, list[Difference]]:
    """Re-score pacute-bench rows (`id`, `response`, `ground_truth`, `answer`, `exact_match`, `contains_match`)."""
    n, diffs = 0, []
    ours_n, theirs_n, norm_n = Counter(), Counter(), Counter()
    for row in rows:
        n += 1
        response, gold = str(row.get("response") or ""), str(row.get("ground_truth"))
        answer = str(row.get("answer") or "")
        ours = _ours(task, row)
        norm = {"exact_match": bool(exact_match_item(answer, gold)),
                "contains_match": bool(contains_match_item(answer, gold))}
        for metric in METRICS:
            theirs = bool(row.get(metric))
            ours_n[metric] += ours[metric]
            theirs_n[metric] += theirs
            norm_n[metric] += norm[metric]
            if ours[metric] != theirs or ours[metric] != norm[metric]:
                diffs.append(Difference(task, str(row.get("id")), metric, ours[metric], theirs, norm[metric],
                                        _reason(metric, response, ours[metric], norm[metric], gold, answer)))
    return Totals(task, n, dict(ours_n), dict(theirs_n), dict(norm_n)), diffs


def compare(task: str, rows: Iterable[Mapping[str, Any]]) -> tuple[int, list[Difference]]:
    """Number of rows and the differences from the file's own flags (or from its re-normalised answers)."""
    totals, diffs = compare_rows(task, rows)
    return totals.n, diffs


def summarize(diffs: Iterable[Difference]) -> list[dict[str, Any]]:
    """Counts of differences from pacute-bench's released flags by (task, metric, reason, direction)."""
    counts = Counter((d.task, d.metric, d.reason, "ours 1 / theirs 0" if d.ours else "ours 0 / theirs 1")
                     for d in diffs if d.ours != d.theirs)
    return [{"task": t, "metric": m, "reason": r, "direction": dirn, "items": c}
            for (t, m, r, dirn), c in sorted(counts.items())]


def compare_folder(folder: Path | str) -> tuple[list[Totals], list[Difference]]:
    """Compare every `*.jsonl` of a pacute-bench `inference/` folder: per-benchmark totals and differences."""
    totals, diffs = [], []
    for path in sorted(Path(folder).glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            t, d = compare_rows(path.stem, (json.loads(line) for line in fh if line.strip()))
        totals.append(t)
        diffs.extend(d)
    return totals, diffs
