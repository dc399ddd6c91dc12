"""Tasks and families as declarations: one folder per family, one file per task; `evaluator.registry` collects them.

A family folder holds `family.yaml` (the family, declared once: title, position, leaderboard tab, task order) and one
`<task>.yaml` per task naming its data (`loader`, or a `data:` block for the generic JSON Lines loader), prompt,
answer reader (`extractor`) and metrics; a built-in family may instead declare its tasks in its package's Python
module as `TASKS` (PACUTE's grid of suites and formats). Loaders, answer readers and metrics register themselves
where they are defined (`evaluator.plugins`). Task folders are read, in this order, from here, from every folder in
`$TANAW_TASKS_DIR` (os.pathsep-separated) and from `tasks/` inside a local `$TANAW_DATA_DIR`; folders outside the
repository hold YAML only (data, never code). A folder may add tasks to a family declared earlier. A bad file
raises `TaskError` naming the file and the field. docs/add-a-task.md walks through adding one.
"""
from __future__ import annotations

import difflib
import importlib
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable, get_args

import yaml

from evaluator.plugins import declared_dirs
from evaluator.spec import Family, Mode, PromptTemplate, TaskSpec

BUILTIN_DIR = Path(__file__).resolve().parent
ENV_DIRS = "TANAW_TASKS_DIR"
"""Environment variable: extra folders of task folders (`<family>/family.yaml`, `<family>/<task>.yaml`)."""
FAMILY_FILE = "family.yaml"
DATA_FIELDS = {"file": str, "id": str, "gold": str, "inputs": list, "options": list}
"""Fields of a task's `data:` block (`evaluator.datasets.jsonl`); `options` is optional."""


class TaskError(ValueError):
    """A task or family file is malformed or declares a name twice; the message names the file and the field."""


