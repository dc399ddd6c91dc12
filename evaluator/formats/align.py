"""Aligning a file's option log-probabilities with our item's options: by text, or by label, never by position.

- PACUTE option texts are compared exactly after NFC (only the surrounding whitespace of a continuation is
  dropped): "Rizál" and "rizál", or "BILANG" and "bILANG", are two options and keep their own log-probabilities
  (pacute-bench writes each option as the item holds it).
- Other tasks' option texts are compared after NFC and whitespace collapsing, with the first character
  case-insensitive (lm-eval's XCOPA `convert_choice` lower-cases it) and a leading cause/effect connector removed
  (cloze templates that glue "karena"/"because" to the choice).
- Every text of the file must be one of our options and each of our options must be in the file as often as in
  our item; equal texts are paired in order (they are one answer).
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


EXACT_FAMILIES = frozenset({"pacute"})
"""Task families whose option texts are matched exactly after NFC (no case or whitespace folding)."""


def option_key(text: str, *, exact: bool = False) -> str:
    """Comparison key of an option text: NFC with surrounding whitespace removed (the space that joins a
    continuation to its prompt); unless `exact`, inner whitespace collapsed and the first character case-folded
    (the cloze rule of lm-eval's XCOPA)."""
    t = unicodedata.normalize("NFC", str(text))
    if exact:
        return t.strip()
    t = " ".join(t.split())
    return t[:1].casefold() + t[1:]


def _without_connector(key: str) -> str:
    for c in CONNECTORS:
        if key.casefold().startswith(c + " ") and len(key) > len(c) + 1:
            return option_key(key[len(c) + 1:])
    return key


def exact_options(task: str) -> bool:
    """Whether `task`'s options are matched exactly after NFC (PACUTE) rather than by the cloze rule."""
    try:
        return get_task(task).family in EXACT_FAMILIES
    except KeyError:
        return False


def permutation(choices: tuple, options: tuple[str, ...], *, exact: bool = False) -> tuple[int, ...] | str:
    """For each of our `options`, the index of the file's choice with the same text (equal texts in both are
    paired in order: they are one answer), or why no such pairing exists. `exact`: NFC only (`option_key`)."""
    if len(choices) != len(options):
        return f"{len(choices)} options in the file, {len(options)} in our item"
    ours = [option_key(o, exact=exact) for o in options]
    bare = {} if exact else {_without_connector(k): k for k in ours}
    pool: dict[str, list[int]] = {}
    for j, c in enumerate(choices):
        k = option_key(c, exact=exact)
        match = k if k in ours else bare.get(_without_connector(k)) if bare else None
        if match is None:
            return f"the file's option {str(c)[:40]!r} is not one of ours"
        pool.setdefault(match, []).append(j)
    perm = []
    for o, k in zip(options, ours):
        if not pool.get(k):
            return f"our option {o[:40]!r} is not among the file's options (or fewer times)"
        perm.append(pool[k].pop(0))
    return tuple(perm)


def reorder(choices: tuple, logprobs: tuple[float, ...], options: tuple[str, ...], *,
            exact: bool = False) -> tuple[float, ...] | str:
    """`logprobs` (in the file's `choices` order) in the order of our `options`, or why that is impossible."""
    if len(choices) != len(logprobs):
        return f"{len(choices)} options but {len(logprobs)} log-probabilities"
    perm = permutation(choices, options, exact=exact)
    return perm if isinstance(perm, str) else tuple(logprobs[j] for j in perm)


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
        if len(row.choices) != len(lps):
            return f"{len(row.choices)} options but {len(lps)} log-probabilities"
        perm = permutation(row.choices, item.options, exact=exact_options(pred.task))
        if isinstance(perm, str):
            return perm
        picked = perm.index(picked)
        lps = tuple(lps[j] for j in perm)
    elif item.options and len(lps) != len(item.options):
        return f"{len(lps)} log-probabilities for {len(item.options)} options"
    elif get_task(pred.task).mode == "generate":
        return "log-probabilities without option texts cannot be matched to our options"
    if get_task(pred.task).mode == "generate":
        return dataclasses.replace(pred, option_logprobs=lps, output=chr(ord("A") + picked))
    return dataclasses.replace(pred, option_logprobs=lps)
