"""SEA-HELM result files: per-item inference JSONL, the nested results JSON, and the batch files beside them.

Layouts as SEA-HELM writes them (`aisingapore/SEA-HELM`, `src/seahelm_evaluation.py`,
`src/dataloaders/base_dataloader.py`, `src/aggregate_metrics.py` at 6844e6c; `seahelm_evaluation.py` at 360c7cc):
- inference rows `inferences/{lang}/{task}/{model}_{task}_{lang}.jsonl` (360c7cc: `{model}/inference/...`): the
  dataset row (`id` only in some datasets, an integer in some; `label`; `prompts: [{field: text}]`; `metadata`)
  plus `responses` (one entry per turn), `cleaned_responses`, `individual_scores`, `finish_reasons`,
  `token_usages`, `reasoning_contents`, `errors`... The raw first-turn response is re-scored;
  `individual_scores` are kept as self-reported. SEA-HELM prompts are native-language prompts.
- `{model}_{task}_{lang}_turn{n}_batch.jsonl` / `_batch_response.jsonl` (and `judge_` ones): intermediate files of
  the same run, skipped with a note.
- `{model}_seahelm_results_{datetime}.json`: `{lang: {competency: {task: {metric: value, ...}, "total": x},
  "total": x}, "total": x}`; failed tasks carry `"error": "Failed to run evaluation for task"` and a 0.
- `-logprobs` task variants score only the probability of the gold answer, which SEA-HELM appends to each
  response (`LogprobsInferenceStrategy`): their rows cannot be re-scored; their summary values are kept as
  self-reported under their own metric names.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from evaluator.formats import limits as L
from evaluator.formats.parsed import ParsedRows, Row, SummaryScore, each_row
from evaluator.registry import LANG_NAMES, get_task
from evaluator.spec import Prediction

SEAHELM_TASKS = {"mp-r": "lindsea-mp", "pragmatic-single": "lindsea-pragmatic-single",
                 "pragmatic-pair": "lindsea-pragmatic-pair"}
"""SEA-HELM task names that differ from ours (the rest are identical: sentiment, qa, nli, causal, abssum, ...)."""

LOGPROBS = "-logprobs"
"""Suffix of SEA-HELM's log-probability task variants (`sentiment-logprobs`, `mp-r-logprobs`...)."""

SUMMARY_NODES = ("total", "pragmatics", "pragmatics-logprobs", "lindsea", "translations")
"""Keys of the results JSON that aggregate tasks (`aggregate_metrics.py`): never tasks themselves."""

NON_SCORES = ("inference_time_taken", "is_cached", "null_count", "errors", "error", "subcategories",
              "num_samples", "correct_count", "total_count")
"""Keys beside the metrics of a task entry that are not scores."""

FAILED = "Failed to run evaluation for task"
"""The `error` SEA-HELM writes into a task entry whose evaluation failed (its metric is then a 0)."""

_FILE = re.compile(r"^(?P<model>.+)_(?P<task>[A-Za-z0-9.-]+)_(?P<lang>[a-z]{2,3})$")
BATCH_FILE = re.compile(r"_turn\d+_(judge_)?batch(_response)?\.jsonl$", re.IGNORECASE)
"""Intermediate per-turn files SEA-HELM writes beside the inference file."""
SUMMARY_FILE = re.compile(r"^(?P<model>.+)_seahelm_results(_[^/]*)?\.json$", re.IGNORECASE)
"""`{model}_seahelm_results_{datetime}.json` (older runs: without the datetime)."""

_METADATA_TEXTS = ("correct", "wrong", "text", "question", "premise", "hypothesis", "context", "conclusion")
"""Metadata fields holding the item's own text (LINDSEA minimal pairs keep `correct`/`wrong` there)."""


def our_task(name: str) -> str | None:
    """Our task id for a SEA-HELM task name (a `-logprobs` variant maps to its task), or None."""
    base = name.removesuffix(LOGPROBS)
    try:
        return get_task(SEAHELM_TASKS.get(base, base)).name
    except KeyError:
        return None


def split_name(file: str) -> tuple[str | None, str | None, str | None]:
    """(model, SEA-HELM task, lang) from `{model}_{task}_{lang}.jsonl`, else Nones."""
    m = _FILE.match(PurePosixPath(file.split("!")[-1]).stem)
    return (m["model"], m["task"], m["lang"]) if m else (None, None, None)


