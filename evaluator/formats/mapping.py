"""Mapping file rows onto our items: by id, then by a content hash of the input where ids differ.

Unmatched rows, duplicates and incomplete runs become warnings naming file and line; nothing is dropped silently.
A content match on a native-language field (e.g. PACUTE `text_tl`) also tells the prompt language.
"""
from __future__ import annotations

import dataclasses
import hashlib
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from evaluator.formats.parsed import ParsedRows, Row
from evaluator.registry import get_task
from evaluator.spec import Item, Prediction

NATIVE_FIELDS = ("text_tl", "prompt_tl", "question_translated")
"""Input fields holding the native-language prompt: a row matched on one was asked natively."""


def content_hash(text: str) -> str:
    """Hash of a text after NFC, whitespace collapsing and case folding (robust to re-serialisation)."""
    norm = " ".join(unicodedata.normalize("NFC", text).split()).casefold()
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:24]


@dataclass
class Cell:
    """Our items of one (task, lang), indexed by id and by the hash of every string input."""

    items: dict[str, Item]
    by_hash: dict[str, tuple[str, str] | None] = field(default_factory=dict)
    """Hash → (item_id, field); None when several items share the text (ambiguous)."""

    @classmethod
    def build(cls, items: list[Item]) -> "Cell":
        cell = cls({it.item_id: it for it in items})
        for it in items:
            for key, value in it.inputs.items():
                if isinstance(value, str) and value.strip():
                    h = content_hash(value)
                    prev = cell.by_hash.get(h, ())
                    if prev == ():
                        cell.by_hash[h] = (it.item_id, key)
                    elif prev is not None and prev[0] != it.item_id:
                        cell.by_hash[h] = None
        return cell

    def by_content(self, texts: tuple[str, ...]) -> tuple[str, str] | None:
        for t in texts:
            hit = self.by_hash.get(content_hash(t)) if t and t.strip() else None
            if hit:
                return hit
        return None


class ItemIndex:
    """Lazily loaded cells of our items; `loader(task, lang, data_dir=...)` defaults to `datasets.load_items`."""

    def __init__(self, data_dir: Path | str | None = None, loader: Callable | None = None):
        self.data_dir = data_dir
        self._loader = loader
        self._cells: dict[tuple[str, str], Cell | str] = {}

    def cell(self, task: str, lang: str) -> Cell | str:
        """The cell, or the reason it cannot be loaded."""
        key = (task, lang)
        if key not in self._cells:
            loader = self._loader
            if loader is None:
                from evaluator.datasets import load_items as loader
            try:
                self._cells[key] = Cell.build(loader(task, lang, data_dir=self.data_dir))
            except Exception as e:  # DatasetError, missing files: reported per file, never fatal
                self._cells[key] = f"items of {task}/{lang} unavailable: {e}"
        return self._cells[key]


def _align(row: Row, item: Item) -> Prediction | str:
    """Reorder a log-probability row's options to ours (by text); letter tasks get the argmax letter as output."""
    pred = row.prediction
    if not pred.option_logprobs:
        return pred
    lps = pred.option_logprobs
    if row.choices and item.options:
        by_text = {c.strip(): lp for c, lp in zip(row.choices, lps)}
        missing = [o for o in item.options if o.strip() not in by_text]
        if missing or len(row.choices) != len(item.options):
            return f"options differ from ours (e.g. {missing[0][:40]!r} not offered)" if missing else \
                f"{len(row.choices)} options in the file, {len(item.options)} in our item"
        lps = tuple(by_text[o.strip()] for o in item.options)
    if get_task(pred.task).mode == "generate":
        best = max(range(len(lps)), key=lps.__getitem__)
        return dataclasses.replace(pred, option_logprobs=lps, output=chr(ord("A") + best))
    return dataclasses.replace(pred, option_logprobs=lps)


def map_rows(parsed: ParsedRows, index: ItemIndex) -> list[Prediction]:
    """Our-item predictions for the parsed rows; problems go to `parsed.warnings`."""
    out: list[Prediction] = []
    seen: dict[tuple, tuple[int, Prediction]] = {}
    unavailable: set[tuple[str, str]] = set()
    per_run: Counter = Counter()
    for row in parsed.rows:
        pred = row.prediction
        cell = index.cell(pred.task, pred.lang)
        if isinstance(cell, str):
            if (pred.task, pred.lang) not in unavailable:
                unavailable.add((pred.task, pred.lang))
                parsed.warn(None, None, f"{cell}; {pred.task}/{pred.lang} rows not imported")
            continue
        hit = cell.by_content(row.texts)
        if pred.item_id in cell.items:
            item_id = pred.item_id
            fld = hit[1] if hit and hit[0] == item_id else None
        elif hit:
            item_id, fld = hit
        else:
            parsed.warn(row.line, "id", f"item {pred.item_id!r} not found in {pred.task}/{pred.lang} "
                                        "(no id or input text matches ours); row not imported")
            continue
        prompt_lang = "native" if fld in NATIVE_FIELDS else pred.prompt_lang
        item = cell.items[item_id]
        order = pred.order
        if row.label and get_task(pred.task).both_orders and item.gold in ("A", "B") and row.label != item.gold:
            order = "ba"  # the file presented the options swapped (its gold letter is the other one)
        pred = dataclasses.replace(pred, item_id=item_id, prompt_lang=prompt_lang, line=row.line, order=order)
        aligned = _align(dataclasses.replace(row, prediction=pred), item)
        if isinstance(aligned, str):
            parsed.warn(row.line, "arguments", f"item {item_id!r}: {aligned}; row not imported")
            continue
        key = (pred.task, pred.lang, prompt_lang, item_id, pred.run, order)
        if key in seen:
            first, first_pred = seen[key]
            same = (first_pred.output, first_pred.option_logprobs) == (aligned.output, aligned.option_logprobs)
            (parsed.warn if same else parsed.error)(
                row.line, "id", f"duplicate of line {first} (item {item_id!r}, run {pred.run}); " +
                ("identical, the first row is kept" if same else "the outputs differ, so the file is ambiguous"))
            continue
        seen[key] = (row.line, aligned)
        per_run[(pred.task, pred.lang, prompt_lang, pred.run)] += 1
        out.append(aligned)
    for (task, lang, prompt_lang, run), n in sorted(per_run.items()):
        cell = index.cell(task, lang)
        total = len(cell.items) if not isinstance(cell, str) else 0
        if n < total:
            parsed.warn(None, None, f"incomplete run: {task}/{lang}/{prompt_lang} run {run} has {n} of {total} items")
    return out
