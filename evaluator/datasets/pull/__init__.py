"""`data pull`: the public datasets Tanaw scores, from their own sources at pinned revisions, into Tanaw's layout.

The source table (`sources.toml`) names every dataset's repository, commit, paths, split and licence; the lock
(`lock.json`) their sizes and SHA-256. A pull downloads what it needs into a cache (resuming partial files),
checks each file against the lock, converts, and only then replaces the data folder in one step: it builds the
new folder beside the old one and swaps the two, so a failure at any point leaves the old folder as it was.
`tanaw-pull.json` in the folder records what came from where, under which licence, and the checksum of files
the lock could not verify (trust on first use; later pulls check against it).
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from evaluator.datasets import PULL_MANIFEST, pulled_data_dir, tanaw_home
from evaluator.datasets.pull import fetch
from evaluator.datasets.pull.convert import CONVERTERS, ConvertError
from evaluator.datasets.pull.sources import FAMILIES, Source, SourceError, Table, load_table


class PullError(Exception):
    """The pull stopped; the message is one line naming the source and file, and the data folder is unchanged."""


@dataclass
class PullReport:
    """What a pull wrote and skipped."""

    dest: Path
    written: dict[str, list[str]] = field(default_factory=dict)
    """Source name → paths written under `dest`."""
    unavailable: dict[str, str] = field(default_factory=dict)
    """Source name → why it cannot be pulled."""
    recorded: list[str] = field(default_factory=list)
    """Lock keys whose checksum this pull recorded (not verifiable from the lock)."""


def _expected(table: Table, src: Source, path: str, previous: dict) -> fetch.Expected:
    entry = table.lock.get(src.key(path))
    if entry and entry.verified:
        return fetch.Expected(entry.size, entry.sha256)
    seen = previous.get("files", {}).get(src.key(path))
    return fetch.Expected(seen["size"], seen["sha256"]) if seen else fetch.Expected(None, None)


def _cache_path(cache: Path, src: Source, path: str) -> Path:
    return cache / src.host / str(src.repo) / str(src.commit) / path


def _obtain(src: Source, path: str, cache: Path, base_url: str, progress: bool) -> Path:
    dest = _cache_path(cache, src, path)
    if dest.is_file():
        return dest
    label = f"{src.name}: {src.repo}@{str(src.commit)[:7]}:{path}"
    if src.host == "hub":
        return fetch.hub_download(str(src.repo), str(src.commit), path, dest, label=label)
    url = fetch.raw_url(base_url, str(src.repo), str(src.commit), path)
    return fetch.download(url, dest, label=label, progress=progress)


def _build(src: Source, files: list[Path]) -> dict[str, bytes]:
    """Output path → bytes for one source."""
    if src.convert == "copy":
        return {target: f.read_bytes() for (_, target), f in zip(src.files, files)}
    try:
        return {str(src.target): CONVERTERS[str(src.convert)]([f.read_bytes() for f in files], str(src.lang))}
    except ConvertError as e:
        raise PullError(f"{src.name}: {e}") from None
    except (KeyError, ValueError, IndexError) as e:
        raise PullError(f"{src.name}: the source file does not have the expected shape ({e!r})") from None


def _read_manifest(dest: Path) -> dict:
    path = dest / PULL_MANIFEST
    try:
        return json.loads(path.read_text("utf-8")) if path.is_file() else {}
    except (OSError, json.JSONDecodeError):
        return {}


def _swap_in(staging: Path, dest: Path) -> None:
    """Replace `dest` by `staging` (same parent folder): two renames, the old folder removed afterwards."""
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
        os.rename(dest, old / dest.name)
    os.rename(staging, dest)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def _record(src: Source, checks: dict[str, tuple[int, str, bool]], outputs: list[str]) -> dict:
    return {"family": src.family, "dataset": src.dataset, "host": src.host, "repo": src.repo, "commit": src.commit,
            "licence": src.licence, "split": src.split, "note": src.note, "outputs": outputs,
            "files": {p: {"size": s, "sha256": h, "verified_by_lock": v} for p, (s, h, v) in checks.items()}}


def pull(dest: Path | None = None, *, only: str | None = None, table: Table | None = None,
         base_url: str | None = None, cache: Path | None = None, progress: bool = True,
         say: Callable[[str], None] = lambda _line: None) -> PullReport:
    """Download, check, convert and write the selected sources into `dest` (default `~/.tanaw/data`).

    Raises PullError (one line; `dest` untouched) on an unreachable host, a checksum mismatch or a bad file.
    """
    dest = Path(dest or pulled_data_dir()).expanduser().resolve()
    table = table or load_table()
    try:
        chosen = table.select(only)
    except SourceError as e:
        raise PullError(str(e)) from None
    base_url = base_url or os.environ.get("TANAW_PULL_BASE_URL") or fetch.GITHUB_RAW
    cache = Path(cache or tanaw_home() / "cache" / "pull")
    previous = _read_manifest(dest)
    report = PullReport(dest)
    built: dict[str, dict[str, bytes]] = {}
    records: dict[str, dict] = {}
    seen_files = dict(previous.get("files", {}))
    for src in chosen:
        if src.host == "unavailable":
            report.unavailable[src.name] = str(src.reason)
            records[src.name] = {"family": src.family, "dataset": src.dataset, "licence": src.licence,
                                 "unavailable": src.reason}
            continue
        say(f"{src.name}: {src.dataset} · {src.repo}@{str(src.commit)[:7]} · licence: {src.licence}")
        checks, files = {}, []
        for path in src.inputs:
            expected = _expected(table, src, path, previous)
            try:
                got = _obtain(src, path, cache, base_url, progress)
                size, digest = fetch.verify(got, expected, f"{src.name}: {path}")
            except fetch.FetchError as e:
                raise PullError(f"data pull: {e}; nothing was changed") from None
            entry = table.lock.get(src.key(path))
            by_lock = bool(entry and entry.verified)
            if expected.sha256 is None:
                report.recorded.append(src.key(path))
            seen_files[src.key(path)] = {"size": size, "sha256": digest}
            checks[path], files = (size, digest, by_lock), [*files, got]
        built[src.name] = _build(src, files)
        records[src.name] = _record(src, checks, sorted(built[src.name]))
    _write(dest, built, records, previous, seen_files)
    report.written = {name: sorted(out) for name, out in built.items()}
    return report


def _write(dest: Path, built: dict[str, dict[str, bytes]], records: dict, previous: dict, files: dict) -> None:
    """Stage the current folder plus the new outputs and manifest beside `dest`, then swap it in."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.pull-", dir=dest.parent))
    try:
        if dest.is_dir():
            shutil.copytree(dest, staging, dirs_exist_ok=True)
        for outputs in built.values():
            for rel, data in outputs.items():
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        manifest = {"pulled_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    "tool": "python -m evaluator data pull",
                    "sources": {**previous.get("sources", {}), **records}, "files": files}
        (staging / PULL_MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=1), "utf-8")
        _swap_in(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


__all__ = ["FAMILIES", "PullError", "PullReport", "pull"]
