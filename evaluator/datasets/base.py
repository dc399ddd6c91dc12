"""Shared loader plumbing: the `DatasetError`, JSON Lines reading with file:line errors, and the `Loader` record."""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from evaluator.datasets import validate
from evaluator.plugins import Registry
from evaluator.registry import TASKS
from evaluator.spec import Item


class DatasetError(Exception):
    """A dataset file is missing or malformed; the message names the file (and line and field when known)."""


@dataclass(frozen=True)
class Row:
    """One parsed JSON Lines record with where it came from, so every complaint can name file, line and field."""

    path: Path
    """File the record was read from."""
    line: int
    """1-based line number in that file."""
    data: Mapping[str, Any]
    """The decoded JSON object."""

    def where(self, field: str) -> str:
        """`FILE:LINE: field` prefix for error messages."""
        return f"{self.path}:{self.line}: {field}"

    def get(self, field: str, default: Any = None) -> Any:
        """The field's value, or `default` when absent."""
        return self.data.get(field, default)

    def req(self, field: str, kind: type | tuple[type, ...] = str) -> Any:
        """The field's value; DatasetError when it is absent, null or not of `kind`."""
        if field not in self.data or self.data[field] is None:
            raise DatasetError(f"{self.where(field)}: missing")
        value = self.data[field]
        kinds = _kinds(kind)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise DatasetError(f"{self.where(field)}: expected {_names(kind)}, got {type(value).__name__}")
        return value

    def fail(self, field: str, problem: str) -> DatasetError:
        """A DatasetError for `field` of this record."""
        return DatasetError(f"{self.where(field)}: {problem}")


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _names(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _kinds(kind))


def read_jsonl(path: Path) -> Iterator[Row]:
    """Yield each non-blank line of a UTF-8 JSON Lines file as a Row; DatasetError on a bad line.

    A byte-order mark at the start of the file is skipped; BOMs inside strings are kept (offsets may count them).
    """
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise DatasetError(f"{path}: file not found") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise DatasetError(f"{path}:{number}: encoding: invalid UTF-8 at byte {exc.start}") from None
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: json: invalid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(data, dict):
                raise DatasetError(f"{path}:{number}: json: expected an object, got {type(data).__name__}")
            yield Row(path, number, data)


def item_key(row: Row, field: str = "id") -> str:
    """The record's own id as a string; DatasetError when absent."""
    return str(row.req(field, (str, int)))


@dataclass(frozen=True)
class Loader:
    """A dataset loader: which files it reads for a language and how it turns them into canonical items."""

    key: str
    """Key in `LOADERS`, as named by `TaskSpec.loader` (e.g. "bhasa.sentiment")."""
    files: Callable[[str], tuple[str, ...]]
    """Paths (relative to the data directory) the loader reads for a language."""
    read: Callable[[Path, str], Iterator[Item]]
    """Yields the items of one language from a data directory."""

    def __call__(self, data_dir: Path, lang: str) -> Iterator[Item]:
        """Items for `lang` read from `data_dir`."""
        return self.read(Path(data_dir), lang)


LOADERS: Registry[Loader] = Registry("dataset loader")
"""Loader by the key a task names (`TaskSpec.loader`); each loader module registers its own."""


def register_loader(key: str, files: Callable[[str], tuple[str, ...]]
                    ) -> Callable[[Callable[[Path, str], Iterator[Item]]], Callable[[Path, str], Iterator[Item]]]:
    """Decorator: register the decorated `read(data_dir, lang)` as the loader `key` reading `files(lang)`."""
    def add(read: Callable[[Path, str], Iterator[Item]]) -> Callable[[Path, str], Iterator[Item]]:
        LOADERS.add(key, Loader(key, files, read))
        return read
    return add


@functools.cache
def task_name(loader_key: str) -> str:
    """The registry task id that uses this loader (every loader serves exactly one task)."""
    for spec in TASKS.values():
        if spec.loader == loader_key:
            return spec.name
    raise KeyError(f"no task in the registry uses loader {loader_key!r}")


def make_item(
    loader_key: str,
    lang: str,
    item_id: str,
    inputs: Mapping[str, Any],
    gold: Any,
    *,
    required: Iterable[str],
    options: tuple[str, ...] | None = None,
    metadata: Mapping[str, Any] | None = None,
    warnings: Iterable[str] = (),
    aliases: Mapping[str, str] | None = None,
    task: str | None = None,
) -> Item:
    """A canonical Item with the generic text checks (empty prompt fields, U+FFFD, BOM) added to `warnings`.

    `aliases` adds input fields that repeat another (new name → existing name) after the checks, so a defect is
    reported once, under the original field. `task`: the task id when the loader serves one task declared with
    `data:` (`evaluator.datasets.jsonl`); otherwise the task that uses `loader_key`.
    """
    found = [*warnings, *validate.text_warnings(inputs, required)]
    inputs = {**inputs, **{new: inputs[old] for new, old in (aliases or {}).items()}}
    return Item(
        task=task or task_name(loader_key), lang=lang, item_id=item_id, inputs=inputs, gold=gold, options=options,
        metadata=dict(metadata or {}), warnings=tuple(dict.fromkeys(found)),
    )
