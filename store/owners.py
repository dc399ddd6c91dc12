"""Who owns each model, and the uploader tokens the operator issues (migration 16).

A model belongs to the identity that first wrote it: OPERATOR for the command line (and every model stored before
ownership was recorded), "uploader:<name>" for a per-uploader token, SHARED_TOKEN for the shared
TANAW_UPLOAD_TOKEN, QUEUE for queued requests, ANONYMOUS on a self-hosted app whose uploads are open. Only the owner may add runs to a model or
change its card; services.upload.ingest_upload checks this before writing. Tokens are stored as sha256 only and are
never exported (store.schema.PRIVATE_TABLES).
"""
from __future__ import annotations

import duckdb

from store import audit

OPERATOR = "operator"
"""The command line's identity, and the owner of models stored before migration 16."""
SHARED_TOKEN = "upload-token"
"""Everyone holding the shared TANAW_UPLOAD_TOKEN: one identity."""
QUEUE = "queue"
"""Queued evaluation requests (everyone holding TANAW_SUBMIT_TOKEN, or anyone when requests are open): the models
the worker creates from them."""
ANONYMOUS = "web:anonymous"
"""Visitors of a self-hosted app whose uploads are open (no token configured, not a public Space)."""
UPLOADER = "uploader:"
"""Prefix of the identity a per-uploader token names."""


def uploader_identity(name: str) -> str:
    return UPLOADER + name


def owner_of(con: duckdb.DuckDBPyConnection, model_id: str) -> str | None:
    """The identity that owns `model_id` (OPERATOR when none was recorded), or None when there is no such model."""
    row = con.execute("SELECT coalesce(owner, ?) FROM models WHERE model_id = ?", [OPERATOR, model_id]).fetchone()
    return row[0] if row else None


def model_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every stored model's name, hidden ones included (a hidden model's name is still taken)."""
    return [r[0] for r in con.execute("SELECT model_id FROM models ORDER BY model_id").fetchall()]


def reported_systems(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The systems the papers report results for (the `reported` rows)."""
    return [r[0] for r in con.execute("SELECT DISTINCT system FROM reported WHERE system IS NOT NULL "
                                      "ORDER BY system").fetchall()]


def uploader_of(con: duckdb.DuckDBPyConnection, token_hash: str) -> str | None:
    """The uploader whose token has this sha256, or None."""
    row = con.execute("SELECT uploader FROM uploader_tokens WHERE token_hash = ?", [token_hash]).fetchone()
    return row[0] if row else None


def has_uploaders(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(con.execute("SELECT count(*) FROM uploader_tokens").fetchone()[0])


def uploaders(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """(uploader, issued by, issued at, models owned) for every uploader with a token."""
    return con.execute("""
        SELECT t.uploader, t.created_by, t.created_at,
               (SELECT count(*) FROM models m WHERE m.owner = ? || t.uploader)
        FROM uploader_tokens t ORDER BY t.uploader""", [UPLOADER]).fetchall()


def put_uploader(con: duckdb.DuckDBPyConnection, name: str, token_hash: str, actor: str) -> None:
    """Issue (or replace: the old token stops working) an uploader's token, audited; the caller holds the writer
    lock and a transaction."""
    con.execute("DELETE FROM uploader_tokens WHERE uploader = ?", [name])
    con.execute("INSERT INTO uploader_tokens (uploader, token_hash, created_by) VALUES (?, ?, ?)",
                [name, token_hash, actor[:200]])
    audit.record(con, actor, "uploader-token", detail=f"token issued for uploader {name}")


def drop_uploader(con: duckdb.DuckDBPyConnection, name: str, actor: str) -> bool:
    """Revoke an uploader's token (their models stay theirs), audited; whether there was one."""
    found = con.execute("SELECT count(*) FROM uploader_tokens WHERE uploader = ?", [name]).fetchone()[0]
    if found:
        con.execute("DELETE FROM uploader_tokens WHERE uploader = ?", [name])
        audit.record(con, actor, "uploader-revoke", detail=f"token revoked for uploader {name}")
    return bool(found)
