"""The wiring: the only package that imports both `evaluator` (items, scoring, aggregates) and `store` (DuckDB).

Ingest and uploads (`ingest`, `upload`), the runner's live sink, the demo store builder (`demo`) and the
submission worker (`worker`) live here; the CLI `python -m evaluator` and the pages call them.
"""
from services.reported import ensure_reported as _ensure_reported
from store import db as _db

_db.on_open(_ensure_reported)  # every store file, whatever creates it, holds the papers' reported rows