def summary_model(file: str) -> str | None:
    """The model name in `{model}_seahelm_results[_{datetime}].json`, else None."""
    m = SUMMARY_FILE.match(PurePosixPath(file.split("!")[-1]).name)
    return m["model"] if m else None


def _first(v: Any, field: str = "") -> Any:
    """First turn of a per-turn list (SEA-HELM nests one list per turn; a bare value is accepted)."""
    if isinstance(v, list):
        return v[0] if v else None
    return v


def _fields(obj: dict) -> dict[str, str]:
    """The row's input texts by field name: `prompts[0]` fields, metadata texts, top-level text fields."""
    found: dict[str, str] = {}
    prompts = obj.get("prompts")
    if isinstance(prompts, list) and prompts and isinstance(prompts[0], dict):
        found.update({k: v for k, v in prompts[0].items() if isinstance(v, str)})
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        found.update({k: meta[k] for k in _METADATA_TEXTS if isinstance(meta.get(k), str) and k not in found})
    found.update({k: obj[k] for k in ("text", "question", "premise", "context")
                  if isinstance(obj.get(k), str) and k not in found})
    return found


def _scores(v: Any) -> dict[str, float]:
    """Numeric leaves of `individual_scores` (first run/turn when listed), as self-reported metrics."""
    v = _first(v, "individual_scores")
    out: dict[str, float] = {}
    if isinstance(v, dict):
        for k, x in v.items():
            x = _first(x, k)
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                f = L.number(x, f"individual_scores.{k}")
                if f is not None:
                    out[str(k)[:64]] = f
    return out


