"""Human ratings of open-ended responses (cultural probes), uploaded as CSV.

The CSV has one row per (item, model, rater): the columns `item`, `model` and `rater`, optional `lang` and
`task` (default "cultural-representation"), and one numeric column per rating criterion (e.g. `accuracy`,
`fluency`, `sensitivity`). Empty score cells are skipped. Every row is checked before anything is written;
the first problem is raised as `file:line: field: message` and the database is left unchanged.

Ratings are one kind of campaign result: each task and language has a campaign of protocol 'ratings' (id
`ratings-<task>-<lang>`), raters are its annotators and every score is a judgement (store.campaigns.write_ratings).
The app writes them through `services.campaigns.import_ratings` (docs/security.md, "Ratings and admin actions"): the
writer lock, one transaction with an audit row (who, when, file hash), and a signed-in rater (store.access) may only
write rows under their own name, so nobody replaces another rater's scores.
"""
from __future__ import annotations

import csv
import hashlib
import io
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import duckdb

from store import audit, campaigns
from store.db import transaction

DEFAULT_TASK = "cultural-representation"
KEY_COLUMNS = ("item", "model", "rater")
OPTIONAL_COLUMNS = ("lang", "task")


class RatingsError(ValueError):
    """A ratings file that cannot be ingested; the message names file, line and field."""


@dataclass(frozen=True)
class RatingsSummary:
    """What one ratings upload added."""

    file_name: str
    """Name of the uploaded file."""
    n_rows: int
    """Score rows written (one per item, model, rater and criterion)."""
    n_items: int
    """Distinct items rated."""
    n_models: int
    """Distinct models rated."""
    n_raters: int
    """Distinct raters."""
    criteria: tuple[str, ...]
    """Score columns found in the file."""
    campaigns: tuple[str, ...] = ()
    """The ratings campaigns the scores were written to."""


def _fail(file_name: str, line: int, field: str, message: str) -> RatingsError:
    return RatingsError(f"{file_name}:{line}: {field}: {message}")


def _item_langs(con: duckdb.DuckDBPyConnection, task: str) -> dict[str, list[str]]:
    """item_id -> languages in which the task has that item."""
    out: dict[str, list[str]] = {}
    for item_id, lang in con.execute("SELECT item_id, lang FROM items WHERE task = ?", [task]).fetchall():
        out.setdefault(str(item_id), []).append(lang)
    return out


def parse_ratings(con: duckdb.DuckDBPyConnection, text: str, file_name: str, rater: str | None = None,
                  scale: tuple[float, float] | None = None) -> list[tuple]:
    """Validate the CSV text against the store; rows (task, lang, item_id, model_id, rater, criterion, value).
    With `rater` (a signed-in rater), every row must be theirs; with `scale` (low, high), every score must lie in
    it (the wiring passes evaluator.human.protocols.RATINGS_SCALE)."""
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    for col in KEY_COLUMNS:
        if col not in header:
            raise _fail(file_name, 1, col, f"missing column (header has {', '.join(header) or 'nothing'})")
    criteria = tuple(h for h in header if h and h not in KEY_COLUMNS + OPTIONAL_COLUMNS)
    if not criteria:
        raise _fail(file_name, 1, "scores", "no score column besides item, model, rater, lang, task")
    models = {r[0] for r in con.execute("SELECT model_id FROM models").fetchall()}
    items_by_task: dict[str, dict[str, list[str]]] = {}
    rows: list[tuple] = []
    for line, raw in enumerate(reader, start=2):
        rec = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if k is not None}
        task = rec.get("task") or DEFAULT_TASK
        for col in KEY_COLUMNS:
            if not rec.get(col):
                raise _fail(file_name, line, col, "empty")
        if rater is not None and rec["rater"] != rater:
            raise _fail(file_name, line, "rater", f"signed in as {rater!r}: rows for {rec['rater']!r} are refused "
                        "(a rater can only add or replace their own ratings)")
        if rec["model"] not in models:
            raise _fail(file_name, line, "model", f"unknown model {rec['model']!r}")
        langs = items_by_task.setdefault(task, _item_langs(con, task)).get(rec["item"], [])
        lang = rec.get("lang")
        if lang and lang not in langs:
            raise _fail(file_name, line, "item", f"no item {rec['item']!r} in {task}/{lang}")
        if not lang:
            if len(langs) != 1:
                where = f"in {', '.join(sorted(langs))}; add a lang column" if langs else f"in {task}"
                raise _fail(file_name, line, "item", f"item {rec['item']!r} is {'ambiguous' if langs else 'unknown'} "
                            f"{where}")
            lang = langs[0]
        n_scores = 0
        for crit in criteria:
            cell = rec.get(crit, "")
            if not cell:
                continue
            try:
                value = float(cell)
            except ValueError:
                raise _fail(file_name, line, crit, f"not a number: {cell!r}") from None
            if not math.isfinite(value):
                raise _fail(file_name, line, crit, f"not a finite number: {cell!r}")
            if scale is not None and not scale[0] <= value <= scale[1]:
                raise _fail(file_name, line, crit, f"{cell!r} is outside the rating scale {scale[0]:g}-{scale[1]:g}")
            rows.append((task, lang, rec["item"], rec["model"], rec["rater"], crit, value))
            n_scores += 1
        if not n_scores:
            raise _fail(file_name, line, "scores", f"no score in any of {', '.join(criteria)}")
    if not rows:
        raise _fail(file_name, 2, "item", "no rating rows")
    return rows


