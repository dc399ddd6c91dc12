"""pacute-bench result files: per-benchmark inference JSONL (`<benchmark>.jsonl`) and `evaluation_results_*.json`.

Layouts as `raileymontalan/pacute-bench` writes them (`src/pacute_bench/evaluators/vllm.py`, `batch.py` and
`base.py` at dcab16b, the paper's version, as `src/pacute_bench/evaluator.py` at 89a610f did; the sample results
at d4c288b and dcab16b):
- generative rows: `id`, `category`, `question`, `ground_truth`, `response` (lower-cased), `thinking_trace`,
  `reflection`, `answer`, `exact_match`, `contains_match`, `prefix_match`. The raw `response` is re-scored
  against our gold; the three match flags are kept as self-reported only.
- MCQ rows (`_async_mcq`): `id`, `category`, `question`, `ground_truth`, `options` = [ground truth, distractors...]
  (raw values: numbers stay numbers), `predicted_idx`, `predicted_answer`, `is_correct`, `logprobs` (one summed
  log-probability per option, in `options` order). The log-probabilities are re-ordered to our options by text;
  pacute-bench's gold is `options[0]` (for hierarchical MCQ it differs from the item's `answer`), ours is not
  taken from the file. `is_correct` is kept as self-reported.
- `evaluation_results_{timestamp}.json`: `{hf_model_name, model_type, benchmarks: {name: {...}}, timestamp}`, or
  the combined `{model: {hf_model_name, model_type, benchmarks}}` file written beside the model folders.
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from evaluator.formats import limits as L
from evaluator.formats.model_meta import pacute_model_meta
from evaluator.formats.parsed import ParsedRows, Row, SummaryScore, each_row
from evaluator.registry import get_task
from evaluator.spec import Prediction

SELF_REPORTED = ("exact_match", "contains_match", "prefix_match")
"""Per-row and summary scores of generative benchmarks."""
MCQ_SUMMARY = ("accuracy", "f1_score", "normalized_accuracy")
"""Summary scores of MCQ benchmarks (`_calc_metrics`)."""
NATIVE_PROMPT = frozenset({"pacute-hierarchical-mcq", "pacute-hierarchical-gen"})
"""Tasks pacute-bench asks in Filipino (`prefix = task.get("prompt_tl", ...)`, src/pacute_bench/loaders/
hierarchical.py @ dcab16b; the other loaders use `text_en` or the English `question`): their rows match our
`prompt_tl` and their summary scores are filed under the same native-prompt cell."""


def task_for_benchmark(name: str) -> str | None:
    """Our task id for a pacute-bench benchmark name (`hierarchical-gen`, `pacute-affixation-mcq`), or None."""
    try:
        return get_task(name).name
    except KeyError:
        return None


def _mcq_row(line: int, obj: dict, task: str, bench: str, run: int) -> Row:
    """One MCQ row: log-probabilities with the option each belongs to (re-ordered to ours when mapped)."""
    raw_id = obj.get("id")
    item_id = L.ident(obj, "id") if raw_id is not None else f"line-{line}"
    question = L.text(obj, "question", required=False) or ""
    options = L.lst(obj, "options", required=True)
    if any(isinstance(o, bool) or not isinstance(o, (str, int, float)) for o in options):
        raise L.RowError("options", "expected a list of option texts")
    lps = L.lst(obj, "logprobs", required=True)
    if len(lps) != len(options) or not options:
        raise L.RowError("logprobs", f"{len(lps)} log-probabilities for {len(options)} options")
    values = tuple(L.number(v, f"logprobs[{i}]", required=True) for i, v in enumerate(lps))
    scores = {"is_correct": 1.0 if obj["is_correct"] else 0.0} if isinstance(obj.get("is_correct"), bool) else {}
    pred = Prediction(task=task, lang="tl", item_id=item_id, prompt_lang="en", output=None, run=run,
                      option_logprobs=values, self_reported=scores, prompt=question or None)
    return Row(pred, line, texts=(question,) if question else (), own_id=isinstance(raw_id, str),
               file_task=bench, choices=tuple(str(o) for o in options))


def parse_inference(data: bytes, file: str, *, run: int = 1, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """Rows of one `<benchmark>.jsonl`; the benchmark (hence the task) is the file name."""
    out = ParsedRows(file, "pacute-bench")
    bench = PurePosixPath(file.split("!")[-1]).stem
    task = task_for_benchmark(bench)
    if task is None:
        out.warn(None, None, f"unknown pacute-bench benchmark {bench!r} (from the file name); rows not imported")
        return out
    if get_task(task).mode == "choice_logprob":
        each_row(out, data, limits, lambda line, obj: _mcq_row(line, obj, task, bench, run))
        return out

    def row(line: int, obj: dict) -> Row:
        raw_id = obj.get("id")
        item_id = L.ident(obj, "id") if raw_id is not None else f"line-{line}"
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
        return Row(pred, line, texts=(question,) if question else (), own_id=isinstance(raw_id, str),
                   file_task=bench)

    each_row(out, data, limits, row)
    return out


def _model_entry(doc: dict, out: ParsedRows) -> dict | None:
    """The one model's `{hf_model_name, benchmarks}` of a per-model or combined results file."""
    if "benchmarks" in doc:
        return doc
    models = [v for v in doc.values() if isinstance(v, dict) and "benchmarks" in v]
    if len(models) == 1:
        return models[0]
    out.error(None, None, f"holds the results of {len(models)} models; upload one model's "
                          "results/<model>/evaluation_results_*.json" if models else "no `benchmarks` object found")
    return None


