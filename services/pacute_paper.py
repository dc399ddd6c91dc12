"""The PACUTE paper's own results on the board: `results pull pacute-paper`, and its human baseline.

The pull fetches the per-item outputs pacute-bench wrote for the paper at the pinned commit (every file checked
against the manifest, evaluator.datasets.pull.results) before it writes anything; then it ingests each model folder
through the ordinary upload path (services.upload.ingest_upload: re-scored against Tanaw's gold, refusals and
warnings as for any upload) under the label "PACUTE paper runs · pacute-bench@<commit>", and stores the human
baseline (evaluator.pacute_human) as reported rows, shown beside the models and never ranked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from evaluator.datasets import tanaw_home
from evaluator.datasets.pull import fetch
from evaluator.datasets.pull.results import ResultSet, fetch_result_set, load_result_set
from evaluator.formats.read import read_upload
from evaluator.names import lookalike
from evaluator.pacute_human import IAA_FILE, SCORES_FILE, WORKBOOKS, baseline_rows
from evaluator.registry import TASKS, resolve
from services.page_figures import refresh_reported
from services.upload import Outcome, ingest_upload
from store import owners
from store.db import transaction
from store.reference import HUMAN_BASELINE_SOURCE as HUMAN_SOURCE
from store.reference import load_reported, replace_reported_source
from store.writer_lock import writer as store_writer

PAPER_METRIC = {"mcq_acc": "accuracy", "exact_match": "exact_match", "contains_match": "contains_match",
                "fleiss_kappa": "Fleiss' kappa", "raw_agreement": "pct_agree"}


@dataclass
class PaperPull:
    """What a results pull did."""

    result_set: ResultSet
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    """Model folder → its ingest outcome."""
    human_rows: int = 0
    warnings: list[str] = field(default_factory=list)


def task_of(benchmark: str, fmt: str) -> str | None:
    """Tanaw's task for a pacute-bench benchmark and format (`composition`, `mcq` → pacute-composition-mcq), via
    the registry's aliases; None when Tanaw has no such task."""
    for name in (f"{benchmark}_{fmt}", f"pacute-{benchmark.replace('_', '-')}-{fmt}"):
        try:
            task = resolve(name)
        except (KeyError, ValueError):
            continue
        if task in TASKS:
            return task
    return None


def human_baseline_rows(folder: Path, workbooks: Path | None, citation: str, origin: str,
                        warn: Callable[[str], None] = lambda _line: None) -> list[dict]:
    """The reported rows of the human baseline in `folder` (scores_per_annotator.json, iaa.json), with kappa
    recomputed from the annotation workbooks in `workbooks` when all three are there. HumanBaselineError names
    the file and field of anything malformed."""
    books = [(name, (workbooks / name).read_bytes()) for name in WORKBOOKS] \
        if workbooks is not None and all((workbooks / n).is_file() for n in WORKBOOKS) else []
    rows = baseline_rows((folder / SCORES_FILE).read_bytes(), (folder / IAA_FILE).read_bytes(), books, warn)
    out, missing = [], set()
    for r in rows:
        task = task_of(r.benchmark, r.fmt)
        if task is None:
            task = f"pacute-{r.benchmark.replace('_', '-')}-{r.fmt}"
            if task not in missing:
                warn(f"human baseline: Tanaw has no task {task} ({r.benchmark}_{r.fmt}) yet; its rows are kept "
                     "under that name")
                missing.add(task)
        out.append({"citation": citation, "task": task, "lang": "tl", "metric": r.metric,
                    "paper_metric": PAPER_METRIC[r.metric], "system": r.system, "prompt_lang": "n/a",
                    "value": r.value, "note": f"n={r.n} items; {r.note}; {origin}"})
    return out


def store_human_baseline(con, rows: list[dict]) -> int:
    """Replace the stored human-baseline rows (one transaction) and normalise them like every reported row."""
    with transaction(con):
        n = replace_reported_source(con, HUMAN_SOURCE, rows)
        refresh_reported(con)
    return n


def _model_name(con, folder: str) -> str:
    """The folder's name, or the paper's spelling of it when the papers report the same system (`gpt-5.5` is
    reported as `GPT-5.5`, `claude-sonnet-4-6` as `Claude-Sonnet-4.6`), so the two stand together instead of one
    being refused as a look-alike or listed twice. A version's dots may be dashes in a folder name."""
    systems = owners.reported_systems(con)
    dashed = {s.replace(".", "-").casefold(): s for s in systems}
    return lookalike(folder, systems) or dashed.get(folder.replace(".", "-").casefold()) or folder


def pull_paper_results(db_path: str | Path | None, *, data_dir: str | Path | None = None,
                       models: list[str] | None = None, base_url: str | None = None, cache: Path | None = None,
                       progress: bool = True, actor: str = "cli:results-pull", result_set: ResultSet | None = None,
                       say: Callable[[str], None] = lambda _line: None) -> PaperPull:
    """Fetch and check every file first (ResultsError, naming the file, leaves the store unchanged), then ingest
    each model folder and store the human baseline. `result_set`: another manifest than the pinned one (tests)."""
    rs = result_set or load_result_set("pacute-paper")
    say(f"{rs.label}: {rs.repo}@{rs.commit[:7]} · licence: {rs.licence} · cite: {rs.citation}")
    root = fetch_result_set(rs, Path(cache or tanaw_home() / "cache" / "results"), models=models,
                            base_url=base_url or fetch.GITHUB_RAW, progress=progress, say=say)
    report = PaperPull(rs)
    origin = f"pacute-bench {rs.human_baseline}/ at {rs.commit[:7]} (licence: {rs.licence})"
    human = human_baseline_rows(root / rs.human_baseline, root / rs.workbooks, rs.citation, origin,
                                report.warnings.append)
    with store_writer(db_path) as con:
        if not con.execute("SELECT count(*) FROM reported").fetchone()[0]:
            load_reported(con)  # the papers' rows the app would load in an empty store (it skips a filled one)
        report.human_rows = store_human_baseline(con, human)
        names = {m: _model_name(con, m) for m in (models or rs.models())}
    for folder, model_id in names.items():
        label = f"{rs.label} · pacute-bench@{rs.commit[:7]} · {rs.root}/{folder}"  # PAPER_RUNS_LABEL first
        upload = read_upload(root / rs.root / folder, name=label, fmt="pacute-bench", data_dir=data_dir)
        url = f"https://github.com/{rs.repo}/tree/{rs.commit}/{rs.root}/{folder}"
        report.outcomes[folder] = ingest_upload(db_path, upload, model={"model_id": model_id, "url": url},
                                                actor=actor, data_dir=data_dir)
        say(f"{folder}: {report.outcomes[folder].status} — {report.outcomes[folder].message}")
    return report