def _text(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TaskError(f"{where}: expected a non-empty string")
    return value


def _opt_text(where: str, value: Any) -> str | None:
    return None if value is None else _text(where, value)


def _texts(where: str, value: Any, size: int | None = None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or (size and len(value) != size):
        raise TaskError(f"{where}: expected a list of {size or ''}{' ' if size else ''}strings")
    return tuple(value)


def _pair(where: str, value: Any) -> tuple[str, ...] | None:
    return None if value is None else _texts(where, value, 2)


def _mapping(where: str, value: Any, each: Callable[[str, Any], Any]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TaskError(f"{where}: expected a mapping")
    return {str(k): each(f"{where}.{k}", v) for k, v in value.items()}


def _number(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TaskError(f"{where}: expected a number")
    return float(value)


def _integer(where: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TaskError(f"{where}: expected an integer")
    return value


def _flag(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TaskError(f"{where}: expected true or false")
    return value


def _chance(where: str, value: Any) -> float | dict[str, float] | None:
    if value is None or isinstance(value, dict):
        return value and _mapping(where, value, _number)
    return _number(where, value)


def _prompt(where: str, value: Any) -> PromptTemplate | None:
    if value is None:
        return None
    if not isinstance(value, dict) or "user" not in value or set(value) - {"user", "system", "source"}:
        raise TaskError(f"{where}: expected {{user: ..., system: ..., source: ...}} (user required)")
    return PromptTemplate(_text(f"{where}.user", value["user"]), _opt_text(f"{where}.system", value.get("system")),
                          _text(f"{where}.source", value.get("source", "registry")))


def _data(where: str, value: Any) -> dict[str, Any]:
    data = _mapping(where, value, lambda w, v: v)
    for key in data:
        if key not in DATA_FIELDS:
            raise TaskError(f"{where}.{key}: unknown field (known: {', '.join(DATA_FIELDS)})")
    for key, kind in DATA_FIELDS.items():
        if key == "options" and key not in data:
            continue
        data[key] = (_texts if kind is list else _text)(f"{where}.{key}", data.get(key))
    if "{lang}" not in data["file"] or Path(data["file"]).is_absolute() or ".." in Path(data["file"]).parts:
        raise TaskError(f"{where}.file: expected a path inside the data directory containing {{lang}}")
    return data


_READERS: dict[str, Callable[[str, Any], Any]] = {
    "name": _text, "family": _text, "group": _text, "mode": _text, "loader": _text, "extractor": _text,
    "langs": _texts, "metrics": _texts, "aliases": _texts, "option_fields": _pair, "copy_baseline": _pair,
    "headline": lambda w, v: _mapping(w, v, _text), "dataset": lambda w, v: _mapping(w, v, _text),
    "language_slots": lambda w, v: _mapping(w, v, _text), "labels": lambda w, v: _mapping(w, v, _texts),
    "trim_tokens": lambda w, v: _mapping(w, v, _integer), "chance": _chance, "prompt_en": _prompt,
    "native_pack": _opt_text, "logprob_of": _text, "output_tag": _opt_text, "rollup_as": _opt_text,
    "human_protocol": _opt_text, "description": _text, "temperature": _number, "max_tokens": _integer,
    "version": _integer, "both_orders": _flag, "gold_alternatives": _flag, "contains_whole_output": _flag,
    "data": _data,
}
assert set(_READERS) == {f.name for f in fields(TaskSpec)} - {"source"}, "every TaskSpec field has a reader"
_REQUIRED = ("name", "group", "langs", "mode", "extractor", "metrics")


def _doc(path: Path) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TaskError(f"{path}: cannot read: {exc}") from None
    if not isinstance(doc, dict):
        raise TaskError(f"{path}: expected a mapping of fields, got {type(doc).__name__}")
    return doc


def _unknown(path: Path, key: Any, known: Any) -> TaskError:
    hint = difflib.get_close_matches(str(key), list(known), n=1)
    return TaskError(f"{path}: {key}: unknown field" + (f"; did you mean {hint[0]!r}?" if hint else ""))


def read_task(path: Path, family: str) -> TaskSpec:
    """One task from its YAML file in the folder of `family`."""
    doc = _doc(path)
    for key in doc:
        if key not in _READERS:
            raise _unknown(path, key, _READERS)
    for key in _REQUIRED:
        if key not in doc:
            raise TaskError(f"{path}: {key}: missing")
    if doc.get("family", family) != family:
        raise TaskError(f"{path}: family: {doc['family']!r}, but the file is in the folder of family {family!r}")
    if "loader" not in doc and "data" not in doc:
        raise TaskError(f"{path}: loader: missing (name a registered loader, or describe the file under data:)")
    spec = {key: _READERS[key](f"{path}: {key}", value) for key, value in doc.items()}
    spec.update(family=family, source=str(path))
    if "data" in spec:
        spec.setdefault("loader", "jsonl")
    if spec["mode"] not in get_args(Mode):
        raise TaskError(f"{path}: mode: {spec['mode']!r} is not one of {', '.join(get_args(Mode))}")
    if spec.get("logprob_of", "options") not in ("options", "sentences"):
        raise TaskError(f"{path}: logprob_of: expected options or sentences")
    for lang, metric in spec.get("headline", {}).items():
        if metric not in spec["metrics"]:
            raise TaskError(f"{path}: headline.{lang}: {metric!r} is not one of the task's metrics")
    return TaskSpec(**spec)


def read_family(path: Path) -> Family:
    """A family from its `family.yaml` (its name is its folder's)."""
    doc = _doc(path)
    known = {"name": _text, "title": _text, "position": _integer, "board": _flag, "description": _text,
             "order": _texts}
    for key in doc:
        if key not in known:
            raise _unknown(path, key, known)
    if doc.get("name", path.parent.name) != path.parent.name:
        raise TaskError(f"{path}: name: {doc['name']!r}, but the folder is {path.parent.name!r}")
    if "title" not in doc:
        raise TaskError(f"{path}: title: missing")
    return Family(**{key: known[key](f"{path}: {key}", value) for key, value in doc.items()
                     if key != "name"}, name=path.parent.name)


def task_dirs() -> list[Path]:
    """Folders of family folders: built-ins, then `$TANAW_TASKS_DIR`, then `$TANAW_DATA_DIR/tasks`."""
    return declared_dirs(BUILTIN_DIR, ENV_DIRS, "tasks")


def _folder_tasks(folder: Path, builtin: bool) -> list[TaskSpec]:
    """The tasks of one family folder: its YAML files by name, then (built-ins only) its module's `TASKS`."""
    tasks = [read_task(path, folder.name) for path in sorted(folder.glob("*.yaml")) if path.name != FAMILY_FILE]
    if builtin and (folder / "__init__.py").is_file():
        module = importlib.import_module(f"{__name__}.{folder.name}")
        for t in module.TASKS:
            if t.family != folder.name:
                raise TaskError(f"{module.__file__}: family: task {t.name!r} has family {t.family!r}")
        tasks += module.TASKS
    return tasks


def load_tasks(dirs: list[Path] | None = None) -> tuple[dict[str, Family], dict[str, TaskSpec]]:
    """Every family (by position, then name) and every task (by family, then the family's order), from `dirs`
    (default `task_dirs()`)."""
    families: dict[str, Family] = {}
    found: dict[str, TaskSpec] = {}
    for root in dirs if dirs is not None else task_dirs():
        for folder in sorted(p for p in Path(root).iterdir() if p.is_dir() and p.name[0] not in "_."):
            declared = folder / FAMILY_FILE
            if declared.is_file():
                family = read_family(declared)
                if family.name in families:
                    raise TaskError(f"{declared}: name: family {family.name!r} is already declared")
                families[family.name] = family
            elif folder.name not in families:
                if any(folder.glob("*.yaml")):
                    raise TaskError(f"{declared}: missing (family {folder.name!r} is declared nowhere)")
                continue
            for task in _folder_tasks(folder, Path(root) == BUILTIN_DIR):
                if task.name in found:
                    raise TaskError(f"{task.source or folder}: name: task {task.name!r} is already declared in "
                                    f"{found[task.name].source or found[task.name].family}")
                found[task.name] = task
    families = dict(sorted(families.items(), key=lambda kv: (kv[1].position, kv[0])))
    ordered: dict[str, TaskSpec] = {}
    for family in families.values():
        mine = [t for t in found.values() if t.family == family.name]
        rank = {name: i for i, name in enumerate(family.order)}
        for task in sorted(mine, key=lambda t: rank.get(t.name, len(rank))):
            ordered[task.name] = task
    return families, ordered
