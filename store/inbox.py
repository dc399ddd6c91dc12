"""The inbox beside a store file: where the CLI queues an upload while another process (the app) holds the store.

DuckDB allows one read-write process per file, and the app keeps its connection open, so a CLI `ingest --inbox`
that cannot get the file drops the bytes and a small JSON description into `<db>.inbox/`; the app imports them
through the same upload flow (see `services.upload.drain_inbox`). Files are written to a temporary
name and renamed, so the app never reads half a file; imported entries move to `<db>.inbox/done/`, entries that
were refused or could not be imported to `<db>.inbox/rejected/` with the reason beside them, so a bad entry is
never tried again at the next start.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from store import db


def inbox_dir(path: str | os.PathLike | None = None) -> Path:
    p = db.db_path(path).resolve()
    return p.with_name(p.name + ".inbox")


def drop(path: str | os.PathLike | None, data: bytes, meta: dict[str, Any]) -> Path:
    """Queue an upload's bytes with its description (name, format, model, actor); returns the queued file."""
    box = inbox_dir(path)
    box.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(data).hexdigest()[:32]
    body = box / f"{key}.bin"
    tmp = box / f".{key}.bin.tmp"
    tmp.write_bytes(data)
    os.replace(tmp, body)
    desc = box / f"{key}.json"
    tmp = box / f".{key}.json.tmp"
    tmp.write_text(json.dumps(meta), encoding="utf-8")  # ASCII: any str can be written (escaped)
    os.replace(tmp, desc)  # the description last: an entry is complete once its .json exists
    return body


def pending(path: str | os.PathLike | None = None) -> list[tuple[Path, dict]]:
    """Complete queued entries, oldest first: (bytes file, description)."""
    box = inbox_dir(path)
    if not box.is_dir():
        return []
    out = []
    for desc in sorted(box.glob("*.json"), key=lambda p: p.stat().st_mtime):
        body = desc.with_suffix(".bin")
        if body.exists():
            try:
                out.append((body, json.loads(desc.read_text(encoding="utf-8"))))
            except (OSError, ValueError):
                continue
    return out


def finish(body: Path) -> None:
    """Move an imported (or refused) entry out of the queue into `done/`."""
    done = body.parent / "done"
    done.mkdir(exist_ok=True)
    for p in (body, body.with_suffix(".json")):
        if p.exists():
            os.replace(p, done / p.name)


def set_aside(body: Path, reason: str) -> Path:
    """Move a refused (or unimportable) entry into `rejected/`, with `<key>.reason.txt` saying why; returns the
    moved bytes file."""
    rejected = body.parent / "rejected"
    rejected.mkdir(exist_ok=True)
    (rejected / f"{body.stem}.reason.txt").write_text(reason + "\n", encoding="utf-8", errors="backslashreplace")
    for p in (body, body.with_suffix(".json")):
        if p.exists():
            os.replace(p, rejected / p.name)
    return rejected / body.name
