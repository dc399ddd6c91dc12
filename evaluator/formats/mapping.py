"""Mapping file rows onto our items: by id, else by the input texts; then aligning option log-probabilities.

A row is matched by content when its input texts are ours and no field our item also has (premise, hypothesis,
context, question...) says something else: the same premise with another hypothesis is not our item. An id that
is the tool's own numbering (SEA-HELM integers, lm-eval `doc_id`) is never taken for ours. Rows that cannot be
matched are reported once per file (a count and the first five); rows whose options cannot be aligned with ours
with certainty are refused with FILE:LINE (the file is not imported), never guessed.
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

from evaluator.formats.align import align
from evaluator.formats.pacute_bench import check_rows_version
from evaluator.formats.parsed import ParsedRows, Row
from evaluator.registry import get_task
from evaluator.spec import Item, Prediction

NATIVE_FIELDS = ("text_tl", "prompt_tl", "question_translated")
"""Input fields holding the native-language prompt: a row matched on one was asked natively."""

FIRST_LINE_KEPT = frozenset({"pacute-bench"})
"""Formats whose repeated item with different outputs is a retry the tool wrote: the first line is kept and the
others are listed in a warning. pacute-bench writes its rows sorted by id with a stable sort
(`save_inference_results`, src/pacute_bench/evaluators/base.py @ dcab16b), so the first of equal ids is the first
one it produced; other formats refuse such a file as ambiguous."""

FIELD_ALIASES = {"sentence1": "premise", "sentence2": "hypothesis", "premises": "premise"}
"""File field names that are one of our input fields under another name (SEA-HELM NLI, XCOPA templates)."""

IDENTIFYING = ("premise", "hypothesis", "context", "question", "text", "conclusion", "correct", "wrong",
               "choice1", "choice2", "text_en", "text_tl")
"""Input fields that identify an item: a row naming one of them with another value is another item."""

_FREE_VALUES = {"cause", "effect"}
"""Values never compared: XCOPA's question word is corrected in our items (cross-language consensus)."""

MAX_EXAMPLES = 5
"""Unmatched rows are reported as a count plus this many examples."""


def content_hash(text: str) -> str:
    """Hash of a text after NFC, whitespace collapsing and case folding (robust to re-serialisation)."""
    norm = " ".join(unicodedata.normalize("NFC", text).split()).casefold()
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:24]


def _identifying(fields: dict) -> dict[str, str]:
    """Our field name → hash for the row's identifying fields (free values such as cause/effect left out)."""
    out = {}
    for name, value in fields.items():
        ours = FIELD_ALIASES.get(name, name)
        if ours in IDENTIFYING and isinstance(value, str) and value.strip().casefold() not in _FREE_VALUES:
            out[ours] = content_hash(value)
    return out


@dataclass
class Cell:
    """Our items of one (task, lang), indexed by id and by the hash of every string input."""

    items: dict[str, Item]
    by_hash: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Hash → every (item_id, field) holding that text."""
    input_hashes: dict[str, dict[str, str]] = field(default_factory=dict)
    """Item id → field → hash of its string inputs."""

    @classmethod
    def build(cls, items: list[Item]) -> "Cell":
        cell = cls({it.item_id: it for it in items})
        for it in items:
            hashes = cell.input_hashes.setdefault(it.item_id, {})
            for key, value in it.inputs.items():
                if isinstance(value, str) and value.strip():
                    hashes[key] = h = content_hash(value)
                    cell.by_hash.setdefault(h, []).append((it.item_id, key))
        return cell

    def contradiction(self, item_id: str, row_hashes: dict[str, str]) -> str | None:
        """The first identifying field of the row (see `_identifying`) whose text differs from our item's."""
        ours = self.input_hashes.get(item_id, {})
        for name, h in row_hashes.items():
            if name in ours and ours[name] != h:
                return name
        return None

    def support(self, row: Row) -> Counter:
        """Item id → how many of the row's distinct texts it holds."""
        support: Counter = Counter()
        for t in dict.fromkeys(row.texts):
            if t and t.strip():
                for item_id in {i for i, _ in self.by_hash.get(content_hash(t), [])}:
                    support[item_id] += 1
        return support

    def candidates(self, support: Counter, row_hashes: dict[str, str]) -> list[str]:
        """The best-supported items the row's texts name that its identifying fields do not contradict."""
        for n in sorted(set(support.values()), reverse=True):
            alive = sorted(i for i, k in support.items() if k == n and self.contradiction(i, row_hashes) is None)
            if alive:
                return alive
        return []

    def native_field(self, row: Row, item_id: str) -> str | None:
        """Our field the row's first matching text sits in (tells a native-language prompt)."""
        for t in row.texts:
            for i, f in self.by_hash.get(content_hash(t), []) if t and t.strip() else []:
                if i == item_id:
                    return f
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


