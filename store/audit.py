"""Uploads in the store: the audit trail, per-upload visibility, summary scores, and admin hide/delete.

Plain values in, rows out; callers hold `store.writer_lock.writer` and, for multi-statement changes, a
transaction. `delete_upload` returns the cells whose aggregates the caller must recompute.
"""
from __future__ import annotations

from typing import Any, Iterable

import duckdb

from store.db import transaction
from store.drilldown import drop_orphans


def record(con: duckdb.DuckDBPyConnection, actor: str, action: str, *, source_hash: str | None = None,
           model_id: str | None = None, file_name: str | None = None, detail: str = "") -> None:
    """Append one audit row: who did what to which upload, and when (now)."""
    con.execute("INSERT INTO audit (actor, action, source_hash, model_id, file_name, detail) VALUES (?, ?, ?, ?, ?, ?)",
                [actor[:200], action, source_hash, model_id, (file_name or "")[:500] or None, detail[:2000]])


def is_ingested(con: duckdb.DuckDBPyConnection, source_hash: str) -> bool:
    """Whether a file with this hash was already imported (re-uploads are no-ops)."""
    return bool(con.execute("SELECT count(*) FROM ingests WHERE source_hash = ?", [source_hash]).fetchone()[0]
                or con.execute("SELECT count(*) FROM uploads WHERE source_hash = ?", [source_hash]).fetchone()[0])


def add_upload(con: duckdb.DuckDBPyConnection, *, source_hash: str, model_id: str, file_name: str, formats: str,
               n_predictions: int, n_summary: int, n_warnings: int, actor: str) -> None:
    """Register an accepted upload (visible)."""
    con.execute("INSERT OR REPLACE INTO uploads (source_hash, model_id, file_name, formats, status, n_predictions, "
                "n_summary, n_warnings, actor) VALUES (?, ?, ?, ?, 'visible', ?, ?, ?, ?)",
                [source_hash, model_id, file_name[:500], formats, n_predictions, n_summary, n_warnings, actor[:200]])


def add_summary_cells(con: duckdb.DuckDBPyConnection, source_hash: str, model_id: str, rows: Iterable[Any]) -> int:
    """Store summary-file scores (objects with task, lang, prompt_lang, metric, value) as self-reported cells."""
    values = [[source_hash, model_id, r.task, r.lang, r.prompt_lang, r.metric, float(r.value)] for r in rows]
    if values:
        con.executemany("INSERT OR REPLACE INTO self_reported_cells VALUES (?, ?, ?, ?, ?, ?, ?)", values)
    return len(values)


def upload_model(con: duckdb.DuckDBPyConnection, source_hash: str) -> str | None:
    row = con.execute("SELECT model_id FROM uploads WHERE source_hash = ?", [source_hash]).fetchone()
    return row[0] if row else None


def set_hidden(con: duckdb.DuckDBPyConnection, source_hash: str, hidden: bool, actor: str) -> str:
    """Hide (or show again) an upload and its model on every leaderboard; returns the model id."""
    model = upload_model(con, source_hash)
    if model is None:
        raise KeyError(f"no upload with hash {source_hash[:12]}…")
    with transaction(con):
        con.execute("UPDATE uploads SET status = ? WHERE source_hash = ?", ["hidden" if hidden else "visible",
                                                                           source_hash])
        con.execute("UPDATE models SET hidden = ? WHERE model_id = ?", [hidden, model])
        record(con, actor, "hide" if hidden else "unhide", source_hash=source_hash, model_id=model)
    return model


def delete_upload(con: duckdb.DuckDBPyConnection, source_hash: str, actor: str) -> tuple[str, list[tuple]]:
    """Delete everything an upload wrote (runs it superseded become current again), in one transaction.

    Returns (model id, [(task, lang, prompt_lang)]): cells that still have runs, whose aggregates the caller
    recomputes (aggregates of cells left without runs are deleted here).
    """
    model = upload_model(con, source_hash)
    if model is None:
        raise KeyError(f"no upload with hash {source_hash[:12]}…")
    with transaction(con):
        runs = con.execute("SELECT run_id, task, lang, prompt_lang, run_no FROM runs WHERE source_hash = ?",
                           [source_hash]).fetchall()
        ids = [r[0] for r in runs]
        for table in ("scores", "predictions", "self_reported", "run_counts"):
            con.execute(f"DELETE FROM {table} WHERE run_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
        con.execute("DELETE FROM runs WHERE source_hash = ?", [source_hash])
        for _, task, lang, prompt_lang, run_no in runs:
            con.execute("""UPDATE runs SET superseded = false WHERE run_id = (
                SELECT run_id FROM runs WHERE model_id = ? AND task = ? AND lang = ? AND prompt_lang = ?
                AND run_no = ? ORDER BY created_at DESC LIMIT 1)""", [model, task, lang, prompt_lang, run_no])
        for table in ("self_reported_cells", "uploads", "ingests"):
            con.execute(f"DELETE FROM {table} WHERE source_hash = ?", [source_hash])
        remaining = []
        for cell in sorted({(t, lg, pl) for _, t, lg, pl, _ in runs}):
            left = con.execute("SELECT count(*) FROM runs WHERE model_id = ? AND task = ? AND lang = ? "
                               "AND prompt_lang = ?", [model, *cell]).fetchone()[0]
            if left:
                remaining.append(cell)
            else:
                for table in ("aggregates", "leakage_signals"):  # a cell left without runs has no score, no signal
                    con.execute(f"DELETE FROM {table} WHERE model_id = ? AND task = ? AND lang = ? AND prompt_lang = ?",
                                [model, *cell])
        if not con.execute("SELECT count(*) FROM runs WHERE model_id = ?", [model]).fetchone()[0] and \
                not con.execute("SELECT count(*) FROM uploads WHERE model_id = ?", [model]).fetchone()[0]:
            con.execute("DELETE FROM aggregates WHERE model_id = ?", [model])
            con.execute("DELETE FROM leakage_signals WHERE model_id = ?", [model])
            con.execute("DELETE FROM models WHERE model_id = ? AND origin = 'uploaded'", [model])
        drop_orphans(con)
        record(con, actor, "delete", source_hash=source_hash, model_id=model,
               detail=f"{len(runs)} runs removed")
    return model, remaining


def active_runs(con: duckdb.DuckDBPyConnection, model_id: str, keys: Iterable[tuple]) -> int:
    """How many current (not superseded) runs of `model_id` share a (task, lang, prompt_lang, run_no) key:
    the runs a new upload of those keys will supersede (the store keeps them as history)."""
    wanted = sorted({"\x1f".join((t, lg, pl, str(int(rn)))) for t, lg, pl, rn in keys})  # one query for all keys
    return con.execute("SELECT count(*) FROM runs WHERE model_id = ? AND NOT superseded AND list_contains(?, "
                       "concat_ws(chr(31), task, lang, prompt_lang, CAST(run_no AS VARCHAR)))",
                       [model_id, wanted]).fetchall()[0][0]
