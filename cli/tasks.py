"""`python -m evaluator tasks [--json]`: every registered task with its languages, mode and metrics (and, in JSON,
a PACUTE task's data version: the pacute-bench commit and SHA-256 of its file)."""
from __future__ import annotations

from cli.common import print_json, print_table
from pathlib import Path

from evaluator import task_check
from evaluator.datasets import default_data_dir
from evaluator.datasets.pacute import data_version
from evaluator.registry import TASKS
from evaluator.spec import TaskSpec


def add(sub) -> None:
    p = sub.add_parser("tasks", help="list every task in the registry")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _data_version(task: TaskSpec, root: Path) -> str | None:
    """A PACUTE task's `data_version` (pacute-bench commit and SHA-256 of its file), None for other tasks."""
    return data_version(root, task.loader.removeprefix("pacute.")) if task.loader.startswith("pacute.") else None


def run(args) -> int:
    task_check.check()
    root = default_data_dir()
    rows = [{"task": t.name, "family": t.family, "group": t.group, "langs": list(t.langs), "mode": t.mode,
             "metrics": list(t.metrics), "headline": {lang: t.headline_metric(lang) for lang in t.langs},
             "chance": {lang: t.chance_level(lang) for lang in t.langs}, "aliases": list(t.aliases),
             "native_prompt": t.native_pack, "description": t.description,
             "data_version": _data_version(t, root)} for t in TASKS.values()]
    if args.json:
        print_json(rows)
        return 0
    print_table([(r["task"], r["family"], r["group"], ",".join(r["langs"]), r["mode"], ",".join(r["metrics"]) or "—",
                  ",".join(r["aliases"])) for r in rows],
                ("task", "family", "group", "langs", "mode", "metrics", "aliases"))
    return 0
