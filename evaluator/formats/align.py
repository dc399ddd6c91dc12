"""Aligning a file's option log-probabilities with our item's options: by text, or by label, never by position.

- Option texts are compared after NFC and whitespace collapsing, with the first character case-insensitive
  (lm-eval's XCOPA `convert_choice` lower-cases it) and a leading cause/effect connector removed (cloze templates
  that glue "karena"/"because" to the choice). Each of our options must meet exactly one text of the file; two
  equal texts in the file are accepted only with equal log-probabilities.
- Rows whose choices stand for labels (lm-eval XNLI) are realigned by the label of each choice.
- For letter tasks the answer is the choice the tool itself picked: the highest log-probability, the first of
  equal ones in the file's order (lm-eval's `argmax`), re-lettered in our order.
Anything else is a reason string: the caller refuses the row with its file and line.
"""
from __future__ import annotations

import dataclasses
import unicodedata

from evaluator.formats.parsed import Row
from evaluator.registry import get_task
from evaluator.spec import Item, Prediction

CONNECTORS = ("karena", "maka", "bởi vì", "vì vậy", "เพราะ", "ดังนั้น", "காரணமாக", "எனவே", "dahil", "kaya",
              "because", "so")
"""Cause/effect connectors of the XCOPA cloze templates (lm-eval `xcopa/utils.py`) and English ones."""

LABEL_LETTERS = {"nli": {"entailment": "A", "contradiction": "B", "neutral": "C"}}
"""Our letter for each label of tasks whose files may give label-named choices (the NLI prompt's A/B/C)."""


def option_key(text: str) -> str:
    """Comparison key of an option text: NFC, whitespace collapsed, first character case-folded."""
    t = " ".join(unicodedata.normalize("NFC", str(text)).split())
    return t[:1].casefold() + t[1:]


def _without_connector(key: str) -> str:
    for c in CONNECTORS:
        if key.casefold().startswith(c + " ") and len(key) > len(c) + 1:
            return option_key(key[len(c) + 1:])
    return key


def _keys(text) -> set[str]:
    k = option_key(text)
    return {k, _without_connector(k)}


def reorder(choices: tuple, logprobs: tuple[float, ...], options: tuple[str, ...]) -> tuple[float, ...] | str:
    """`logprobs` (in the file's `choices` order) in the order of our `options`, or why that is impossible."""
    if len(choices) != len(logprobs):
        return f"{len(choices)} options but {len(logprobs)} log-probabilities"
    if len(choices) != len(options):
        return f"{len(choices)} options in the file, {len(options)} in our item"
    table: dict[str, float] = {}
    for c, lp in zip(choices, logprobs):
        for k in dict.fromkeys((option_key(c), _without_connector(option_key(c)))):
            if k in table and table[k] != lp:
                return f"option {str(c)[:40]!r} appears twice in the file with different log-probabilities"
            table[k] = lp
    out, used = [], set()
    for o in options:
        k = option_key(o)
        k = k if k in table else _without_connector(k)
        if k not in table:
            return f"our option {o[:40]!r} is not among the file's options"
        out.append(table[k])
        used.add(k)
    unused = [c for c in choices if option_key(c) not in used and _without_connector(option_key(c)) not in used]
    if unused:
        return f"the file's option {str(unused[0])[:40]!r} is not one of ours"
    return tuple(out)


def _tool_choice(logprobs: tuple[float, ...]) -> int:
    """Index the tool picked: the highest log-probability, the first of equal ones (numpy/torch argmax)."""
    return max(range(len(logprobs)), key=lambda i: (logprobs[i], -i))


def _by_label(row: Row, pred: Prediction) -> Prediction | str:
    letters = LABEL_LETTERS.get(pred.task)
    labels = row.choice_labels or ()
    lps = pred.option_logprobs or ()
    if letters is None:
        return f"the file gives labels as choices, which task {pred.task!r} does not use"
    if len(labels) != len(lps) or sorted(labels) != sorted(letters):
        return f"choices stand for {list(labels)}, expected each of {sorted(letters)} once"
    order = sorted(letters, key=letters.get)  # labels in our letter order (A, B, C)
    ours = tuple(lps[labels.index(lab)] for lab in order)
    picked = letters[labels[_tool_choice(lps)]]
    return dataclasses.replace(pred, option_logprobs=ours, output=picked)


def align(row: Row, item: Item) -> Prediction | str:
    """The row's prediction with log-probabilities in our option order (and the picked letter for letter tasks)."""
    pred = row.prediction
    if not pred.option_logprobs:
        return pred
    if row.choice_labels:
        return _by_label(row, pred)
    lps = pred.option_logprobs
    picked = _tool_choice(lps)
    if row.choices is not None and item.options:
        ours = reorder(row.choices, lps, item.options)
        if isinstance(ours, str):
            return ours
        picked = next(i for i, o in enumerate(item.options) if _keys(o) & _keys(row.choices[picked]))
        lps = ours
    elif item.options and len(lps) != len(item.options):
        return f"{len(lps)} log-probabilities for {len(item.options)} options"
    elif get_task(pred.task).mode == "generate":
        return "log-probabilities without option texts cannot be matched to our options"
    if get_task(pred.task).mode == "generate":
        return dataclasses.replace(pred, option_logprobs=lps, output=chr(ord("A") + picked))
    return dataclasses.replace(pred, option_logprobs=lps)
