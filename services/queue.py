"""Queueing an evaluation request: the one path for the queue page and `python -m evaluator queue add`; with
TANAW_QUEUE_REPO set, a new request is pushed to that private repo, where workers pull it."""
from __future__ import annotations

import os
from typing import Mapping

from evaluator.endpoints import EndpointRefused
from store.queue import STATUSES, QueueError, Submission

__all__ = ["STATUSES", "EndpointRefused", "QueueError", "Submission", "submit_request"]


def submit_request(db_path: str | os.PathLike | None, request, *, env: Mapping[str, str] | None = None,
                   timeout: float = 30.0):
    """Check a request (fields, then endpoint policy) and queue it under the writer lock; (stored, created?).

    Raises store.queue.QueueError or evaluator.endpoints.EndpointRefused (messages safe to show anyone)."""
    from evaluator import endpoints, runspec
    from services.hub_sync import push_queue
    from services.ownership import name_refusal
    from store import audit, owners, queue
    from store.writer_lock import writer

    queue.validate(request)
    try:
        runspec.check_request(request)
    except runspec.ConfigError as exc:
        raise QueueError(str(exc).removeprefix("request: ")) from None
    if request.backend == "openai":
        endpoints.check(request.base_url, request.api_key_env, env=env)
    elif request.api_key_env:
        raise endpoints.EndpointRefused("api_key_env: Hub models are served by the worker; no key is sent",
                                        "hub request names a key")
    with writer(db_path, timeout=timeout) as con:
        refusal = name_refusal(con, request.model_id, owners.QUEUE)
        if refusal is not None:  # an existing model of another identity, or a look-alike name: audited
            audit.record(con, f"queue:{request.submitter or 'anonymous'}", "reject", model_id=request.model_id,
                         detail=f"queue: model_id: {refusal}")
            raise QueueError(f"model_id: {refusal}")
        stored, created = queue.submit(con, request)
        if created:  # to the workers, through the private queue repo (a failed push is retried at the next pull)
            push_queue(con, f"Queue: {stored.model_id} PENDING ({stored.request_id})")
        return stored, created
