"""The inbox beside a store file: where the CLI queues writes while another process (the app) holds the store.

DuckDB allows one read-write process per file, and the app keeps its connection open, so a CLI write that cannot
get the file drops it into `<db>.inbox/`: an upload as its bytes and a small JSON description (`drop`), any other
write as a request (`drop_request`: an operation name and its arguments). The serving app applies both within
seconds (services.serving watches the inbox; an upload goes through the same upload flow, see
`services.upload.drain_inbox`) and at its start, and answers each entry in `<key>.reply.json` (`reply`), which the
CLI waits for (`wait_reply`). Files are written to a temporary name and renamed, so nobody reads half a file;
imported entries move to `<db>.inbox/done/`, entries that were refused or could not be imported to
`<db>.inbox/rejected/` with the reason beside them, so a bad entry is never tried again.

A serving process touches `<db>.inbox/serving` every few seconds (`heartbeat`): `serving()` tells a CLI command
that an app is there to apply what it queues.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any, Callable

from store import db


def inbox_dir(path: str | os.PathLike | None = None) -> Path:
    p = db.db_path(path).resolve()
    return p.with_name(p.name + ".inbox")


def drop(path: str | os.PathLike | None, data: bytes, meta: dict[str, Any]) -> Path:
    """Queue an upload's bytes with its description (name, format, model, actor); returns the queued file."""
    box = inbox_dir(path)
    box.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(data).hexdigest()[:32]
    (box / f"{key}{REPLY_SUFFIX}").unlink(missing_ok=True)  # an answer to an earlier queuing of the same bytes
    body = box / f"{key}.bin"
    tmp = box / f".{key}.bin.tmp"
    tmp.write_bytes(data)
    os.replace(tmp, body)
    desc = box / f"{key}.json"
    tmp = box / f".{key}.json.tmp"
    tmp.write_text(json.dumps(meta), encoding="utf-8")  # ASCII: any str can be written (escaped)
    os.replace(tmp, desc)  # the description last: an entry is complete once its .json exists
    return body


REQUEST_SUFFIX = ".request.json"
REPLY_SUFFIX = ".reply.json"
HEARTBEAT = "serving"
ALIVE_S = 15.0
"""A serving heartbeat older than this is a stopped app's."""


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary name, readable by this user only (a reply can hold tokens)."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def drop_request(path: str | os.PathLike | None, op: str, args: dict[str, Any], actor: str) -> str:
    """Queue a write request (`op` with JSON arguments) for the serving app; returns its key (for `wait_reply`)."""
    box = inbox_dir(path)
    box.mkdir(parents=True, exist_ok=True)
    key = f"{time.time_ns():020d}-{secrets.token_hex(4)}"
    _write_private(box / f"{key}{REQUEST_SUFFIX}", json.dumps({"op": op, "args": args, "actor": actor}))
    return key


def requests(path: str | os.PathLike | None = None) -> list[tuple[str, dict]]:
    """Queued write requests, oldest first: (key, {"op", "args", "actor"}); an unreadable one is answered as such."""
    box = inbox_dir(path)
    if not box.is_dir():
        return []
    out = []
    for f in sorted(box.glob(f"*{REQUEST_SUFFIX}")):
        key = f.name.removesuffix(REQUEST_SUFFIX)
        try:
            out.append((key, json.loads(f.read_text(encoding="utf-8"))))
        except (OSError, ValueError):
            reply(path, key, {"ok": False, "error": "the request file could not be read"})
    return out


def reply(path: str | os.PathLike | None, key: str, answer: dict[str, Any]) -> None:
    """Answer entry `key` (a request, or a queued upload's bytes file stem) and take a request out of the queue."""
    box = inbox_dir(path)
    _write_private(box / f"{key}{REPLY_SUFFIX}", json.dumps(answer))
    request = box / f"{key}{REQUEST_SUFFIX}"
    if request.exists():
        done = box / "done"
        done.mkdir(exist_ok=True)
        os.replace(request, done / request.name)


def wait_reply(path: str | os.PathLike | None, key: str, timeout: float,
               progress: Callable[[float], None] | None = None) -> dict | None:
    """The serving app's answer to entry `key` (removed once read), or None after `timeout` seconds;
    `progress(seconds waited)` is called about every five seconds."""
    f = inbox_dir(path) / f"{key}{REPLY_SUFFIX}"
    start = last = time.monotonic()
    while True:
        if f.exists():
            try:
                answer = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                answer = {"ok": False, "error": "the app's reply could not be read"}
            f.unlink(missing_ok=True)
            return answer
        now = time.monotonic()
        if now - start > timeout:
            return None
        if progress and now - last >= 5:
            progress(now - start)
            last = now
        time.sleep(0.2)


def heartbeat(path: str | os.PathLike | None = None) -> None:
    """Say that a serving process applies this store's inbox (touched every few seconds while it runs)."""
    box = inbox_dir(path)
    box.mkdir(parents=True, exist_ok=True)
    _write_private(box / HEARTBEAT, json.dumps({"pid": os.getpid(), "at": time.time()}))


def serving(path: str | os.PathLike | None = None) -> bool:
    """Whether a serving process applied this store's inbox within the last ALIVE_S seconds."""
    try:
        return time.time() - (inbox_dir(path) / HEARTBEAT).stat().st_mtime < ALIVE_S
    except OSError:
        return False


def pending(path: str | os.PathLike | None = None) -> list[tuple[Path, dict]]:
    """Complete queued uploads, oldest first: (bytes file, description)."""
    box = inbox_dir(path)
    if not box.is_dir():
        return []
    out = []
    for desc in sorted(box.glob("*.json"), key=lambda p: p.stat().st_mtime):
        body = desc.with_suffix(".bin")
        if desc.name.endswith((REQUEST_SUFFIX, REPLY_SUFFIX)):
            continue
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
