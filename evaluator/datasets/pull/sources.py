"""The source table (`sources.toml`) and the lock (`lock.json`) as records.

One `Source` per output: where its files live (repository, pinned commit, paths), its licence and split, and
how it becomes Tanaw's layout (`convert`, or `copy` with explicit source → target pairs).
"""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.registry import FAMILIES as REGISTERED

HERE = Path(__file__).resolve().parent
SOURCES_FILE = HERE / "sources.toml"
LOCK_FILE = HERE / "lock.json"
FAMILIES = tuple(REGISTERED)
"""Families a source may belong to (the registry's, `evaluator/tasks/<family>/family.yaml`)."""
HOSTS = ("github", "hub", "unavailable")


class SourceError(Exception):
    """The source table or lock is malformed, or a selection names nothing."""


@dataclass(frozen=True)
class Source:
    """One dataset output and the pinned public files it is made from."""

    name: str
    family: str
    dataset: str
    host: str
    licence: str
    split: str
    repo: str | None = None
    commit: str | None = None
    convert: str | None = None
    lang: str | None = None
    paths: tuple[str, ...] = ()
    target: str | None = None
    files: tuple[tuple[str, str], ...] = ()
    reason: str | None = None
    note: str | None = None

    @property
    def inputs(self) -> tuple[str, ...]:
        """Source paths to download, in the order the converter reads them."""
        return tuple(a for a, _ in self.files) if self.convert == "copy" else self.paths

    @property
    def outputs(self) -> tuple[str, ...]:
        """Paths written under the data folder."""
        return tuple(b for _, b in self.files) if self.convert == "copy" else ((self.target,) if self.target else ())

    def key(self, path: str) -> str:
        """The lock's key for one of this source's files: `repo@commit:path`."""
        return f"{self.repo}@{self.commit}:{path}"


@dataclass(frozen=True)
class LockEntry:
    size: int | None
    sha256: str | None
    verified: bool


@dataclass
class Table:
    """The parsed source table and lock."""

    sources: list[Source]
    lock: dict[str, LockEntry] = field(default_factory=dict)

    def select(self, only: str | None = None) -> list[Source]:
        """Every source, or those of one family (or one source name)."""
        if not only:
            return list(self.sources)
        chosen = [s for s in self.sources if only in (s.family, s.name)]
        if not chosen:
            raise SourceError(f"--only {only!r}: no such family or source (families: {', '.join(FAMILIES)})")
        return chosen


def _source(row: dict, n: int) -> Source:
    where = f"{SOURCES_FILE.name}: source {n} ({row.get('name', '?')})"
    for key in ("name", "family", "dataset", "host", "licence", "split"):
        if not isinstance(row.get(key), str):
            raise SourceError(f"{where}: {key}: missing")
    if row["family"] not in FAMILIES or row["host"] not in HOSTS:
        raise SourceError(f"{where}: family/host: {row['family']!r}/{row['host']!r} is not known")
    if row["host"] == "unavailable":
        if not row.get("reason"):
            raise SourceError(f"{where}: reason: an unavailable source says why")
    elif not (row.get("repo") and row.get("commit") and row.get("convert")):
        raise SourceError(f"{where}: repo, commit and convert are required")
    return Source(name=row["name"], family=row["family"], dataset=row["dataset"], host=row["host"],
                  licence=row["licence"], split=row["split"], repo=row.get("repo"), commit=row.get("commit"),
                  convert=row.get("convert"), lang=row.get("lang"), paths=tuple(row.get("paths", ())),
                  target=row.get("target"), files=tuple(tuple(f) for f in row.get("files", ())),
                  reason=row.get("reason"), note=row.get("note"))


def load_table(sources_file: Path = SOURCES_FILE, lock_file: Path = LOCK_FILE) -> Table:
    """The source table and its lock; SourceError when either is malformed."""
    with open(sources_file, "rb") as f:
        rows = tomllib.load(f).get("source", [])
    sources = [_source(r, n) for n, r in enumerate(rows, start=1)]
    names = [s.name for s in sources]
    if len(set(names)) != len(names):
        raise SourceError(f"{sources_file.name}: source names repeat")
    doc = json.loads(Path(lock_file).read_text("utf-8")) if Path(lock_file).is_file() else {"files": {}}
    lock = {k: LockEntry(v.get("size"), v.get("sha256"), bool(v.get("verified"))) for k, v in doc["files"].items()}
    return Table(sources, lock)
