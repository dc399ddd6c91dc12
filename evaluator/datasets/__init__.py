"""Dataset loaders: every task's items in one canonical shape (`evaluator.spec.Item`).

`LOADERS` maps the `TaskSpec.loader` keys to loaders `(data_dir, lang) -> Iterator[Item]`; `load_items` picks the
task's loader, reads the data directory (`default_data_dir()` unless given) and returns the items with their
data-quality warnings; `load_report` aggregates those warnings. Hugging Face dataset repos: `load_hub_items`.
"""
from __future__ import annotations

import os
from pathlib import Path

from evaluator.datasets import (  # noqa: F401  (each registers its loaders)
    bhasa, chat, cultural, ifeval, lindsea, pacute, seahelm_mcq)
from evaluator.datasets import jsonl
from evaluator.datasets.base import LOADERS, DatasetError, Loader
from evaluator.datasets.validate import LoadReport, summarize
from evaluator.registry import TASKS, get_task
from evaluator.spec import Item, TaskSpec

UNAVAILABLE: dict[tuple[str, str], str] = {**bhasa.UNAVAILABLE}
"""(loader key, lang) cells with no public sample, and why."""

REPO_ROOT = Path(__file__).resolve().parents[2]
HF_PREFIX = "hf:"
PULL_MANIFEST = "tanaw-pull.json"
"""Written last by `data pull` into its destination: what was pulled, from where, under which licence."""
"""A data source `hf:OWNER/NAME@COMMIT` names a Hugging Face dataset repo laid out like the data directory."""


def tanaw_home() -> Path:
    """`$TANAW_HOME`, else `~/.tanaw` (the store, caches and pulled data live here)."""
    return Path(os.environ.get("TANAW_HOME") or Path.home() / ".tanaw").expanduser()


def pulled_data_dir() -> Path:
    """Where `python -m evaluator data pull` writes the public datasets by default: `<tanaw home>/data`."""
    return tanaw_home() / "data"


def default_data_dir() -> Path:
    """`$TANAW_DATA_DIR`; else the pulled data (`~/.tanaw/data`) once `data pull` has written it; else
    `../shared/data` next to the repo when it exists; else the repo's `data/demo`."""
    env = os.environ.get("TANAW_DATA_DIR")
    if env:
        return Path(env).expanduser()
    pulled = pulled_data_dir()
    if (pulled / PULL_MANIFEST).is_file():
        return pulled
    shared = REPO_ROOT.parent / "shared" / "data"
    return shared if shared.is_dir() else REPO_ROOT / "data" / "demo"


def _spec(task: TaskSpec | str) -> TaskSpec:
    if isinstance(task, TaskSpec):
        return task
    return get_task(task)


def _loader(spec: TaskSpec) -> Loader | None:
    """The task's loader: the generic one for a task declared with `data:`, else the one registered under its key."""
    return jsonl.loader(spec) if spec.data else LOADERS.get(spec.loader)


def loader_for(task: TaskSpec | str, lang: str) -> Loader:
    """The task's loader, checked against its languages; DatasetError when the cell does not exist."""
    spec = _spec(task)
    if lang not in spec.langs:
        raise DatasetError(f"task {spec.name!r} has no language {lang!r} (it has: {', '.join(spec.langs)})")
    loader = _loader(spec)
    if loader is None:
        raise DatasetError(f"{spec.source or 'task ' + repr(spec.name)}: loader: {LOADERS.hint(spec.loader)}")
    return loader


def _root(spec: TaskSpec, lang: str, data_dir: Path | str | None) -> Path:
    """The local folder to read: `data_dir`, `$TANAW_DATA_DIR` or the default; `hf:OWNER/NAME@COMMIT` is fetched
    from the Hugging Face Hub (the files this cell needs) and its cached snapshot is read."""
    source = str(data_dir if data_dir is not None else default_data_dir())
    if not source.startswith(HF_PREFIX):
        return Path(source).expanduser()
    from evaluator.datasets import hub  # huggingface_hub costs ~0.5 s to import: only when a Hub source is read

    repo_id, _, revision = source[len(HF_PREFIX):].partition("@")
    return hub.fetch(repo_id, loader_for(spec, lang).files(lang), revision=revision)


def available_cells(data_dir: Path | str | None = None) -> list[tuple[str, str]]:
    """(task, lang) cells of the registry whose files are all present in a local data directory."""
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    return [(t.name, lang) for t in TASKS.values() if (loader := _loader(t)) for lang in t.langs
            if all((root / rel).is_file() for rel in loader.files(lang))]


def load_items(task: TaskSpec | str, lang: str, *, data_dir: Path | str | None = None,
               limit: int | None = None) -> list[Item]:
    """The items of one (task, lang), in file order, at most `limit`; DatasetError on missing or bad files.

    `data_dir` is a local folder or `hf:OWNER/NAME@COMMIT` (default: `$TANAW_DATA_DIR`, else `default_data_dir()`).
    """
    spec = _spec(task)
    loader = loader_for(spec, lang)
    root = _root(spec, lang, data_dir)
    missing = [rel for rel in loader.files(lang) if not (root / rel).is_file()]
    if missing:
        why = UNAVAILABLE.get((spec.loader, lang))
        reason = f": {why}" if why else ""
        raise DatasetError(f"{root / missing[0]}: file not found for task {spec.name!r}, language {lang!r}{reason}")
    items: list[Item] = []
    for item in loader(root, lang):
        if limit is not None and len(items) >= limit:
            break
        items.append(item)
    return items


def load_hub_items(repo_id: str, task: TaskSpec | str, lang: str, *, revision: str,
                   cache_dir: Path | str | None = None, limit: int | None = None, endpoint: str | None = None,
                   token: str | bool | None = None) -> list[Item]:
    """The items of one (task, lang) from a Hub dataset repo at a pinned commit, via the task's local loader."""
    from evaluator.datasets import hub  # see `_root`

    loader = loader_for(task, lang)
    root = hub.fetch(repo_id, loader.files(lang), revision=revision, cache_dir=cache_dir, endpoint=endpoint,
                     token=token)
    return load_items(task, lang, data_dir=root, limit=limit)


def load_report(task: TaskSpec | str, lang: str, *, data_dir: Path | str | None = None) -> LoadReport:
    """Item count and data-quality warnings found while loading one (task, lang)."""
    spec = _spec(task)
    return summarize(spec.name, lang, load_items(spec, lang, data_dir=data_dir))


__all__ = ["LOADERS", "UNAVAILABLE", "DatasetError", "LoadReport", "available_cells", "default_data_dir",
           "load_hub_items", "load_items", "load_report", "loader_for", "pulled_data_dir", "tanaw_home"]
