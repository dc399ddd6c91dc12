"""Human ratings from the Cultural page: authorised by the caller (store.access), locked, audited, own rows only."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from store import audit, ratings
from store.ratings import RatingsError, RatingsSummary
from store.writer_lock import writer

__all__ = ["RatingsError", "RatingsSummary", "save_ratings"]


def save_ratings(db_path: str | os.PathLike | None, data: str | bytes | Path, file_name: str | None = None, *,
                 actor: str, rater: str | None = None, timeout: float = 60.0) -> RatingsSummary:
    """The app's ratings write: under the writer lock, all or nothing, audited (refusals too)."""
    with writer(db_path, timeout=timeout) as con:
        try:
            return ratings.ingest_ratings(con, data, file_name, rater=rater, actor=actor)
        except ratings.RatingsError as e:
            raw = data.read_bytes() if isinstance(data, Path) else data.encode() if isinstance(data, str) else data
            audit.record(con, actor, "reject", source_hash=hashlib.sha256(raw).hexdigest(), file_name=file_name,
                         detail=f"ratings: {e}")
            raise
