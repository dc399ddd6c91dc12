"""The PACUTE paper's published results as `results pull pacute-paper` sees them, from the public samples.

`../shared/data/pacute/paper-suite/results-sample/` holds verbatim copies of two model folders and the human
baseline of pacute-bench `results-202605/` at dcab16b; the stand-in serves them at the real paths, and a manifest
in the pinned one's layout lists them with their sizes and SHA-256 (checked against the pinned manifest in the
tests). The data folder the ingest scores against holds the paper's suite (`paper-suite/benchmarks/`) as PACUTE.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from evaluator.datasets.pull.results import RESULT_SETS
from tests.helpers.samples import SAMPLES

PAPER = SAMPLES / "pacute" / "paper-suite"
SAMPLE_MODELS = ("gemma-4-e2b-it", "gpt-5-mini")


def served_files() -> dict[str, bytes]:
    """Repository path → bytes of every sample file the pinned manifest lists (no `.batches/`)."""
    root = PAPER / "results-sample"
    return {f"results-202605/{p.relative_to(root).as_posix()}": p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and ".batches" not in p.parts}


def write_manifest(path: Path, files: dict[str, bytes], **changes) -> Path:
    """A manifest like the pinned one listing `files` (their real sizes and SHA-256), with `changes` applied to
    its fields (e.g. files={path: {...}} entries to override)."""
    doc = json.loads(RESULT_SETS["pacute-paper"].read_text("utf-8"))
    doc["files"] = {p: {"size": len(b), "sha256": hashlib.sha256(b).hexdigest(),
                        "git_blob": hashlib.sha1(f"blob {len(b)}\0".encode() + b).hexdigest()}
                    for p, b in files.items()}
    for p, entry in changes.pop("files", {}).items():
        doc["files"][p] = {**doc["files"][p], **entry}
    doc.update(changes)
    path.write_text(json.dumps(doc), "utf-8")
    return path


def served(files: dict[str, bytes], repo: str, commit: str) -> dict[str, bytes]:
    """`files` keyed as the raw-file stand-in serves them (owner/name/commit/path)."""
    return {f"{repo}/{commit}/{p}": b for p, b in files.items()}


def paper_data_dir(folder: Path) -> Path:
    """A data folder whose PACUTE items are the paper's suite (a link to the samples' `paper-suite/benchmarks`)."""
    (folder / "pacute").mkdir(parents=True, exist_ok=True)
    link = folder / "pacute" / "benchmarks"
    if not link.exists():
        link.symlink_to(PAPER / "benchmarks", target_is_directory=True)
    return folder


def pulled_store(folder: Path) -> Path:
    """A store filled by `results pull pacute-paper` of the samples through the raw-file stand-in (every folder
    imported): the app's first-start content, the two sample models and the human baseline."""
    import pytest

    from evaluator.datasets.pull.results import load_result_set
    from services.pacute_paper import pull_paper_results
    from tests.helpers.raw_standin import RawStandin

    files = served_files()
    manifest = write_manifest(folder / "pacute_paper.json", files)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(RESULT_SETS, "pacute-paper", manifest)
        rs = load_result_set("pacute-paper")
        with RawStandin(served(files, rs.repo, rs.commit)) as server:
            report = pull_paper_results(folder / "t.duckdb", data_dir=paper_data_dir(folder / "data"),
                                        base_url=server.url, cache=folder / "cache", progress=False)
    assert {o.status for o in report.outcomes.values()} == {"imported"}, report.outcomes
    return folder / "t.duckdb"