def parse_batch_file(data: bytes, file: str, *, run: int = 1, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """A SEA-HELM `_batch` / `_batch_response` file: nothing to import, one note."""
    out = ParsedRows(file, "seahelm-batch")
    out.warn(None, None, "SEA-HELM intermediate batch file (requests or raw responses of one turn) skipped: "
                         "the run's {model}_{task}_{lang}.jsonl holds the same outputs with the item fields")
    return out


def parse_inference(data: bytes, file: str, *, run: int = 1, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """Rows of one SEA-HELM inference file; task and language come from the file name."""
    out = ParsedRows(file, "seahelm")
    model, seahelm_task, lang = split_name(file)
    if seahelm_task is None:
        out.error(None, None, "file name is not {model}_{task}_{lang}.jsonl as SEA-HELM writes it")
        return out
    out.model_hint = model
    task = our_task(seahelm_task)
    if task is None:
        out.warn(None, None, f"unknown SEA-HELM task {seahelm_task!r}; rows not imported")
        return out
    if lang not in get_task(task).langs:
        out.warn(None, None, f"task {task!r} has no language {lang!r} here; rows not imported")
        return out
    if get_task(task).mode == "chat":  # conversations: evaluator.formats.seahelm_chat, turn by turn
        out.warn(None, None, "SEA-HELM conversation rows are imported turn by turn with their judge named by "
                             "`python -m evaluator judge-import`; rows not imported here")
        return out
    if seahelm_task.endswith(LOGPROBS):
        n = L.count_rows(data, limits)
        out.warn(None, None, f"SEA-HELM {seahelm_task!r} rows score only the probability of the gold answer, which "
                             f"SEA-HELM appends to every response, so they cannot be re-scored; {n} rows not "
                             "imported (the results JSON keeps its cumulative probabilities as self-reported)")
        return out

    def row(line: int, obj: dict) -> Row:
        raw_id = obj.get("id")
        own_id = isinstance(raw_id, str)
        item_id = L.ident(obj, "id") if raw_id is not None else f"line-{line}"
        responses = L.lst(obj, "responses", required=True)
        output = _first(responses, "responses")
        if isinstance(output, list):  # several samples per turn: the first
            output = output[0] if output else None
        if output is not None and not isinstance(output, str):
            raise L.RowError("responses[0]", "expected a string")
        L.obj(obj, "metadata")
        reasoning = _first(L.lst(obj, "reasoning_contents"), "reasoning_contents")
        if reasoning is not None and not isinstance(reasoning, str):
            raise L.RowError("reasoning_contents[0]", "expected a string or null")
        finish = _first(L.lst(obj, "finish_reasons"), "finish_reasons")
        if finish is not None and not isinstance(finish, str):
            raise L.RowError("finish_reasons[0]", "expected a string or null")
        usage = _first(L.lst(obj, "token_usages"), "token_usages")
        tokens_in = tokens_out = None
        if usage is not None:
            if not isinstance(usage, dict):
                raise L.RowError("token_usages[0]", "expected an object")
            tokens_in = L.integer(usage.get("prompt_tokens"), "token_usages[0].prompt_tokens")
            tokens_out = L.integer(usage.get("completion_tokens"), "token_usages[0].completion_tokens")
        scores = _scores(obj.get("individual_scores"))
        pred = Prediction(task=task, lang=lang, item_id=item_id, prompt_lang="native", output=output, run=run,
                          reasoning=reasoning, tokens_in=tokens_in, tokens_out=tokens_out,
                          finish_reason=finish, self_reported=scores)
        label = obj.get("label")
        fields = _fields(obj)
        return Row(pred, line, texts=tuple(fields.values()), fields=fields, own_id=own_id, file_task=seahelm_task,
                   label=label.strip().upper() if isinstance(label, str) and label.strip().upper() in ("A", "B")
                   else None)

    each_row(out, data, limits, row)
    return out


def _entry_scores(entry: dict, where: str, out: ParsedRows) -> dict[str, float]:
    """The metrics of one task entry: numbers that are not counts, flags, timings or standard errors."""
    scores: dict[str, float] = {}
    for metric, value in entry.items():
        if metric in NON_SCORES or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if str(metric).startswith("clt_se") or "stderr" in str(metric) or str(metric).endswith("_logprobs"):
            continue  # standard errors; log-scale means (the probability beside it is kept)
        try:
            v = L.number(value, f"{where}.{metric}")
        except L.RowError as e:
            out.error(None, e.field, e.problem)
            continue
        if v is not None:
            scores[str(metric)[:64]] = v
    return scores


def _listing(names: list[str], n: int = 5) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def parse_summary(data: bytes, file: str, *, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """`{lang: {competency: {task: {metric: value}}}}`: the metrics of every task that ran, kept as self-reported.

    Failed entries, summary nodes, non-score keys, tasks that are not ours and languages our task lacks are left
    out; each kind is reported once. A file in which every one of our tasks failed imports nothing and says so.
    """
    out = ParsedRows(file, "seahelm-summary")
    doc, err = L.json_document(data, file, limits)
    if err:
        out.errors.append(err)
        return out
    if not isinstance(doc, dict):
        out.error(None, None, "expected a JSON object {lang: {competency: {task: {metric: value}}}}")
        return out
    out.model_hint = summary_model(file)
    failed, ours_failed, unknown, no_lang = [], [], [], []
    for lang, comps in doc.items():
        if lang not in LANG_NAMES or not isinstance(comps, dict):
            continue
        for comp, tasks in comps.items():
            if not isinstance(tasks, dict):
                continue
            for name, entry in tasks.items():
                if name in SUMMARY_NODES or not isinstance(entry, dict):
                    continue
                task = our_task(name)
                if entry.get("error") is not None:
                    failed.append(f"{name}/{lang}")
                    if task is not None and lang in get_task(task).langs:
                        ours_failed.append(f"{name}/{lang}")
                    continue
                if task is None:
                    unknown.append(f"{name}/{lang}")
                    continue
                if lang not in get_task(task).langs:
                    no_lang.append(f"{name}/{lang}")
                    continue
                for metric, v in _entry_scores(entry, f"{lang}.{comp}.{name}", out).items():
                    out.summary.append(SummaryScore(task, lang, metric, v, "native"))
    if failed:
        out.warn(None, None, f"{len(failed)} tasks failed in this file; not imported "
                             f"(\"{FAILED}\": {_listing(failed)}; {len(ours_failed)} of them are Tanaw tasks)")
    if unknown:
        out.warn(None, None, f"{len(unknown)} task entries are not Tanaw tasks; not imported ({_listing(unknown)})")
    if no_lang:
        out.warn(None, None, f"{len(no_lang)} scores are for a language the Tanaw task lacks; not imported "
                             f"({_listing(no_lang)})")
    if not out.summary and not out.errors:
        why = (f"every Tanaw task in this file failed in SEA-HELM ({len(ours_failed)} failed entries)"
               if ours_failed else "no Tanaw task scores found")
        out.error(None, None, f"{why}; no score imported")
    return out