def parse_summary(data: bytes, file: str, *, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """`evaluation_results_*.json`: per-benchmark scores (0-1), kept as self-reported."""
    out = ParsedRows(file, "pacute-bench-summary")
    doc, err = L.json_document(data, file, limits)
    if err:
        out.errors.append(err)
        return out
    entry = _model_entry(doc, out) if isinstance(doc, dict) else None
    if entry is None:
        if not out.errors:
            out.error(None, None, "expected a JSON object")
        return out
    try:
        out.model_hint = L.text(entry, "hf_model_name", required=False)
        out.model_meta = pacute_model_meta(entry)
        benches = L.obj(entry, "benchmarks", required=True)
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
        metrics = MCQ_SUMMARY if get_task(task).mode == "choice_logprob" else SELF_REPORTED
        n = res.get("num_samples")
        n_items = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None
        for metric in metrics:
            try:
                value = L.number(res.get(metric), f"benchmarks.{bench}.{metric}")
            except L.RowError as e:
                out.error(None, e.field, e.problem)
                continue
            if value is not None:
                out.summary.append(SummaryScore(task, "tl", metric, value,
                                                "native" if task in NATIVE_PROMPT else "en", n_items))
    if not out.summary and not out.errors:
        out.error(None, "benchmarks", "no scores found")
    return out


def _versions(task: str, theirs: int, ours: int, index) -> str:
    """"<their version> (n items); Tanaw's <task> is <our version> (m items)": ours from our file's hash, theirs
    from its item count when that names a version other than ours."""
    from evaluator.datasets import default_data_dir
    from evaluator.datasets.pacute import EARLIER_COMMIT, PAPER_COMMIT, data_version, version_for_count

    stem = get_task(task).loader.removeprefix("pacute.")
    root = getattr(index, "data_dir", None) or default_data_dir()
    ours_v = "local data" if str(root).startswith("hf:") else data_version(Path(root), stem).split(" ")[0]
    by_count = version_for_count(stem, theirs)
    if by_count and f"pacute-bench@{by_count}" != ours_v:
        theirs_v = f"pacute-bench@{by_count}"
    else:
        other = EARLIER_COMMIT if ours_v == f"pacute-bench@{PAPER_COMMIT[:7]}" else PAPER_COMMIT
        theirs_v = f"another PACUTE version than Tanaw's (e.g. pacute-bench@{other[:7]})"
    return f"{theirs_v} ({theirs} items); Tanaw's {task} is {ours_v} ({ours} items)"


def _ours_is_a_version(task: str, index) -> bool:
    """Our items of `task` are a pacute-bench version's file (not the demo items or another local subset, against
    which unmatched rows mean missing benchmark data rather than another version)."""
    from evaluator.datasets import default_data_dir
    from evaluator.datasets.pacute import data_version

    root = getattr(index, "data_dir", None) or default_data_dir()
    if str(root).startswith("hf:"):
        return False
    return data_version(Path(root), get_task(task).loader.removeprefix("pacute.")).startswith("pacute-bench@")


def _other_version(task: str, theirs: int, ours: int) -> bool:
    """A summary over `theirs` items cannot be of our `ours`-item file: more items than ours, or the item count
    of the other pacute-bench version (fewer items alone is a partial run, `--max-samples`)."""
    from evaluator.datasets.pacute import version_for_count

    stem = get_task(task).loader.removeprefix("pacute.")
    return theirs > ours or version_for_count(stem, theirs) not in (None, version_for_count(stem, ours))


def check_summary_version(parsed: ParsedRows, index) -> dict[str, str]:
    """Tasks of a summary whose scores cannot land in our cells, each with a warning: task → "summary" when the
    summary is of another suite version than our items (by item count; both versions named), "local" when our
    items are no pacute-bench version (the demo items, a local subset) or absent. The caller drops them, or refuses
    a summary of another version that comes without rows (`evaluator.formats.read`)."""
    other: dict[str, str] = {}
    for task in dict.fromkeys(s.task for s in parsed.summary):
        n = next((s.n_items for s in parsed.summary if s.task == task and s.n_items), None)
        cell = index.cell(task, "tl")
        if isinstance(cell, str):
            parsed.warn(None, "benchmarks", f"{cell}: its scores cannot be checked against our items")
            other[task] = "local"
        elif n is not None and _other_version(task, n, len(cell.items)):
            if _ours_is_a_version(task, index):
                parsed.warn(None, "benchmarks.num_samples", f"{task}: the summary is from "
                                                            f"{_versions(task, n, len(cell.items), index)}")
                other[task] = "summary"
            else:
                parsed.warn(None, "benchmarks.num_samples", f"{task}: the summary covers {n} items; our "
                                                            f"{len(cell.items)} are no pacute-bench version, so "
                                                            "its scores cannot be checked against them")
                other[task] = "local"
    return other


def check_rows_version(parsed: ParsedRows, unmatched: int, index) -> str | None:
    """Why a pacute-bench file whose rows do not all match our items is refused (another suite version), or None."""
    if not unmatched or not parsed.rows or not _ours_is_a_version(parsed.rows[0].prediction.task, index):
        return None
    task = parsed.rows[0].prediction.task
    cell = index.cell(task, "tl")
    ours = len(cell.items) if not isinstance(cell, str) else 0
    return (f"{unmatched} of {len(parsed.rows)} rows match none of our items: the file is from "
            f"{_versions(task, len(parsed.rows), ours, index)}; no row of this file is imported, nor its task's "
            "summary scores")

