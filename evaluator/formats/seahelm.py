"""SEA-HELM result files: `inferences/{lang}/{task}/{model}_{task}_{lang}.jsonl` and the nested results JSON.

Inference rows carry `id`, `label`, `metadata`, `responses` (one entry per turn), `cleaned_responses`,
`individual_scores`, `finish_reasons`, `token_usages`, `reasoning_contents`, `cumulative_logprobs` (and the
dataset's `prompts`). The raw first-turn response is re-scored; `individual_scores` are kept as self-reported.
SEA-HELM prompts are native-language prompts, so rows land under prompt language "native".
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

_FILE = re.compile(r"^(?P<model>.+)_(?P<task>[A-Za-z0-9.-]+)_(?P<lang>[a-z]{2,3})$")


def our_task(name: str) -> str | None:
    """Our task id for a SEA-HELM task name, or None."""
    try:
        return get_task(SEAHELM_TASKS.get(name, name)).name
    except KeyError:
        return None


def split_name(file: str) -> tuple[str | None, str | None, str | None]:
    """(model, SEA-HELM task, lang) from `{model}_{task}_{lang}.jsonl`, else Nones."""
    m = _FILE.match(PurePosixPath(file.split("!")[-1]).stem)
    return (m["model"], m["task"], m["lang"]) if m else (None, None, None)


def _first(v: Any, field: str = "") -> Any:
    """First turn of a per-turn list (SEA-HELM nests one list per turn; a bare value is accepted)."""
    if isinstance(v, list):
        return v[0] if v else None
    return v


def _texts(obj: dict) -> tuple[str, ...]:
    """Input strings of the row (the dataset's `prompts[0]` fields, top-level text fields) for content matching."""
    found: list[str] = []
    prompts = obj.get("prompts")
    if isinstance(prompts, list) and prompts and isinstance(prompts[0], dict):
        found.extend(v for v in prompts[0].values() if isinstance(v, str))
    found.extend(obj[k] for k in ("text", "question", "premise", "context") if isinstance(obj.get(k), str))
    return tuple(found)


def _scores(v: Any) -> dict[str, float]:
    """Numeric leaves of `individual_scores` (first run/turn when listed), as self-reported metrics."""
    v = _first(v, "individual_scores")
    out: dict[str, float] = {}
    if isinstance(v, dict):
        for k, x in v.items():
            x = _first(x, k)
            if isinstance(x, (int, float)):
                f = L.number(x, f"individual_scores.{k}")
                if f is not None:
                    out[str(k)[:64]] = f
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

    def row(line: int, obj: dict) -> Row:
        item_id = L.ident(obj, "id")
        responses = L.lst(obj, "responses", required=True)
        output = _first(responses, "responses")
        if isinstance(output, list):  # several samples per turn: the first
            output = output[0] if output else None
        if output is not None and not isinstance(output, str):
            raise L.RowError("responses[0]", "expected a string")
        L.lst(obj, "cleaned_responses")
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
        return Row(pred, line, texts=_texts(obj), file_task=seahelm_task,
                   label=label.strip().upper() if isinstance(label, str) and label.strip().upper() in ("A", "B")
                   else None)

    each_row(out, data, limits, row)
    return out


def parse_summary(data: bytes, file: str, *, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """`{lang: {competency: {task: {metric: value}}}}`: numeric task scores, kept as self-reported."""
    out = ParsedRows(file, "seahelm-summary")
    doc, err = L.json_document(data, file, limits)
    if err:
        out.errors.append(err)
        return out
    stem = PurePosixPath(file.split("!")[-1]).stem
    out.model_hint = stem.removesuffix("_seahelm_results") if stem.endswith("_seahelm_results") else None
    for lang, comps in doc.items():
        if lang not in LANG_NAMES or not isinstance(comps, dict):
            continue
        for comp, tasks in comps.items():
            if not isinstance(tasks, dict):
                continue
            for name, metrics in tasks.items():
                if not isinstance(metrics, dict):
                    continue
                task = our_task(name)
                if task is None:
                    out.warn(None, f"{lang}.{comp}.{name}", "unknown task; scores not imported")
                    continue
                for metric, value in metrics.items():
                    if isinstance(value, (int, float)):
                        try:
                            v = L.number(value, f"{lang}.{comp}.{name}.{metric}")
                        except L.RowError as e:
                            out.error(None, e.field, e.problem)
                            continue
                        out.summary.append(SummaryScore(task, lang, str(metric)[:64], v, "native"))
    if not out.summary and not out.errors:
        out.error(None, None, "no {lang: {competency: {task: {metric: value}}}} scores found")
    return out
