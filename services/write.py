"""What pages need to know about writes: the writer lock's `WriterBusy` (pages never take the lock themselves).

Every write runs in a service under `store.writer_lock.writer` (one writer per store file, one transaction) with
an audit row where a person acted: uploads and admin actions (services.upload), queue requests (services.queue),
ratings (services.ratings), Hub pulls and pushes (services.hub_sync, logged in `hub_sync`), the worker's claims
(services.worker), live runs (services.live.save_live).
"""
from __future__ import annotations

from store.writer_lock import WriterBusy

__all__ = ["WriterBusy"]
