"""Who may write: one token per action, closed by default on a public Space (docs/security.md, "Roles and tokens").

Actions and their tokens:

    queue   TANAW_SUBMIT_TOKEN    request an evaluation (the worker spends GPU hours on it)
    upload  TANAW_UPLOAD_TOKEN    upload result files (a shared token: its holders are one identity); personal
                                  tokens come from TANAW_UPLOADER_TOKENS ("alice:tok1,bob:tok2", a Space secret:
                                  each token names its uploader) or are issued by the operator into the store
                                  (services.gate resolves those)
    rate    TANAW_RATER_TOKENS    upload human ratings; "alice:tok1,bob:tok2": each token names its rater
    admin   TANAW_ADMIN_TOKEN     hide, show again or delete uploads; read the audit trail

With the token set, the action needs it (compared in constant time). Without it the action is *closed* when the
app runs as a public Hugging Face Space (SPACE_ID set) and *open* on a self-hosted app; admin is never open without
its token. Pages ask `mode(action)` what to show and `authorise(action, given)` before calling a write.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from typing import Mapping

from store.owners import ANONYMOUS, SHARED_TOKEN, uploader_identity

TOKENS = {"queue": "TANAW_SUBMIT_TOKEN", "upload": "TANAW_UPLOAD_TOKEN", "rate": "TANAW_RATER_TOKENS",
          "admin": "TANAW_ADMIN_TOKEN"}
"""The environment variable holding each action's token(s)."""
UPLOADERS_ENV = "TANAW_UPLOADER_TOKENS"
"""Personal upload tokens as a secret, "name:token,name:token": each token names its uploader (survives a Space's
restart, unlike tokens issued into a store that is not persisted)."""
SPACE_ENV = "SPACE_ID"
"""Set by Hugging Face on every Space: the app is public."""


@dataclass(frozen=True)
class Grant:
    """An authorised caller."""

    actor: str
    """For the audit trail: "web:anonymous", "web:upload-token", "rater:alice", "admin"."""
    rater: str | None = None
    """The rater a rater token names (ratings rows must be theirs); None when the action is open."""
    owner: str | None = None
    """For uploads: the identity the models it creates belong to (store.owners); None for other actions."""


def token_hash(token: str) -> str:
    """What the store keeps of a personal token (annotator, uploader): its sha256, never the token."""
    return hashlib.sha256(token.strip().encode()).hexdigest()


def new_token() -> str:
    """A personal token (shown once to whoever issues it)."""
    return secrets.token_urlsafe(24)


def public_space(env: Mapping[str, str] | None = None) -> bool:
    """Whether the app runs as a public Hugging Face Space."""
    return bool((os.environ if env is None else env).get(SPACE_ENV))


def _named_tokens(value: str) -> dict[str, str]:
    """token -> name from "name:token,name:token" (entries without both parts are ignored)."""
    out = {}
    for entry in value.split(","):
        name, _, token = entry.strip().partition(":")
        if name.strip() and token.strip():
            out[token.strip()] = name.strip()
    return out


def _named(value: str, given: str) -> str | None:
    """The name whose token in "name:token,..." is `given`, comparing every entry in constant time."""
    found = None
    for token, name in _named_tokens(value).items():
        if hmac.compare_digest(token.encode(), given.encode()):
            found = name
    return found


def mode(action: str, env: Mapping[str, str] | None = None) -> str:
    """"token" (a token is configured and needed), "open" (self-hosted, none configured) or "closed"."""
    env = os.environ if env is None else env
    value = (env.get(TOKENS[action]) or "").strip()
    if action == "rate" and value and not _named_tokens(value):
        return "closed"
    if value or (action == "upload" and _named_tokens(env.get(UPLOADERS_ENV) or "")):
        return "token"
    return "closed" if action == "admin" or public_space(env) else "open"


def authorise(action: str, given: str | None, env: Mapping[str, str] | None = None) -> Grant | None:
    """The grant for a caller presenting `given` (None when refused); every comparison is constant-time."""
    env = os.environ if env is None else env
    state = mode(action, env)
    if state == "open":
        return Grant(ANONYMOUS, owner=ANONYMOUS if action == "upload" else None)
    if state == "closed" or not given:
        return None
    value = (env.get(TOKENS[action]) or "").strip()
    if action == "rate":
        found = _named(value, given)
        return Grant(f"rater:{found}", rater=found) if found else None
    if action == "upload":
        found = _named(env.get(UPLOADERS_ENV) or "", given)
        if found:
            return Grant(uploader_identity(found), owner=uploader_identity(found))
    if value and hmac.compare_digest(value.encode(), given.encode()):
        return Grant("admin" if action == "admin" else f"web:{action}-token",
                     owner=SHARED_TOKEN if action == "upload" else None)
    return None
