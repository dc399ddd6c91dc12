"""Tanaw's native JSONL: one line per item with `task`, `lang`, `item_id`, `prompt_lang`, `prediction`.

Optional fields: `run` (int ≥ 1), `option_logprobs` (list of numbers, MCQ log-likelihood mode, in the item's
option order), `order` ("ab" | "ba" for binary-choice items asked in both orders), `reasoning`, `prompt`.
Scores in the file are never trusted: everything is re-scored against our gold.
"""
from __future__ import annotations

from typing import Any

from evaluator.formats import limits as L
from evaluator.formats.base import FormatError, ParsedFile
from evaluator.registry import TASKS, resolve
from evaluator.spec import Prediction

REQUIRED = ("task", "lang", "item_id", "prompt_lang", "prediction")
OPTIONAL = ("run", "option_logprobs", "order", "reasoning", "prompt", "scores")
ALLOWED = frozenset(REQUIRED + OPTIONAL)
_REQUIRED = frozenset(REQUIRED)
_TEXT = ("task", "lang", "item_id", "prompt_lang")


def _check(obj: Any, file: str, line: int) -> tuple[Prediction | None, list[FormatError]]:
    """The row's Prediction, or None and every problem found (file, line, field); a well-formed row passes each
    check once without building an error."""
    errs: list[FormatError] = []

    def err(fld: str | None, problem: str) -> None:
        errs.append(FormatError(file, line, fld, problem))

    if not isinstance(obj, dict):
        err(None, f"expected a JSON object, got {type(obj).__name__}")
        return None, errs
    keys = obj.keys()
    if not (keys <= ALLOWED and keys >= _REQUIRED):
        for k in REQUIRED:
            if k not in obj:
                err(k, "missing")
        unknown = obj.keys() - ALLOWED
        if unknown:
            err(sorted(unknown)[0], "unknown field" + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
        return None, errs
    for k in _TEXT:
        if not isinstance(v := obj[k], str) or not v.strip():
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
    elif run > L.INT32_MAX:
        err("run", f"{run if run < 10**24 else 'a huge number'} is out of range (1 to {L.INT32_MAX})")
    order = obj.get("order", "ab")
    if order not in ("ab", "ba"):
        err("order", "must be 'ab' or 'ba'")
    elif order == "ba" and not task.both_orders:
        err("order", f"{task.name} is not asked in both orders")
    lps = obj.get("option_logprobs")
    if lps is not None:
        bad = next((i for i, x in enumerate(lps) if L.as_float(x) is None), None) if isinstance(lps, list) else 0
        if not isinstance(lps, list) or not lps or len(lps) > 64:
            err("option_logprobs", "must be a list of 1 to 64 numbers")
        elif bad is not None:
            err(f"option_logprobs[{bad}]", "must be a finite number of ordinary size")
    for k in ("reasoning", "prompt"):
        if obj.get(k) is not None and not isinstance(obj[k], str):
            err(k, "must be a string")
    if errs:
        return None, errs
    return Prediction(task=task.name, lang=obj["lang"], item_id=obj["item_id"].strip(),
                      prompt_lang=obj["prompt_lang"], output=obj["prediction"], run=run,
                      option_logprobs=tuple(float(x) for x in lps) if lps else None, order=order,
                      reasoning=obj.get("reasoning"), prompt=obj.get("prompt"), line=line), errs


def parse_native(data, name: str, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedFile:
    """Parse native JSONL (bytes or a `Source`, read in chunks); every problem is `name:LINE: field: problem`.

    Stops after `limits.max_errors` errors or `limits.max_rows` predictions (see `parsed.each_row`).
    """
    from evaluator.formats.source import Source

    out = ParsedFile(name=name, format="native")
    seen: dict[tuple, int] = {}
    for n, obj, error in L.json_lines(data, name, limits):
        if len(out.errors) >= limits.max_errors:
            rest = max(Source.of(data).count_lines() - n + 1, 1)
            out.errors.append(FormatError(name, n, None, f"stopped after {len(out.errors)} errors; {rest:,} more "
                                                         "line(s) from here on not checked"))
            return out
        if error is not None:
            out.errors.append(error)
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
        if len(out.predictions) >= limits.max_rows:
            out.errors.append(FormatError(name, n, None, f"more than {limits.max_rows:,} rows in this upload; split it"))
            return out
        seen[key] = n
        out.predictions.append(pred)
    if not out.predictions and not out.errors:
        out.errors.append(FormatError(name, None, None, "no predictions in file"))
    return out
