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
what is left between ours and theirs-normalised is an extraction difference. `rule_of` does the same for stored
rows. Both name each difference by one rule of `RULES`, decided in one place (`_rule`).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from evaluator.metrics.match import contains_match_item, exact_match_item
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item, Prediction

METRICS = ("exact_match", "contains_match")

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
    """Key in `RULES`."""


@dataclass(frozen=True)
class Totals:
    """Per-benchmark counts of 1-flags: ours, pacute-bench's as released, and pacute-bench's re-normalised."""

    task: str
    n: int
    ours: Mapping[str, int]
    theirs: Mapping[str, int]
    theirs_normalised: Mapping[str, int]


def _rule(metric: str, gold: str, ours: float, answer: str, unclosed: bool) -> str:
    """The rule behind one differing flag: no answer where reasoning never closed, else whether pacute-bench's own
    answer re-scored with Tanaw's normalisation gives Tanaw's score (normalisation) or not (extraction)."""
    if unclosed:
        return "unclosed_answer"
    item = exact_match_item if metric == "exact_match" else contains_match_item
    return "normalisation" if float(item(answer, gold)) == float(ours) else "extraction"


def _ours(task_name: str, row: Mapping[str, Any]) -> dict[str, bool]:
    """Tanaw's exact and contains match for one pacute-bench row, through the real scoring path."""
    task = get_task(task_name)
    item_id = str(row.get("id"))
    item = Item(task=task.name, lang="tl", item_id=item_id, inputs={}, gold=str(row.get("ground_truth")))
    pred = Prediction(task=task.name, lang="tl", item_id=item_id, prompt_lang="native",
                      output=str(row.get("response") or ""))
    result = score_prediction(task, item, pred)
    return {m: bool(result.scores[m]) for m in METRICS} | {"unclosed": _unclosed(result.parsed, result.extras)}


def compare_rows(task: str, rows: Iterable[Mapping[str, Any]]) -> tuple[Totals, list[Difference]]:
    """Re-score pacute-bench rows (`id`, `response`, `ground_truth`, `answer`, `exact_match`, `contains_match`)."""
    n, diffs = 0, []
    ours_n, theirs_n, norm_n = Counter(), Counter(), Counter()
    for row in rows:
        n += 1
        gold = str(row.get("ground_truth"))
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
                                        _rule(metric, gold, ours[metric], answer, ours["unclosed"])))
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


RULES = {
    "normalisation": "Tanaw compares after Unicode NFC, case and whitespace, trims affix hyphens for exact match "
                     "and keeps them for containment (the affix `-um-` is not found in the whole word `kumanta`); "
                     "pacute-bench's `_normalize_label` (dcab16b) lower-cases and trims hyphens for both, without "
                     "NFC (its earlier releases kept hyphens)",
    "unclosed_answer": "a reasoning block never closes: Tanaw reads no answer (a format failure, 0), pacute-bench "
                       "read the reflection's first line as the answer",
    "extraction": "another reading of the answer: Tanaw reads the text after the last closed reasoning block, "
                  "pacute-bench the first line after its answer tag or of the response",
    "tie": "an exact tie of option log-probabilities scores 1/k in Tanaw; pacute-bench's torch.max credits index 0, "
           "its gold",
    "hierarchical_gold": "hierarchical MCQ: pacute-bench scores options[0] as the gold, Tanaw the item's answer",
    "duplicate_option": "the gold text is listed twice with different log-probabilities: the copy that wins is "
                        "the gold answer in Tanaw, a wrong index for pacute-bench (is_correct = index 0)",
    "other": "other difference",
}
"""Why Tanaw's item score differs from pacute-bench's own flag, by rule key (Methodology page)."""


def bench_answer(response: str) -> str:
    """The answer pacute-bench reads from a response (`BaseEvaluator._extract_answer` with the `<answer>` tag,
    src/pacute_bench/evaluators/base.py @ dcab16b)."""
    import re

    text = response
    if re.search(r"<think>(.*?)</think>", text, re.S | re.I):
        text = re.sub(r"<think>.*?</think>", "", text, flags=re.S | re.I).strip()
    if "<answer>" in text:
        after = text.partition("<answer>")[2]
        if "</answer>" in after:
            after = after.split("</answer>")[0]
        lines = after.strip().splitlines()
        return lines[0].strip() if lines else ""
    return text.splitlines()[0].strip() if "\n" in text else text


def _loads(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def rule_of(row: Mapping[str, Any], metric: str) -> str | None:
    """The rule explaining why Tanaw's `metric` for one stored pacute-bench item differs from the tool's own flag,
    or None when they agree (or the flag is absent)."""
    theirs = row.get("their_is_correct" if metric == "mcq_acc" else f"their_{metric}")
    ours = row.get(metric)
    if theirs is None or ours is None or _isnan(theirs) or _isnan(ours) or float(ours) == float(theirs):
        return None
    extras = _loads(row.get("extras")) or {}
    if metric == "mcq_acc":
        if extras.get("tied"):
            return "tie"
        options = _loads(row.get("options")) or []
        gold = _loads(row.get("gold"))
        if row.get("task") == "pacute-hierarchical-mcq" and options and options[0] != gold:
            return "hierarchical_gold"
        return "duplicate_option" if options.count(gold) > 1 else "other"
    return _rule(metric, _loads(row.get("gold")), float(ours), bench_answer(str(row.get("output") or "")),
                 _unclosed(row.get("parsed"), extras))


def _unclosed(parsed: Any, extras: Mapping[str, Any]) -> bool:
    """No answer because a reasoning block never closed (the answer reader's failure note says so)."""
    return not parsed and "never closed" in str(extras.get("failure", ""))


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and v != v


def rule_counts(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per model, task, metric and rule: the number of items whose Tanaw score differs from pacute-bench's flag,
    from stored rows (`store.queries.pacute.pacute_rule_rows`)."""
    counts: Counter = Counter()
    for row in rows:
        metrics = ("mcq_acc",) if str(row.get("task", "")).endswith("-mcq") else METRICS
        for metric in metrics:
            rule = rule_of(row, metric)
            if rule is not None:
                counts[(row["model_id"], row["task"], metric, rule)] += 1
    return [{"model": m, "task": t, "metric": metric, "rule": r, "items": n}
            for (m, t, metric, r), n in sorted(counts.items())]
