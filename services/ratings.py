"""Human ratings of the cultural probes, written through the one locked, audited path (never on a read cursor)."""
from __future__ import annotations

from services.write import locked
from store import audit, ratings
from store.ratings import RatingsError, RatingsSummary

__all__ = ["RatingsError", "RatingsSummary", "add_ratings"]


def add_ratings(data: bytes | str, file_name: str, *, actor: str = "web:anonymous", db_path=None,
                timeout: float = 120.0) -> RatingsSummary:
    """Validate and store a ratings CSV; RatingsError (file, line, field) leaves the store unchanged."""
    with locked(db_path, actor=actor, timeout=timeout, file_name=file_name) as con:
        added = ratings.ingest_ratings(con, data, file_name)
        audit.record(con, actor, "ratings", file_name=file_name,
                     detail=f"{added.n_rows} scores, {added.n_items} probes, {added.n_models} models")
        return added
