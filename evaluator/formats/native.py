"""Tanaw's native JSONL: one line per item with `task`, `lang`, `item_id`, `prompt_lang`, `prediction`.

Optional fields: `run` (int ≥ 1), `option_logprobs` (list of numbers, MCQ log-likelihood mode, in the item's
option order), `order` ("ab" | "ba" for binary-choice items asked in both orders), `reasoning`, `prompt`.
Scores in the file are never trusted: everything is re-scored against our gold.
"""
from __future__ import annotations

import json
import math
from typing import Any

from evaluator.formats.base import FormatError, ParsedFile
from evaluator.registry import TASKS, resolve
from evaluator.spec import Prediction

REQUIRED = ("task", "lang", "item_id", "prompt_lang", "prediction")
OPTIONAL = ("run", "option_logprobs", "order", "reasoning", "prompt", "scores")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a valid JSON number")


def _check(obj: Any, file: str, line: int) -> tuple[Prediction | None, list[FormatError]]:
    errs: list[FormatError] = []

    def err(fld: str | None, problem: str) -> None:
        errs.append(FormatError(file, line, fld, problem))

    if not isinstance(obj, dict):
        err(None, f"expected a JSON object, got {type(obj).__name__}")
        return None, errs
    for k in REQUIRED:
        if k not in obj:
            err(k, "missing")
    unknown = set(obj) - set(REQUIRED) - set(OPTIONAL)
    if unknown:
        err(sorted(unknown)[0], "unknown field" + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    if errs:
        return None, errs
    for k in ("task", "lang", "item_id", "prompt_lang"):
        if not isinstance(obj[k], str) or not obj[k].strip():
            err(k, "must be a non-empty string")
    if obj["prediction"] is not None and not isinstance(obj["prediction"], str):
        err("prediction", f"must be a string or null, got {type(obj['prediction']).__name__}")
    if errs:
        return None, errs
    try:
        task = TASKS[resolve(obj["task"])]
    except KeyError as e:
        err("task", str(e.args[0]))
        return None, errs
    if obj["lang"] not in task.langs:
        err("lang", f"{obj['lang']!r} is not a language of {task.name} ({', '.join(task.langs)})")
    if obj["prompt_lang"] not in ("en", "native"):
        err("prompt_lang", "must be 'en' or 'native'")
    run = obj.get("run", 1)
    if isinstance(run, bool) or not isinstance(run, int) or run < 1:
        err("run", "must be an integer ≥ 1")
    order = obj.get("order", "ab")
    if order not in ("ab", "ba"):
        err("order", "must be 'ab' or 'ba'")
    elif order == "ba" and not task.both_orders:
        err("order", f"{task.name} is not asked in both orders")
    lps = obj.get("option_logprobs")
    if lps is not None:
        if not isinstance(lps, list) or not lps or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in lps):
            err("option_logprobs", "must be a non-empty list of finite numbers")
    for k in ("reasoning", "prompt"):
        if obj.get(k) is not None and not isinstance(obj[k], str):
            err(k, "must be a string")
    if errs:
        return None, errs
    return Prediction(task=task.name, lang=obj["lang"], item_id=obj["item_id"].strip(),
                      prompt_lang=obj["prompt_lang"], output=obj["prediction"], run=run,
                      option_logprobs=tuple(float(x) for x in lps) if lps else None, order=order,
                      reasoning=obj.get("reasoning"), prompt=obj.get("prompt"), line=line), errs


def parse_native(data: bytes, name: str) -> ParsedFile:
    """Parse native JSONL bytes; every problem is reported as `name:LINE: field: problem`."""
    out = ParsedFile(name=name, format="native")
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        out.errors.append(FormatError(name, line, None, f"invalid UTF-8 at byte {e.start}"))
        return out
    seen: dict[tuple, int] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as e:
            out.errors.append(FormatError(name, n, None, f"invalid JSON: {e}"))
            continue
        pred, errs = _check(obj, name, n)
        out.errors.extend(errs)
        if pred is None:
            continue
        key = (pred.task, pred.lang, pred.item_id, pred.prompt_lang, pred.run, pred.order)
        if key in seen:
            out.errors.append(FormatError(name, n, "item_id",
                                          f"duplicate of line {seen[key]} ({pred.task}/{pred.lang}/{pred.item_id})"))
            continue
        seen[key] = n
        out.predictions.append(pred)
    if not out.predictions and not out.errors:
        out.errors.append(FormatError(name, None, None, "no predictions in file"))
    return out
