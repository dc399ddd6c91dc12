"""Which identity may write under a model name (docs/security.md, "Model names and owners").

Every write path that names a model asks `name_refusal` first, under the writer lock: uploads
(services.upload.ingest_upload, the identity the uploader's token names; the command line is the operator), queued
requests (services.queue.submit_request and the worker's claim, identity QUEUE) and live runs (services.run.execute,
the spec's owner, else the operator).
"""
from __future__ import annotations

from evaluator.names import lookalike
from store import owners


def name_refusal(con, model_id: str, owner: str) -> str | None:
    """Why `owner` may not write under `model_id`, or None: the model exists and belongs to another identity; or
    it is new and its name looks like (`evaluator.names.lookalike`) another model's or a paper-reported system's;
    or it is new and takes a reported system's very name (only the operator may)."""
    existing = owners.owner_of(con, model_id)
    if existing is not None:
        return None if existing == owner else (f"{model_id!r} belongs to another uploader: only they can add runs "
                                               "to it or change its card; choose a name of your own")
    twin = lookalike(model_id, owners.model_names(con))
    if twin is not None:
        return f"{model_id!r} looks like the existing model {twin!r}; choose a name that cannot be mistaken for it"
    reported = owners.reported_systems(con)
    if owner != owners.OPERATOR and model_id in reported:
        return f"{model_id!r} is a system the papers report results for; choose a name of your own"
    twin = lookalike(model_id, reported)
    if twin is not None:
        return (f"{model_id!r} looks like {twin!r}, a system the papers report results for; choose a name that "
                "cannot be mistaken for it")
    return None