def _decode(data: str | bytes | Path, file_name: str | None) -> tuple[bytes, str, str]:
    """(raw bytes, text, file name) of a ratings file given as a path, bytes or text."""
    if isinstance(data, Path):
        file_name = file_name or data.name
        data = data.read_bytes()
    raw = data.encode() if isinstance(data, str) else data
    file_name = file_name or "ratings.csv"
    try:
        return raw, raw.decode("utf-8-sig"), file_name
    except UnicodeDecodeError as e:
        raise _fail(file_name, raw[:e.start].count(b"\n") + 1, "encoding", "not UTF-8") from None


def _summary(file_name: str, rows: list[tuple]) -> RatingsSummary:
    return RatingsSummary(
        file_name=file_name, n_rows=len(rows), n_items=len({r[:3] for r in rows}), n_models=len({r[3] for r in rows}),
        n_raters=len({r[4] for r in rows}), criteria=tuple(dict.fromkeys(r[5] for r in rows)))


def ingest_ratings(con: duckdb.DuckDBPyConnection, data: str | bytes | Path, file_name: str | None = None, *,
                   rater: str | None = None, actor: str | None = None, scale: tuple[float, float] | None = None,
                   then: Callable[[duckdb.DuckDBPyConnection, tuple[str, ...]], None] | None = None) -> RatingsSummary:
    """Validate and write a ratings CSV (path, bytes or text) in one transaction, as judgements of the task and
    language's 'ratings' campaign (store.campaigns.write_ratings); re-uploads replace scores. The caller holds the
    writer lock (services.campaigns.import_ratings); with `actor` an audit row commits with the scores, and
    `then(con, campaign ids)` runs in the same transaction (the wiring stores the figures computed from them)."""
    raw, text, file_name = _decode(data, file_name)
    rows = parse_ratings(con, text, file_name, rater, scale)
    digest = hashlib.sha256(raw).hexdigest()
    summary = _summary(file_name, rows)
    with transaction(con):
        try:
            touched = campaigns.write_ratings(con, rows, actor or "ratings")
        except campaigns.JudgementRefused as e:
            raise _fail(file_name, 1, "campaign", str(e)) from None
        summary = replace(summary, campaigns=tuple(touched))
        if actor:
            audit.record(con, actor, "ratings", source_hash=digest, file_name=file_name,
                         detail=f"{summary.n_rows} scores, raters {', '.join(sorted({r[4] for r in rows}))}")
        if then is not None:
            then(con, summary.campaigns)
    return summary
