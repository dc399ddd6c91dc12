"""The one registry of every task and family: `TASKS` by id, `FAMILIES` by name, aliases, and lookups with
close-match hints. Tasks and families are declared in `evaluator/tasks/` (and task folders named by the
environment: `evaluator.tasks.task_dirs`); language entries add their task cells here."""
from __future__ import annotations

import dataclasses
import difflib
from typing import Any, Mapping

from evaluator.languages import LANG_NAMES, LANGUAGES, Language, LanguageError
from evaluator.spec import Family, TaskSpec
from evaluator.tasks import TaskError, load_tasks

_CELL_FIELDS = {"dataset", "labels", "chance", "headline", "trim_tokens"}


def _add_cell(task: TaskSpec, lang: Language, cell: Mapping[str, Any]) -> TaskSpec:
    """`task` with `lang` added as the language entry declares it (dataset name, labels, chance, headline)."""
    where = f"{lang.source}: tasks.{task.name}"
    if not isinstance(cell, Mapping) or set(cell) - _CELL_FIELDS:
        raise LanguageError(f"{where}: expected a mapping with fields among {', '.join(sorted(_CELL_FIELDS))}")
    if lang.code in task.langs:
        raise LanguageError(f"{where}: task {task.name!r} already has language {lang.code!r}")
    code = lang.code
    changes: dict[str, Any] = {"langs": (*task.langs, code)}
    if "dataset" in cell:
        changes["dataset"] = {**task.dataset, code: str(cell["dataset"])}
    if "labels" in cell:
        changes["labels"] = {**task.labels, code: tuple(str(x) for x in cell["labels"])}
    elif task.labels:
        raise LanguageError(f"{where}: labels: missing (task {task.name!r} has a closed label set per language)")
    if "headline" in cell:
        if cell["headline"] not in task.metrics:
            raise LanguageError(f"{where}: headline: {cell['headline']!r} is not one of {', '.join(task.metrics)}")
        changes["headline"] = {**task.headline, code: cell["headline"]}
    if "trim_tokens" in cell:
        changes["trim_tokens"] = {**task.trim_tokens, code: int(cell["trim_tokens"])}
    if "chance" in cell:
        old = task.chance if isinstance(task.chance, Mapping) else {x: task.chance for x in task.langs}
        changes["chance"] = {**old, code: float(cell["chance"])}
    return dataclasses.replace(task, **changes)


def _with_language_cells(tasks: dict[str, TaskSpec]) -> dict[str, TaskSpec]:
    """The declared tasks plus the cells that language entries add (`tasks:` in an entry)."""
    out = dict(tasks)
    for lang in LANGUAGES.values():
        for name, cell in lang.tasks.items():
            if name not in out:
                hint = difflib.get_close_matches(str(name), list(out), n=1)
                raise LanguageError(f"{lang.source}: tasks.{name}: unknown task"
                                    + (f"; did you mean {hint[0]!r}?" if hint else ""))
            out[name] = _add_cell(out[name], lang, cell)
    return out


_families, _declared = load_tasks()
TASKS: dict[str, TaskSpec] = _with_language_cells(_declared)
"""Every task by id, in display order (family by family)."""
FAMILIES: dict[str, Family] = _families
"""Every family by name, in display order."""
FAMILY_TASKS: dict[str, tuple[str, ...]] = {f: tuple(t.name for t in TASKS.values() if t.family == f) for f in FAMILIES}
"""Task ids of each family, in display order."""
BOARDS: dict[str, str] = {f.title: f.name for f in FAMILIES.values() if f.board}
"""Families with a leaderboard tab: display title → family name."""
ALIASES: dict[str, str] = {a: t.name for t in TASKS.values() for a in t.aliases}

PROMPT_LANGS = ("en", "native")

_overlap = set(ALIASES) & set(TASKS)
assert not _overlap, f"aliases shadow task ids: {_overlap}"


def resolve(name: str) -> str:
    """Canonical task id for a task id or alias; KeyError with a hint otherwise."""
    if name in TASKS:
        return name
    if name in ALIASES:
        return ALIASES[name]
    hint = difflib.get_close_matches(name, [*TASKS, *ALIASES], n=1)
    raise KeyError(f"unknown task {name!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))


def get_task(name: str) -> TaskSpec:
    """The TaskSpec for a task id or alias."""
    return TASKS[resolve(name)]


def select(names: str | None = None, langs: str | None = None) -> list[tuple[TaskSpec, str]]:
    """(task, lang) cells for a comma list of task ids, aliases or families, filtered by a comma list of langs."""
    wanted: list[str] = []
    for part in (names or ",".join(FAMILIES)).split(","):
        part = part.strip()
        if not part:
            continue
        wanted.extend(FAMILY_TASKS[part] if part in FAMILIES else (resolve(part),))
    keep = {x.strip() for x in langs.split(",")} if langs else None
    return [(TASKS[n], lang) for n in dict.fromkeys(wanted) for lang in TASKS[n].langs if keep is None or lang in keep]


def family_langs(family: str) -> tuple[str, ...]:
    """Languages any task of a family exists in, in display order (for pages' language choices)."""
    have = {lang for t in TASKS.values() if t.family == family for lang in t.langs}
    return tuple(code for code in [*LANG_NAMES, *sorted(have - set(LANG_NAMES))] if code in have)


def task_langs(name: str) -> tuple[str, ...]:
    """Languages of one task (id or alias), in display order."""
    langs = get_task(name).langs
    return tuple(code for code in [*LANG_NAMES, *sorted(set(langs) - set(LANG_NAMES))] if code in langs)


__all__ = ["ALIASES", "BOARDS", "FAMILIES", "FAMILY_TASKS", "LANGUAGES", "LANG_NAMES", "PROMPT_LANGS", "TASKS",
           "TaskError", "family_langs", "get_task", "resolve", "select", "task_langs"]
