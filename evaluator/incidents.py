"""Unexpected failures while handling a visitor's input: logged in full for the operator, shown as a short id."""
from __future__ import annotations

import logging
import secrets

log = logging.getLogger("tanaw.incidents")


def record(where: str) -> str:
    """Log the exception being handled (with its traceback) under a new id; return the id to show the visitor.

    Call inside an `except` block. The visitor sees only the id, never the traceback or the exception text.
    """
    error_id = secrets.token_hex(4)
    log.exception("incident %s in %s", error_id, where)
    return error_id


def message(error_id: str, what: str = "Something went wrong") -> str:
    """The one line a visitor sees."""
    return f"{what}; nothing was changed. The error is logged as {error_id}: quote it when reporting the problem."