def locate(row: Row, cell: Cell) -> tuple[str | None, str]:
    """(our item id, how) for a row, or (None, why not)."""
    pred = row.prediction
    if row.own_id and not row.texts and not row.fields:  # only its id to go by (native rows): what follows finds
        item = cell.items.get(pred.item_id)              # no text support, contradiction or candidate then
        return (item.item_id, "id") if item is not None else (
            None, f"id {pred.item_id!r}: no id or input text matches one of our items")
    by_id = cell.items.get(pred.item_id) if row.own_id else None
    row_hashes = _identifying(row.fields)
    support = cell.support(row) if row.texts else Counter()
    clash = cell.contradiction(by_id.item_id, row_hashes) if by_id is not None else None
    if by_id is not None and clash is None and (not support or support[by_id.item_id] == max(support.values())):
        return by_id.item_id, "id"  # its texts name no item better than the one its id names
    found = cell.candidates(support, row_hashes)
    if by_id is not None:
        if clash is None and by_id.item_id in found:
            return by_id.item_id, "id"
        if len(found) == 1:
            return found[0], "content"  # its id names another item than its text: the text decides
        return None, f"id {pred.item_id!r} is ours but its {clash or 'input text'} differs from our item"
    if len(found) == 1:
        return found[0], "content"
    if found:
        return None, (f"its input text matches {len(found)} of our items ({', '.join(map(repr, found[:3]))}); "
                      "cannot tell which")
    label = f"id {pred.item_id!r}" if row.own_id else "row"
    return None, f"{label}: no id or input text matches one of our items"


def _report_unmatched(parsed: ParsedRows, unmatched: list[tuple[int, str, str]]) -> None:
    """One warning for all unmatched rows of a file: the count and the first examples."""
    if not unmatched:
        return
    cells = sorted({c for _, c, _ in unmatched})
    examples = "; ".join(f"line {line}: {why}" for line, _, why in unmatched[:MAX_EXAMPLES])
    more = f" (first {MAX_EXAMPLES}: {examples})" if len(unmatched) > MAX_EXAMPLES else f" ({examples})"
    parsed.warn(unmatched[0][0], "id", f"{len(unmatched)} row(s) of {', '.join(cells)} not imported: they match "
                                       f"none of our items{more}")


def _id_only(row: Row, cell: Cell) -> bool:
    """Whether a row is found by its id alone, as one of our items, and keeps everything (native rows): no input
    text or field to weigh, no gold letter to reorder by, no log-probabilities to align, its own line. `map_rows`
    then takes its prediction as it is (tests/unit/test_native_fast.py: as the full path would)."""
    pred = row.prediction
    return (row.own_id and not (row.texts or row.fields or row.label or pred.option_logprobs)
            and pred.line == row.line and pred.item_id in cell.items)


