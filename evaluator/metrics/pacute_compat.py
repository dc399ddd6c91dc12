"""Where our PACUTE generative scoring deliberately differs from pacute-bench's released per-item flags.

pacute-bench (the release the sample results came from) reads the answer after `<answer>` (else the first line)
without removing an unclosed `<reflection>` block, and compares `answer == ground_truth.strip().lower()` and
`ground_truth in answer` without trimming hyphens. We follow the PACUTE paper (§5: case, whitespace and
leading/trailing hyphens of affix strings), compare text after Unicode NFC, and count an output whose
`<reflection>` never closes as unparsed.
`compare` re-scores a pacute-bench inference file with our extraction and names the reason of each difference.
"""
from __future__ import annotations

import json
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from evaluator.extract import extract_pacute_answer
from evaluator.metrics.match import contains_match_item, exact_match_item

REASONS = {
    "hyphen": "affix hyphens trimmed before comparing (PACUTE paper §5); pacute-bench compared them verbatim",
    "unclosed_reflection": "the <reflection> block never closes (truncated output): ours is unparsed, "
                           "pacute-bench took the reflection's first line as the answer",
    "unicode": "composed and decomposed diacritics (e.g. í vs i + U+0301) compared after Unicode NFC; "
               "pacute-bench compared code points",
    "other": "other extraction difference",
}
"""Why a per-item flag differs, by reason key."""


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
    reason: str
    """Key in `REASONS`."""


def _reason(response: str, answer: str | None, theirs_answer: str, gold: str) -> str:
    if answer is None and "<reflection>" in response.lower() and "</reflection>" not in response.lower():
        return "unclosed_reflection"
    plain = (answer or "").strip().lower()
    if plain == theirs_answer.strip().lower() and ("-" in gold or "-" in plain):
        return "hyphen"
    nfc = unicodedata.normalize
    if nfc("NFC", theirs_answer) != theirs_answer or nfc("NFC", gold) != gold:
        return "unicode"
    return "other"


def compare(task: str, rows: Iterable[Mapping[str, Any]]) -> tuple[int, list[Difference]]:
    """Re-score pacute-bench rows (`id`, `response`, `ground_truth`, `answer`, `exact_match`, `contains_match`).

    Returns the number of rows and the differences from the file's own flags.
    """
    n, diffs = 0, []
    for row in rows:
        n += 1
        response, gold = str(row.get("response") or ""), str(row.get("ground_truth"))
        ex = extract_pacute_answer(response, task=None, lang="tl")  # type: ignore[arg-type]
        answer = ex.answer if ex.parsed else None
        for metric, fn in (("exact_match", exact_match_item), ("contains_match", contains_match_item)):
            ours, theirs = bool(fn(answer, gold)), bool(row.get(metric))
            if ours != theirs:
                diffs.append(Difference(task, str(row.get("id")), metric, ours, theirs,
                                        _reason(response, answer, str(row.get("answer") or ""), gold)))
    return n, diffs


def summarize(diffs: Iterable[Difference]) -> list[dict[str, Any]]:
    """Counts of differences by (task, metric, reason key, direction), for the methodology page."""
    counts = Counter((d.task, d.metric, d.reason, "ours 1 / theirs 0" if d.ours else "ours 0 / theirs 1")
                     for d in diffs)
    return [{"task": t, "metric": m, "reason": r, "direction": dirn, "items": c}
            for (t, m, r, dirn), c in sorted(counts.items())]


def compare_folder(folder: Path | str) -> tuple[dict[str, int], list[Difference]]:
    """Compare every `*.jsonl` of a pacute-bench `inference/` folder; (rows per task, differences)."""
    sizes, diffs = {}, []
    for path in sorted(Path(folder).glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            n, d = compare(path.stem, (json.loads(line) for line in fh if line.strip()))
        sizes[path.stem] = n
        diffs.extend(d)
    return sizes, diffs
