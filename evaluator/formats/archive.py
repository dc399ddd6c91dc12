"""Unpacking uploads: a `.zip` or a folder of result files, with run numbers from `run_{n}` folders.

Run folders are numbered from 1, or from 0 when the upload has a `run_0` folder: SEA-HELM writes each of a model's
runs to `{output_dir}/{model}/run_{run_number}/` with 0-indexed run numbers (`src/seahelm_evaluation.py`,
`create_seahelm_run_folders`; `run_evaluation.sh` starts at RUN_NUMBER=0; `src/task_config.py`: "run_number
(0-indexed)", at 6844e6c), so its 8 runs `run_0` … `run_7` become runs 1 … 8 of one cell (`number_runs`).

Guards: member count, per-member and total uncompressed size (counted while reading, not trusted from the
header), compression ratio (zip bombs), absolute or `..` member names (path traversal), symlinks, encrypted and
nested archives. Nothing is ever extracted to disk, nor held whole in memory: a member is a `Source` read in
chunks when it is parsed, and its size is counted as it is read.
"""
from __future__ import annotations

import dataclasses
import io
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from evaluator.formats.limits import DEFAULT_LIMITS, MB, FormatError, Limits
from evaluator.formats.source import Budget, Source, ViewReader

_RUN = re.compile(r"^run[_-]?(\d{1,4})$", re.IGNORECASE)
_JUNK = ("__MACOSX/", ".DS_Store", "Thumbs.db")
RESULT_SUFFIXES = (".jsonl", ".json")


@dataclass(frozen=True)
class Member:
    """One result file taken from an archive or folder."""

    name: str
    """Display name: `archive.zip!inner/path.jsonl` (or the folder-relative path)."""
    path: str
    """Path inside the archive or folder (POSIX)."""
    data: Source
    """The member's bytes, read on demand."""
    run: int
    """Run number from the nearest `run_{n}` folder (`number_runs`), else 1."""


def folder_run(path: str) -> int | None:
    """The `n` of the innermost `run_{n}` folder in `path`, else None."""
    for part in reversed(PurePosixPath(path).parts[:-1]):
        m = _RUN.match(part)
        if m:
            return int(m.group(1))
    return None


def run_number(path: str) -> int:
    """The `n` of the innermost `run_{n}` folder in `path` (at least 1), else 1."""
    n = folder_run(path)
    return 1 if n is None else max(1, n)


def number_runs(members: list[Member]) -> list[Member]:
    """The members with their run numbers: `run_{n}` folders as numbered, or n + 1 when some member lies in a
    `run_0` folder (0-indexed runs, as SEA-HELM numbers them), so that `run_0` and `run_1` stay two runs."""
    runs = [folder_run(m.path) for m in members]
    if 0 not in runs:
        return members
    return [m if n is None else dataclasses.replace(m, run=n + 1) for m, n in zip(members, runs)]


def unsafe_name(name: str) -> str | None:
    """Why a member name is refused (absolute, drive letter, `..`, control characters), or None."""
    if not name or len(name) > 512:
        return "empty or overlong member name"
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "absolute path"
    parts = re.split(r"[\\/]+", name)
    if ".." in parts:
        return "path traversal ('..')"
    if any(ord(c) < 32 for c in name):
        return "control character in name"
    return None


def read_zip(data: bytes | memoryview | Path, name: str,
             limits: Limits = DEFAULT_LIMITS) -> tuple[list[Member], list[FormatError]]:
    """Members of a zip (bytes in memory, read in place, or a file path); every refused member is an error
    naming it."""
    errors: list[FormatError] = []
    try:
        zf = zipfile.ZipFile(data if isinstance(data, Path) else ViewReader(memoryview(data).cast("B")))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as e:
        return [], [FormatError(name, None, None, f"not a readable zip archive ({e})")]
    if len(infos) > limits.max_members:
        return [], [FormatError(name, None, None, f"archive has {len(infos)} entries; the limit is {limits.max_members}")]
    members: list[Member] = []
    budget = Budget(limits.max_unpacked_bytes)
    for info in infos:
        inner = info.filename
        where = f"{name}!{inner}"
        if info.is_dir() or inner.startswith(_JUNK) or PurePosixPath(inner).name in _JUNK:
            continue
        why = unsafe_name(inner)
        if why:
            errors.append(FormatError(where, None, None, f"refused: {why}"))
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            errors.append(FormatError(where, None, None, "refused: symbolic link"))
            continue
        if info.flag_bits & 0x1:
            errors.append(FormatError(where, None, None, "refused: encrypted member"))
            continue
        if inner.lower().endswith((".zip", ".gz", ".tar", ".7z")):
            errors.append(FormatError(where, None, None, "refused: nested archives are not accepted"))
            continue
        if not inner.lower().endswith(RESULT_SUFFIXES):
            continue
        if info.file_size > limits.max_bytes:
            errors.append(FormatError(where, None, None, f"member is {info.file_size / MB:.1f} MB uncompressed; "
                                                         f"the limit is {limits.max_bytes / MB:.0f} MB"))
            continue
        if info.file_size > 64 * 1024 and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            errors.append(FormatError(where, None, None, f"refused: compression ratio "
                                                         f"{info.file_size / max(info.compress_size, 1):.0f}:1 "
                                                         f"exceeds {limits.max_ratio:.0f}:1 (zip bomb guard)"))
            continue
        too_large = (f"uncompressed size exceeds the limit ({limits.max_bytes / MB:.0f} MB a member, "
                     f"{limits.max_unpacked_bytes / MB:.0f} MB in total)")
        members.append(Member(where, inner, Source.from_zip(zf, info, limits.max_bytes, budget, too_large),
                              run_number(inner)))
    return number_runs(members), errors


def read_folder(root: Path, limits: Limits = DEFAULT_LIMITS) -> tuple[list[Member], list[FormatError]]:
    """Result files under a folder (symlinks are not followed), with the same limits as a zip. Hidden entries
    (a name starting with "."), such as pacute-bench's `.batches/` of batch-API request ids, are not results."""
    root = Path(root)
    members: list[Member] = []
    errors: list[FormatError] = []
    total = 0
    files = sorted(p for p in root.rglob("*")
                   if (p.suffix.lower() in RESULT_SUFFIXES or p.suffix.lower() == ".zip")
                   and not any(part.startswith(".") for part in p.relative_to(root).parts))
    if len(files) > limits.max_members:
        return [], [FormatError(str(root), None, None, f"folder has {len(files)} files; the limit is {limits.max_members}")]
    for p in files:
        rel = p.relative_to(root).as_posix()
        if p.is_symlink() or not p.is_file():
            errors.append(FormatError(rel, None, None, "refused: symbolic link or not a regular file"))
            continue
        if p.suffix.lower() == ".zip":
            errors.append(FormatError(rel, None, None, "refused: nested archives are not accepted"))
            continue
        size = p.stat().st_size
        if size > limits.max_bytes or total + size > limits.max_unpacked_bytes:
            errors.append(FormatError(rel, None, None, f"file is {size / MB:.1f} MB; over the size limit"))
            continue
        total += size
        members.append(Member(rel, rel, Source.from_path(p), run_number(rel)))
    return number_runs(members), errors


def zip_members(members: list[Member]) -> bytes:
    """A zip of members under their paths (to queue a folder upload as one file)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for m in members:
            zf.writestr(m.path, m.data.read())
    return buf.getvalue()
