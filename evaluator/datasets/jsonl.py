"""The generic loader of a task declared with a `data:` block (`loader: jsonl`): one JSON Lines file per language,
its fields named in the task file, so a new task on a simple file needs no loader code.

    data:
      file: demo/capitals/{lang}.jsonl   # under the data directory
      id: id                             # the item id
      gold: answer                       # the gold answer (a string, number or list)
      inputs: [question, choice1, choice2]  # the fields the prompt fills
      options: [choice1, choice2]        # optional: the answer options, in order
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Iterator

from evaluator.datasets.base import Loader, item_key, make_item, read_jsonl
from evaluator.spec import Item, TaskSpec


@functools.lru_cache(maxsize=None)
def _loader(name: str, file: str, id_field: str, gold: str, inputs: tuple[str, ...], options: tuple[str, ...]
            ) -> Loader:
    def files(lang: str) -> tuple[str, ...]:
        return (file.replace("{lang}", lang),)

    def read(data_dir: Path, lang: str) -> Iterator[Item]:
        for row in read_jsonl(Path(data_dir) / files(lang)[0]):
            values = {field: row.req(field, (str, int, float)) for field in inputs}
            choices = tuple(str(row.req(field, (str, int, float))) for field in options) or None
            yield make_item(f"jsonl:{name}", lang, item_key(row, id_field), values,
                            row.req(gold, (str, int, float, list)), required=inputs, options=choices, task=name)

    return Loader(f"jsonl:{name}", files, read)


def loader(task: TaskSpec) -> Loader:
    """The loader of a task declared with `data:` (fields checked when the task file was read)."""
    data = task.data
    return _loader(task.name, data["file"], data["id"], data["gold"], tuple(data["inputs"]),
                   tuple(data.get("options", ())))
