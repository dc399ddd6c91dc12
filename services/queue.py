"""Evaluation requests from the Queue page: checked, then written through the one locked, audited path."""
from __future__ import annotations

import os

from services.write import locked
from store import queue
from store.queue import STATUSES, QueueError, Submission, is_private_endpoint

__all__ = ["STATUSES", "PRIVATE_ENV", "QueueError", "Submission", "submit_request"]

PRIVATE_ENV = "TANAW_ALLOW_PRIVATE_ENDPOINTS"
"""Set on a self-hosted app to accept endpoints on its own network."""


def submit_request(request: Submission, *, db_path=None, timeout: float = 120.0) -> tuple[Submission, bool]:
    """Queue `request` (a `Submission` from the form); returns (stored request, newly created). Raises QueueError
    for a refused request (nothing written) and WriterBusy when the store stays busy."""
    if is_private_endpoint(request.base_url) and not os.environ.get(PRIVATE_ENV):
        raise QueueError("base_url: private and local addresses are not accepted here")
    actor = "web:" + (request.submitter or "anonymous")
    with locked(db_path, actor=actor, action="queue", model_id=request.model_id, timeout=timeout) as con:
        return queue.submit(con, request)