def map_rows(parsed: ParsedRows, index: ItemIndex) -> list[Prediction]:
    """Our-item predictions for the parsed rows; unmatched rows go to `parsed.warnings`, rows that cannot be
    aligned with certainty to `parsed.errors`."""
    out: list[Prediction] = []
    seen: dict[tuple, tuple[int, Prediction]] = {}
    unavailable: set[tuple[str, str]] = set()
    unmatched: list[tuple[int, str, str]] = []
    relinked = 0
    per_run: Counter = Counter()
    for row in parsed.rows:
        pred = row.prediction
        cell = index.cell(pred.task, pred.lang)
        if isinstance(cell, str):
            if (pred.task, pred.lang) not in unavailable:
                unavailable.add((pred.task, pred.lang))
                parsed.warn(None, None, f"{cell}; {pred.task}/{pred.lang} rows not imported")
            continue
        if _id_only(row, cell):  # what `locate`, `native_field` and `align` give it, without asking them
            item_id, prompt_lang, order, aligned = pred.item_id, pred.prompt_lang, pred.order, pred
        else:
            item_id, how = locate(row, cell)
            if item_id is None:
                unmatched.append((row.line, f"{pred.task}/{pred.lang}", how))
                continue
            relinked += how == "content" and row.own_id and pred.item_id in cell.items
            fld = cell.native_field(row, item_id)
            prompt_lang = "native" if fld in NATIVE_FIELDS else pred.prompt_lang
            item = cell.items[item_id]
            order = pred.order
            if row.label and get_task(pred.task).both_orders and item.gold in ("A", "B") and row.label != item.gold:
                order = "ba"  # the file presented the options swapped (its gold letter is the other one)
            unchanged = (pred.item_id, pred.prompt_lang, pred.line, pred.order) == (item_id, prompt_lang, row.line,
                                                                                    order)
            changes = {} if unchanged else {k: v for k, v in (("item_id", item_id), ("prompt_lang", prompt_lang),
                                                              ("line", row.line), ("order", order))
                                            if getattr(pred, k) != v}
            if changes:  # most rows already carry our id, prompt language, line and order: no copy for them
                pred = dataclasses.replace(pred, **changes)
                row = dataclasses.replace(row, prediction=pred)
            aligned = align(row, item)
            if isinstance(aligned, str):
                parsed.error(row.line, "options", f"item {item_id!r}: {aligned}; the row cannot be aligned with our "
                                                  "options with certainty, so the file is not imported")
                continue
        key = (pred.task, pred.lang, prompt_lang, item_id, pred.run, order)
        if key in seen:
            first, first_pred = seen[key]
            same = (first_pred.output, first_pred.option_logprobs) == (aligned.output, aligned.option_logprobs)
            retry = not same and parsed.format in FIRST_LINE_KEPT
            (parsed.warn if same or retry else parsed.error)(
                row.line, "id", f"duplicate of line {first} (item {item_id!r}, run {pred.run}); " +
                ("identical, the first row is kept" if same else
                 f"the outputs differ: line {first} is kept, line {row.line} is not imported (a retry)" if retry
                 else "the outputs differ, so the file is ambiguous"))
            continue
        seen[key] = (row.line, aligned)
        per_run[(pred.task, pred.lang, prompt_lang, pred.run)] += 1
        out.append(aligned)
    refused = check_rows_version(parsed, len(unmatched), index) if parsed.format == "pacute-bench" else None
    if refused:  # the file is another suite version: none of its rows, the rest of a folder still imports
        parsed.warn(unmatched[0][0], "id", refused)
        parsed.other_version = parsed.rows[0].prediction.task
        return []
    _report_unmatched(parsed, unmatched)
    if relinked:
        parsed.warn(None, "id", f"{relinked} row(s) carry an id of another item than their input text; "
                                "matched by the text")
    for (task, lang, prompt_lang, run), n in sorted(per_run.items()):
        cell = index.cell(task, lang)
        total = len(cell.items) if not isinstance(cell, str) else 0
        if n < total:
            parsed.warn(None, None, f"incomplete run: {task}/{lang}/{prompt_lang} run {run} has {n} of {total} items")
    return [] if parsed.errors else out  # a file with a row that cannot be aligned is not imported at all
