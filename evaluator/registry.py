"""The one registry of every task: `TASKS` by id, aliases, and lookups with close-match hints."""
from __future__ import annotations

import difflib

from evaluator.spec import TaskSpec
from evaluator.tasks import bhasa, cultural, lindsea, pacute

TASKS: dict[str, TaskSpec] = {t.name: t for mod in (bhasa, lindsea, cultural, pacute) for t in mod.TASKS}
ALIASES: dict[str, str] = {a: t.name for t in TASKS.values() for a in t.aliases}
FAMILIES: dict[str, tuple[str, ...]] = {}
for _t in TASKS.values():
    FAMILIES[_t.family] = FAMILIES.get(_t.family, ()) + (_t.name,)

LANG_NAMES = {"id": "Indonesian", "vi": "Vietnamese", "th": "Thai", "ta": "Tamil", "tl": "Filipino", "en": "English"}
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
        wanted.extend(FAMILIES[part] if part in FAMILIES else (resolve(part),))
    keep = {x.strip() for x in langs.split(",")} if langs else None
    return [(TASKS[n], lang) for n in dict.fromkeys(wanted) for lang in TASKS[n].langs if keep is None or lang in keep]
