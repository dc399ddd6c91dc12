"""`results pull`: published per-item results, from their own repository at a pinned commit, into a local cache.

A manifest (`pacute_paper.json`: repository, commit, licence, citation, and every file's size, SHA-256 and git blob
id) names what to fetch. Each file is downloaded over HTTPS from the raw-file host (resuming a partial `.part`, as
`data pull` does) into `<cache>/<repo>/<commit>/<path>` and checked against the manifest before anything reads it:
a file that differs is discarded and the pull stops, so the caller writes nothing. Files already in the cache and
still matching are not fetched again, so an interrupted pull resumes where it stopped.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from evaluator.datasets.pull import fetch

HERE = Path(__file__).resolve().parent
RESULT_SETS = {"pacute-paper": HERE / "pacute_paper.json"}
"""Result sets `results pull` knows, by name."""


@dataclass(frozen=True)
class ResultFile:
    size: int | None
    sha256: str | None
    git_blob: str


@dataclass(frozen=True)
class ResultSet:
    """A pinned set of published result files."""

    name: str
    label: str
    repo: str
    commit: str
    root: str
    human_baseline: str
    workbooks: str
    licence: str
    citation: str
    files: dict[str, ResultFile]

    def models(self) -> list[str]:
        """The model folders under `root` (every folder holding an `inference/` file), sorted."""
        return sorted({p.split("/")[1] for p in self.files
                       if p.startswith(f"{self.root}/") and p.count("/") >= 3 and p.split("/")[2] == "inference"})

    def chosen(self, models: list[str] | None = None) -> list[str]:
        """Paths to fetch: the chosen models' folders (all when None), the human baseline and its workbooks."""
        keep = set(self.models() if models is None else models)
        return [p for p in self.files
                if p.startswith((f"{self.human_baseline}/", f"{self.workbooks}/"))
                or (p.startswith(f"{self.root}/") and p.split("/")[1] in keep)]


class ResultsError(Exception):
    """The pull stopped; the message names the file and the caller writes nothing."""


def load_result_set(name: str) -> ResultSet:
    """The manifest of a named result set; ResultsError for an unknown name or a malformed manifest."""
    if name not in RESULT_SETS:
        raise ResultsError(f"no result set {name!r} (known: {', '.join(RESULT_SETS)})")
    doc = json.loads(RESULT_SETS[name].read_text("utf-8"))
    try:
        files = {p: ResultFile(f["size"], f["sha256"], f["git_blob"]) for p, f in doc["files"].items()}
        return ResultSet(doc["name"], doc["label"], doc["repo"], doc["commit"], doc["root"], doc["human_baseline"],
                         doc["workbooks"], doc["licence"], doc["citation"], files)
    except (KeyError, TypeError) as e:
        raise ResultsError(f"{RESULT_SETS[name].name}: malformed manifest ({e!r})") from None


def git_blob_id(path: Path) -> str:
    """Git's object id of a file's bytes (sha1 of "blob <size>\\0" + bytes)."""
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(fetch.CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _check(path: Path, want: ResultFile, label: str) -> None:
    if want.sha256 is not None:
        fetch.verify(path, fetch.Expected(want.size, want.sha256), label)
        return
    got = git_blob_id(path)
    if got != want.git_blob:
        path.unlink()
        raise fetch.FetchError(f"{label}: git blob {got[:12]}…, the manifest says {want.git_blob[:12]}…; "
                               "the file was discarded and nothing was changed")


def fetch_result_set(rs: ResultSet, cache: Path, *, base_url: str = fetch.GITHUB_RAW, models: list[str] | None = None,
                     progress: bool = True, say: Callable[[str], None] = lambda _line: None) -> Path:
    """Download and check every chosen file into the cache; returns the folder holding the repository's paths.

    Raises ResultsError (one line, naming the file) on an unknown model, an unreachable host or a checksum
    mismatch; files already fetched and checked stay in the cache for the next attempt."""
    unknown = sorted(set(models or ()) - set(rs.models()))
    if unknown:
        raise ResultsError(f"{rs.name}: no model folder {unknown[0]!r} at {rs.commit[:7]} "
                           f"({len(rs.models())} models: {', '.join(rs.models()[:5])}, …)")
    root = Path(cache) / rs.repo / rs.commit
    paths = rs.chosen(models)
    for n, path in enumerate(paths, start=1):
        dest = root / path
        label = f"{rs.repo}@{rs.commit[:7]}:{path}"
        try:
            if dest.is_file():
                try:
                    _check(dest, rs.files[path], label)
                    continue
                except fetch.FetchError:
                    pass  # a stale or damaged copy: fetched again below
            say(f"[{n}/{len(paths)}] {path}")
            fetch.download(fetch.raw_url(base_url, rs.repo, rs.commit, path), dest, label=label, progress=progress)
            _check(dest, rs.files[path], label)
        except fetch.FetchError as e:
            raise ResultsError(f"results pull: {e}") from None
    return root
