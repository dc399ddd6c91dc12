"""The submission queue: evaluation requests with status PENDING -> RUNNING -> FINISHED | FAILED.

A model developer submits a model served at an OpenAI-compatible endpoint or a Hub model id; `python -m evaluator
worker` claims the oldest PENDING request (atomically, so two workers never take the same one), runs it and marks
it FINISHED or FAILED. API keys are never stored: a request names the environment variable the worker reads.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, fields
from datetime import datetime
from urllib.parse import urlsplit

import duckdb

STATUSES = ("PENDING", "RUNNING", "FINISHED", "FAILED")
BACKENDS = ("openai", "hub")
MODES = ("leakage",)
"""A request's mode besides an evaluation run (None): "leakage", the `leakage` run mode's probes of the model."""
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")
_CSV = re.compile(r"[A-Za-z0-9][\w.,-]{0,499}")
"""Comma lists and revisions: no leading '-', so no value can pose as a command-line option."""


class QueueError(ValueError):
    """A request that cannot be queued, naming the field at fault."""


@dataclass(frozen=True)
class Submission:
    """One evaluation request as stored."""

    request_id: str
    """Hash of the request's settings and submission time."""
    model_id: str
    """Name shown on the leaderboard."""
    backend: str
    """"openai" (an OpenAI-compatible endpoint) or "hub" (a Hub model the worker serves itself)."""
    base_url: str | None = None
    """Endpoint including /v1, for backend "openai"."""
    hub_model: str | None = None
    """Hub repo id, for backend "hub" (or the served model name at an endpoint)."""
    revision: str | None = None
    """Hub revision (commit or branch) for backend "hub"."""
    api_key_env: str | None = None
    """Name of the environment variable holding the endpoint's key on the worker (never the key)."""
    tasks: str | None = None
    """Comma list of task ids or families; None = all."""
    langs: str | None = None
    """Comma list of languages; None = every language of each task."""
    prompt_langs: str | None = "en,native"
    """Comma list of prompt languages."""
    item_limit: int | None = None
    """At most this many items per task and language (None = all)."""
    submitter: str | None = None
    note: str | None = None
    status: str = "PENDING"
    worker: str | None = None
    """Worker that claimed the request."""
    error: str | None = None
    """Why a request FAILED."""
    n_results: int | None = None
    """Answers stored by the run."""
    created_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    mode: str | None = None
    """None: an evaluation run; "leakage": the leakage probes (MODES) of the same model, tasks and languages."""


COLUMNS = tuple(f.name for f in fields(Submission))


def validate(sub: Submission) -> None:
    """Field checks of a request (QueueError naming the field); the endpoint policy is evaluator.endpoints.check,
    applied by the page, `queue add` and the worker."""
    if not sub.model_id.strip() or len(sub.model_id) > 200 or sub.model_id.startswith("-"):
        raise QueueError("model_id: required, at most 200 characters, not starting with '-'")
    if sub.mode is not None and sub.mode not in MODES:
        raise QueueError(f"mode: must be empty (an evaluation run) or one of {MODES}, not {sub.mode!r}")
    if sub.backend not in BACKENDS:
        raise QueueError(f"backend: must be one of {BACKENDS}, not {sub.backend!r}")
    if sub.backend == "openai":
        url = urlsplit(sub.base_url or "")
        if url.scheme not in ("http", "https") or not url.netloc:
            raise QueueError(f"base_url: an http(s) URL is required for an OpenAI-compatible endpoint, "
                             f"not {sub.base_url!r}")
    if sub.backend == "hub" and not _HUB_ID.fullmatch(sub.hub_model or ""):
        raise QueueError(f"hub_model: a Hub model id like 'org/name' is required, not {sub.hub_model!r}")
    if sub.api_key_env and not _ENV_NAME.fullmatch(sub.api_key_env):
        raise QueueError("api_key_env: the NAME of an environment variable (A-Z, 0-9, _), never the key itself")
    for name in ("tasks", "langs", "prompt_langs", "revision"):
        if getattr(sub, name) and not _CSV.fullmatch(getattr(sub, name)):
            raise QueueError(f"{name}: letters, digits, '.', '_', '-' and commas only")
    if sub.item_limit is not None and sub.item_limit < 1:
        raise QueueError("item_limit: a positive number of items, or empty for all")


def _from_row(row) -> Submission:
    return Submission(*row)


def submit(con: duckdb.DuckDBPyConnection, sub: Submission) -> tuple[Submission, bool]:
    """Queue `sub` as PENDING; returns (stored request, created?). An identical request still PENDING or RUNNING
    is returned instead of a duplicate."""
    validate(sub)
    same = ("model_id", "backend", "base_url", "hub_model", "revision", "tasks", "langs", "prompt_langs",
            "item_limit", "mode")
    where = " AND ".join(f"{c} IS NOT DISTINCT FROM ?" for c in same)
    dup = con.execute(f"SELECT {', '.join(COLUMNS)} FROM submissions WHERE status IN ('PENDING', 'RUNNING') "
                      f"AND {where} ORDER BY created_at LIMIT 1", [getattr(sub, c) for c in same]).fetchone()
    if dup:
        return _from_row(dup), False
    now = datetime.now()
    rid = hashlib.sha256(json.dumps([getattr(sub, c) for c in same] + [now.isoformat()]).encode()).hexdigest()[:16]
    keep = [c for c in COLUMNS if c not in ("request_id", "status", "created_at")]
    con.execute(f"INSERT INTO submissions (request_id, status, created_at, {', '.join(keep)}) "
                f"VALUES (?, 'PENDING', ?, {', '.join('?' for _ in keep)})",
                [rid, now, *[getattr(sub, c) for c in keep]])
    return get(con, rid), True


