"""The pages' token checks: who a token names, every refusal audited, repeated failures slowed down.

`check(action, token, client)` is what a page calls before a write (upload, queue, rate, admin). It resolves the
token (`store.access.authorise`; for uploads first the per-uploader tokens the operator issued, stored hashed in
`uploader_tokens`), and when the token is wrong it writes an audit row (`refuse`: the action and the client, never
the token) and counts the failure against the client (`store.throttle.Limiter`): after a few wrong tokens within
ten minutes the client is locked out, for longer after each further failure, and refused before its token is
looked at (audited too). `issue_uploader` / `revoke_uploader` are the operator's (CLI `python -m evaluator
uploader`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from math import ceil
from typing import Any, Mapping

from store import access, audit, owners
from store.db import transaction
from store.throttle import Limiter
from store.writer_lock import WriterBusy, writer

LIMITER = Limiter()
"""One per process: the app serves every session from one process."""
REFUSED = {"upload": "Uploads need a valid upload token", "queue": "Requests need a valid submission token",
           "rate": "Ratings need a valid rater token", "admin": "Admin actions need the admin token"}
"""What a page shows for a wrong token, by action."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of a token check."""

    grant: access.Grant | None
    """Who the token names; None when refused (or no token was given)."""
    message: str | None = None
    """Why it was refused, for the page to show (None when granted or no token was given)."""
    locked: bool = False
    """Refused without looking at the token: the client is locked out (the same token may pass later)."""


def _uploader_grant(con: Any, token: str) -> access.Grant | None:
    if not token or len(token) > 200:
        return None
    name = owners.uploader_of(con, access.token_hash(token))
    if name is None:
        return None
    identity = owners.uploader_identity(name)
    return access.Grant(identity, owner=identity)


def mode(action: str, con: Any = None, env: Mapping[str, str] | None = None) -> str:
    """`store.access.mode`, except that uploads need a token ("token") as soon as the operator has issued an
    uploader token, whatever TANAW_UPLOAD_TOKEN says."""
    state = access.mode(action, env)
    if action == "upload" and state != "token" and con is not None and owners.has_uploaders(con):
        return "token"
    return state


def check(action: str, token: str | None, client: str, *, con: Any = None, db_path: str | os.PathLike | None = None,
          env: Mapping[str, str] | None = None, limiter: Limiter | None = None) -> Verdict:
    """Resolve `token` for `action` on behalf of `client` (a key for the caller: an address or a session).
    `con`: a read connection (the uploader tokens); `db_path`: the store the audit rows go to."""
    limiter = limiter or LIMITER
    wait = limiter.wait(client)
    if wait > 0:
        _refused(db_path, client, f"{action}: refused unchecked, locked out for {ceil(wait)} s more after repeated "
                                  "wrong tokens")
        return Verdict(None, f"Too many wrong tokens from this connection; try again in {ceil(wait)} s.", True)
    grant = _uploader_grant(con, token or "") if action == "upload" and con is not None else None
    state = mode(action, con, env)
    if grant is None and (state == "open" or (state == "token" and access.mode(action, env) == "token")):
        grant = access.authorise(action, token, env)
    if grant is not None:
        if token:
            limiter.succeed(client)
        return Verdict(grant)
    if not token:
        return Verdict(None)
    failures, locked = limiter.fail(client)
    _refused(db_path, client, f"{action}: wrong token (failure {failures} from this client within "
                              f"{limiter.window / 60:g} min" + (f"; locked out for {ceil(locked)} s)" if locked
                                                                 else ")"))
    message = f"{REFUSED[action]}; ask the maintainers."
    if locked:
        message += f" Too many wrong tokens from this connection; try again in {ceil(locked)} s."
    return Verdict(None, message)


def _refused(db_path: str | os.PathLike | None, client: str, detail: str) -> None:
    """One audit row for a refusal (never the token). A busy store loses the row, not the refusal."""
    try:
        with writer(db_path, timeout=5.0) as con:
            audit.record(con, f"web:{client}", "refuse", detail=detail)
    except WriterBusy:
        pass


def client_key(headers: Mapping[str, str] | None, fallback: str) -> str:
    """The client a request comes from: the first address in X-Forwarded-For (the Space's proxy sets it), else
    `fallback` (the browser session). Trimmed to 100 characters."""
    forwarded = next((str(v) for k, v in (headers or {}).items() if str(k).lower() == "x-forwarded-for"), "")
    forwarded = forwarded.split(",")[0].strip()
    return (f"ip:{forwarded}" if forwarded else f"session:{fallback}")[:100]


def issue_uploader(db_path: str | os.PathLike | None, name: str, *, actor: str, timeout: float = 60.0) -> str:
    """A new token for uploader `name` (a previous one stops working); returns the token, stored only hashed.
    The models the uploader creates belong to "uploader:<name>"."""
    name = name.strip()
    if not name or len(name) > 100 or any(not (ch.isalnum() or ch in "-_.") for ch in name):
        raise ValueError("uploader name: 1-100 letters, digits, '-', '_' or '.'")
    token = access.new_token()
    with writer(db_path, timeout=timeout) as con, transaction(con):
        owners.put_uploader(con, name, access.token_hash(token), actor)
    return token


def revoke_uploader(db_path: str | os.PathLike | None, name: str, *, actor: str, timeout: float = 60.0) -> bool:
    """Revoke an uploader's token (their models stay theirs); whether they had one."""
    with writer(db_path, timeout=timeout) as con, transaction(con):
        return owners.drop_uploader(con, name.strip(), actor)
