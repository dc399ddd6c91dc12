"""pacute-bench result files: per-benchmark inference JSONL (`<benchmark>.jsonl`) and `evaluation_results_*.json`.

Inference rows carry `id`, `category`, `question`, `ground_truth`, `response`, `thinking_trace`, `reflection`,
`answer`, `exact_match`, `contains_match`, `prefix_match`. The raw `response` is re-scored against our gold;
the three match flags are kept as self-reported only.
"""
from __future__ import annotations

from pathlib import PurePosixPath

from evaluator.formats import limits as L
from evaluator.formats.parsed import ParsedRows, Row, SummaryScore, each_row
from evaluator.registry import get_task
from evaluator.spec import Prediction

SELF_REPORTED = ("exact_match", "contains_match", "prefix_match")


def task_for_benchmark(name: str) -> str | None:
    """Our task id for a pacute-bench benchmark name (`hierarchical-gen`, `pacute-affixation-mcq`), or None."""
    try:
        return get_task(name).name
    except KeyError:
        return None


def parse_inference(data: bytes, file: str, *, run: int = 1, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """Rows of one `<benchmark>.jsonl`; the benchmark (hence the task) is the file name."""
    out = ParsedRows(file, "pacute-bench")
    bench = PurePosixPath(file.split("!")[-1]).stem
    task = task_for_benchmark(bench)
    if task is None:
        out.warn(None, None, f"unknown pacute-bench benchmark {bench!r} (from the file name); rows not imported")
        return out
    if get_task(task).mode != "generate":
        out.warn(None, None, f"{bench!r} is scored by option log-probabilities; pacute-bench inference rows hold "
                             "no log-probabilities, so they are not imported (upload lm-eval samples instead)")
        return out

    def row(line: int, obj: dict) -> Row:
        item_id = L.ident(obj, "id")
        question = L.text(obj, "question", required=False) or ""
        response = L.text(obj, "response", required=False)
        if response is None and "response" not in obj:
            raise L.RowError("response", "missing")
        reasoning = L.text(obj, "thinking_trace", required=False)
        for key in ("ground_truth", "reflection", "answer", "category"):
            L.text(obj, key, required=False)
        scores = {k: L.number(obj.get(k), k) for k in SELF_REPORTED if obj.get(k) is not None}
        pred = Prediction(task=task, lang="tl", item_id=item_id, prompt_lang="en", output=response, run=run,
                          reasoning=reasoning, self_reported=scores, prompt=question or None)
        return Row(pred, line, texts=(question,) if question else (), file_task=bench)

    each_row(out, data, limits, row)
    return out


def parse_summary(data: bytes, file: str, *, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """`evaluation_results_*.json`: per-benchmark scores (0-1), kept as self-reported."""
    out = ParsedRows(file, "pacute-bench-summary")
    doc, err = L.json_document(data, file, limits)
    if err:
        out.errors.append(err)
        return out
    try:
        out.model_hint = L.text(doc, "hf_model_name", required=False)
        benches = L.obj(doc, "benchmarks", required=True)
    except L.RowError as e:
        out.error(None, e.field, e.problem)
        return out
    for bench, res in benches.items():
        if not isinstance(res, dict):
            out.error(None, f"benchmarks.{bench}", "expected an object")
            continue
        task = task_for_benchmark(bench)
        if task is None:
            out.warn(None, f"benchmarks.{bench}", "unknown benchmark; scores not imported")
            continue
        for metric in SELF_REPORTED:
            try:
                value = L.number(res.get(metric), f"benchmarks.{bench}.{metric}")
            except L.RowError as e:
                out.error(None, e.field, e.problem)
                continue
            if value is not None:
                out.summary.append(SummaryScore(task, "tl", metric, value, "en"))
    if not out.summary and not out.errors:
        out.error(None, "benchmarks", "no scores found")
    return out
