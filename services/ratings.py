"""Human ratings from the Cultural page: authorised by the caller (store.access), then written as a 'ratings'
campaign's judgements by services.campaigns.import_ratings (locked, audited, own rows only)."""
from __future__ import annotations

import os
from pathlib import Path

from services import campaigns
from store.ratings import RatingsError, RatingsSummary

__all__ = ["RatingsError", "RatingsSummary", "save_ratings"]


def save_ratings(db_path: str | os.PathLike | None, data: str | bytes | Path, file_name: str | None = None, *,
                 actor: str, rater: str | None = None, timeout: float = 60.0) -> RatingsSummary:
    """The app's ratings write: under the writer lock, all or nothing, audited (refusals too)."""
    return campaigns.import_ratings(db_path, data, file_name, actor=actor, rater=rater, timeout=timeout)