def get(con: duckdb.DuckDBPyConnection, request_id: str) -> Submission:
    """The stored request; KeyError when unknown."""
    row = con.execute(f"SELECT {', '.join(COLUMNS)} FROM submissions WHERE request_id = ?", [request_id]).fetchone()
    if row is None:
        raise KeyError(f"no submission {request_id!r}")
    return _from_row(row)


def listing(con: duckdb.DuckDBPyConnection, status: str | None = None) -> list[Submission]:
    """Requests, oldest first, optionally of one status."""
    rows = con.execute(f"SELECT {', '.join(COLUMNS)} FROM submissions WHERE ? IS NULL OR status = ? "
                       "ORDER BY created_at, request_id", [status, status]).fetchall()
    return [_from_row(r) for r in rows]


def claim_next(con: duckdb.DuckDBPyConnection, worker: str) -> Submission | None:
    """Mark the oldest PENDING request RUNNING for `worker` and return it; None when the queue is empty."""
    con.execute("BEGIN TRANSACTION")
    try:
        row = con.execute("SELECT request_id FROM submissions WHERE status = 'PENDING' "
                          "ORDER BY created_at, request_id LIMIT 1").fetchone()
        if row:
            con.execute("UPDATE submissions SET status = 'RUNNING', worker = ?, started_at = current_timestamp, "
                        "error = NULL WHERE request_id = ? AND status = 'PENDING'", [worker, row[0]])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return get(con, row[0]) if row else None


def _close(con: duckdb.DuckDBPyConnection, request_id: str, status: str, error: str | None,
           n_results: int | None) -> Submission:
    if get(con, request_id).status != "RUNNING":
        raise QueueError(f"request {request_id} is not RUNNING")
    con.execute("UPDATE submissions SET status = ?, error = ?, n_results = ?, finished_at = current_timestamp "
                "WHERE request_id = ?", [status, error, n_results, request_id])
    return get(con, request_id)


def finish(con: duckdb.DuckDBPyConnection, request_id: str, n_results: int | None = None,
           warning: str | None = None) -> Submission:
    """RUNNING -> FINISHED, with a warning kept in `error` when some answers failed."""
    return _close(con, request_id, "FINISHED", warning[:2000] if warning else None, n_results)


def fail(con: duckdb.DuckDBPyConnection, request_id: str, error: str) -> Submission:
    """RUNNING -> FAILED with the reason (first 2000 characters)."""
    return _close(con, request_id, "FAILED", error[:2000], None)


def release_stale(con: duckdb.DuckDBPyConnection, worker: str) -> int:
    """Put requests left RUNNING by `worker` (it died mid-run) back to PENDING; returns how many."""
    n = con.execute("SELECT count(*) FROM submissions WHERE status = 'RUNNING' AND worker = ?", [worker]).fetchone()[0]
    con.execute("UPDATE submissions SET status = 'PENDING', started_at = NULL WHERE status = 'RUNNING' "
                "AND worker = ?", [worker])
    return n


STATUS_ORDER = {"PENDING": 0, "RUNNING": 1, "FINISHED": 2, "FAILED": 2}
"""How far a request has got: when two stores (the Space's and a worker's) hold the same request, the later status
wins (`merge_staged`); FINISHED and FAILED are both final, and of two final statuses the store's own is kept."""
_ORDER_SQL = "CASE {t}.status " + " ".join(f"WHEN '{s}' THEN {n}" for s, n in STATUS_ORDER.items()) + " END"


def merge_staged(con: duckdb.DuckDBPyConnection, staged: str) -> None:
    """Merge another store's requests (staged in temp table `staged`, shaped like `submissions`, name from the
    caller's code) into this one, inside the caller's transaction: unknown requests are added, a request the other
    store has further along (PENDING < RUNNING < FINISHED | FAILED) replaces this store's row, and rows with a status
    outside STATUSES are ignored. A request whose mode is not a known one (MODES) is added as it is and refused by
    the worker's checks (`validate`)."""
    x = '"' + staged.replace('"', '""') + '"'
    theirs, ours = _ORDER_SQL.format(t="x"), _ORDER_SQL.format(t="s")
    con.execute(f"DELETE FROM submissions WHERE request_id IN (SELECT s.request_id FROM submissions s JOIN {x} x "
                f"USING (request_id) WHERE {theirs} > {ours})")
    known = ", ".join("?" for _ in STATUSES)
    con.execute(f"INSERT OR IGNORE INTO submissions SELECT * FROM {x} WHERE status IN ({known})", list(STATUSES))
