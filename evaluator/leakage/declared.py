"""Declared benchmark exposure: a model card that names a benchmark's data among its training data flags that
benchmark's cells without any probe (signal `declared`).

A declaration is a list of names; a name matches a task when, compared by `key` (case folded, letters and digits
only, a parenthesised remark dropped), it equals the task's name, one of its aliases, its benchmark family, or its
dataset name for the cell's language ("FLORES-200", "flores200" and "Flores 200" all name FLORES-200; "XL-Sum"
names "XLSum" and "XL-Sum (Batayan)"). The flag covers the whole cell (no item list): the card says the data was
seen, not which items.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from evaluator.leakage import LeakSignal
from evaluator.spec import TaskSpec

DECLARED = "declared"
MAX_NAMES = 50
"""Names a declaration may hold."""
MAX_NAME_CHARS = 80
MAX_TEXT_CHARS = 2000
"""Length limits of one declared name and of the card's training-data text."""


def key(name: str) -> str:
    """A name compared: the parenthesised remark dropped, case folded, letters and digits only."""
    return "".join(c for c in re.sub(r"\(.*?\)", "", name).casefold() if c.isalnum())


def task_keys(task: TaskSpec, lang: str) -> set[str]:
    """The keys a declaration may name a task's cell in `lang` by."""
    names = [task.name, task.family, *task.aliases]
    if task.dataset.get(lang):
        names.append(task.dataset[lang])
    return {k for k in map(key, names) if k}


def known_keys(tasks: Iterable[TaskSpec]) -> set[str]:
    """Every key some task's cell answers to (to refuse a declaration that names nothing known)."""
    return {k for t in tasks for lang in t.langs for k in task_keys(t, lang)}


def check_declaration(names: Sequence[str], text: str | None, tasks: Iterable[TaskSpec]) -> list[str]:
    """Problems with a declaration, each naming the field: a name that is empty, too long or matches no task,
    family or dataset; too many names; a text too long or holding control characters. Empty: acceptable."""
    problems = []
    known = known_keys(tasks)
    if len(names) > MAX_NAMES:
        problems.append(f"declared_data: {len(names)} names, at most {MAX_NAMES}")
    for i, name in enumerate(names):
        where = f"declared_data[{i}]"
        if not isinstance(name, str) or not key(name):
            problems.append(f"{where}: expected a benchmark, task or dataset name, got {name!r}")
        elif len(name) > MAX_NAME_CHARS:
            problems.append(f"{where}: longer than {MAX_NAME_CHARS} characters")
        elif key(name) not in known:
            problems.append(f"{where}: {name!r} names no task, benchmark family or dataset")
    if text is not None:
        if not isinstance(text, str):
            problems.append(f"training_data: expected text, got {type(text).__name__}")
        elif len(text) > MAX_TEXT_CHARS:
            problems.append(f"training_data: longer than {MAX_TEXT_CHARS} characters")
        elif any(ord(c) < 32 and c not in "\n\t" for c in text):
            problems.append("training_data: holds control characters")
    return problems


def declared_signals(model_id: str, names: Sequence[str], cells: Iterable[Sequence[str]],
                     tasks: Mapping[str, TaskSpec]) -> list[LeakSignal]:
    """A `declared` signal on each of the model's (task, lang, prompt_lang) cells whose task a declared name
    matches; cells of unknown tasks are skipped."""
    wanted = {key(n): n for n in names if isinstance(n, str) and key(n)}
    out = []
    for task_name, lang, prompt_lang in cells:
        task = tasks.get(task_name)
        if task is None:
            continue
        hits = sorted(wanted[k] for k in task_keys(task, lang) if k in wanted)
        if hits:
            out.append(LeakSignal(model_id=model_id, task=task_name, lang=lang, prompt_lang=prompt_lang,
                                  signal=DECLARED, flagged=True,
                                  detail="the model card declares " + ", ".join(hits) + " in its training data"))
    return out
