"""Human evaluation campaigns in the store: plain values in, rows out.

Callers hold `store.writer_lock.writer` for writes (services.campaigns is the only writer). A judgement is written
only for an assignment that exists for that annotator, and only for candidates that assignment shows; rows of
another annotator are never touched because every write is keyed by the caller's own (campaign, annotator).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import duckdb

from store import audit
from store.db import transaction


class JudgementRefused(ValueError):
    """A judgement that does not fit the caller's assignments; nothing was written."""


@dataclass(frozen=True)
class Campaign:
    campaign_id: str
    task: str
    lang: str
    protocol: str
    systems: list
    n_items: int
    k: int
    seed: int
    n_repeats: int
    status: str


@dataclass(frozen=True)
class Assignment:
    seq: int
    item_id: str
    cand_order: tuple[str, ...]
    is_repeat: bool


def campaign(con: duckdb.DuckDBPyConnection, campaign_id: str) -> Campaign | None:
    row = con.execute("SELECT campaign_id, task, lang, protocol, systems, n_items, k, seed, n_repeats, status "
                      "FROM campaigns WHERE campaign_id = ?", [campaign_id]).fetchone()
    if row is None:
        return None
    return Campaign(*row[:4], json.loads(row[4] or "[]"), *row[5:])


def campaigns(con: duckdb.DuckDBPyConnection, status: str | None = None) -> list[Campaign]:
    ids = con.execute("SELECT campaign_id FROM campaigns WHERE ? IS NULL OR status = ? ORDER BY created_at, "
                      "campaign_id", [status, status]).fetchall()
    return [campaign(con, r[0]) for r in ids]


def source_texts(con: duckdb.DuckDBPyConnection, task: str, lang: str,
                 systems: Iterable[tuple[str, str]]) -> tuple[dict[tuple[str, str], dict[str, str]], dict[str, str]]:
    """Candidate texts per (model, prompt language) from current runs (extracted answer, else the raw output) and
    the references (items.gold when it is a string), for one task and language."""
    outputs: dict[tuple[str, str], dict[str, str]] = {}
    for model_id, prompt_lang in systems:
        rows = con.execute(
            "SELECT p.item_id, coalesce(p.answer, p.output) FROM predictions p JOIN runs r USING (run_id) "
            "WHERE r.model_id = ? AND r.task = ? AND r.lang = ? AND r.prompt_lang = ? AND NOT r.superseded "
            "ORDER BY r.run_no DESC, p.ord", [model_id, task, lang, prompt_lang]).fetchall()
        got: dict[str, str] = {}
        for item_id, text in rows:
            got.setdefault(item_id, text or "")
        outputs[(model_id, prompt_lang)] = got
    refs = {}
    for item_id, gold in con.execute("SELECT item_id, gold FROM items WHERE task = ? AND lang = ?",
                                     [task, lang]).fetchall():
        value = json.loads(gold) if gold else None
        if isinstance(value, str):
            refs[item_id] = value
    return outputs, refs


def item_inputs(con: duckdb.DuckDBPyConnection, task: str, lang: str, item_id: str) -> tuple[dict, Any]:
    """(inputs, gold) of one item."""
    row = con.execute("SELECT inputs, gold FROM items WHERE task = ? AND lang = ? AND item_id = ?",
                      [task, lang, item_id]).fetchone()
    return (json.loads(row[0] or "{}"), json.loads(row[1]) if row[1] else None) if row else ({}, None)


def create(con: duckdb.DuckDBPyConnection, c: Campaign, plan: Any, token_hashes: dict[str, str], actor: str) -> None:
    """Write a planned campaign (evaluator.human.campaign.Plan) and its annotators' token hashes, audited."""
    with transaction(con):
        con.execute("INSERT INTO campaigns (campaign_id, task, lang, protocol, systems, n_items, k, seed, n_repeats, "
                    "status, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?)",
                    [c.campaign_id, c.task, c.lang, c.protocol, json.dumps(c.systems), c.n_items, c.k, c.seed,
                     c.n_repeats, actor[:200]])
        con.executemany("INSERT INTO campaign_candidates VALUES (?, ?, ?, ?, ?)",
                        [[c.campaign_id, x.item_id, x.cand_id, x.system, x.text] for x in plan.candidates])
        con.executemany("INSERT INTO campaign_assignments VALUES (?, ?, ?, ?, ?, ?)",
                        [[c.campaign_id, a.annotator, a.seq, a.item_id, list(a.cand_order), a.is_repeat]
                         for a in plan.assignments])
        _put_tokens(con, c.campaign_id, token_hashes)
        audit.record(con, actor, "campaign-create", detail=f"{c.campaign_id}: {c.task}/{c.lang} {c.protocol}, "
                     f"{c.n_items} items, k={c.k}, seed={c.seed}, annotators {', '.join(sorted(token_hashes))}")


def _put_tokens(con: duckdb.DuckDBPyConnection, campaign_id: str, token_hashes: dict[str, str]) -> None:
    for annotator, digest in token_hashes.items():
        con.execute("DELETE FROM campaign_tokens WHERE campaign_id = ? AND annotator = ?", [campaign_id, annotator])
        con.execute("INSERT INTO campaign_tokens (campaign_id, annotator, token_hash) VALUES (?, ?, ?)",
                    [campaign_id, annotator, digest])


def replace_tokens(con: duckdb.DuckDBPyConnection, campaign_id: str, token_hashes: dict[str, str], actor: str) -> None:
    """New tokens for annotators of the campaign (the old links stop working), audited."""
    with transaction(con):
        _put_tokens(con, campaign_id, token_hashes)
        audit.record(con, actor, "campaign-tokens", detail=f"{campaign_id}: {', '.join(sorted(token_hashes))}")


def annotators(con: duckdb.DuckDBPyConnection, campaign_id: str) -> list[str]:
    return [r[0] for r in con.execute("SELECT DISTINCT annotator FROM campaign_assignments WHERE campaign_id = ? "
                                      "ORDER BY annotator", [campaign_id]).fetchall()]


def holder(con: duckdb.DuckDBPyConnection, token_hash: str) -> tuple[str, str] | None:
    """(campaign id, annotator) whose token has this hash, or None."""
    row = con.execute("SELECT campaign_id, annotator FROM campaign_tokens WHERE token_hash = ?",
                      [token_hash]).fetchone()
    return (row[0], row[1]) if row else None


def assignments(con: duckdb.DuckDBPyConnection, campaign_id: str, annotator: str) -> list[Assignment]:
    rows = con.execute("SELECT seq, item_id, cand_order, is_repeat FROM campaign_assignments WHERE campaign_id = ? "
                       "AND annotator = ? ORDER BY seq", [campaign_id, annotator]).fetchall()
    return [Assignment(r[0], r[1], tuple(r[2]), bool(r[3])) for r in rows]


def done_seqs(con: duckdb.DuckDBPyConnection, campaign_id: str, annotator: str) -> set[int]:
    return {r[0] for r in con.execute("SELECT DISTINCT seq FROM judgements WHERE campaign_id = ? AND annotator = ?",
                                      [campaign_id, annotator]).fetchall()}


def candidate_texts(con: duckdb.DuckDBPyConnection, campaign_id: str, item_id: str) -> dict[str, str]:
    """cand_id -> text for one item (no system names: what the annotation page may see)."""
    return dict(con.execute("SELECT cand_id, text FROM campaign_candidates WHERE campaign_id = ? AND item_id = ?",
                            [campaign_id, item_id]).fetchall())


def save_judgement(con: duckdb.DuckDBPyConnection, campaign_id: str, annotator: str, seq: int,
                   rows: list[tuple[str, str, float | None, str | None]], actor: str,
                   then: Callable[[duckdb.DuckDBPyConnection], None] | None = None) -> int:
    """Replace the caller's judgement of their `seq`-th item with `rows` (cand_id, criterion, value, note), audited;
    `then(con)` runs in the same transaction (the wiring stores the figures computed from the judgements).
    Raises JudgementRefused (nothing written) for an unassigned item or a candidate the item does not show."""
    row = con.execute("SELECT item_id, cand_order FROM campaign_assignments WHERE campaign_id = ? AND annotator = ? "
                      "AND seq = ?", [campaign_id, annotator, seq]).fetchone()
    if row is None:
        raise JudgementRefused(f"seq: item {seq} is not assigned to {annotator} in campaign {campaign_id}")
    shown = set(row[1])
    for cand_id, *_ in rows:
        if cand_id not in shown:
            raise JudgementRefused(f"candidate: {cand_id!r} is not shown with item {seq}")
    status = con.execute("SELECT status FROM campaigns WHERE campaign_id = ?", [campaign_id]).fetchone()
    if not status or status[0] != "open":
        raise JudgementRefused(f"campaign: {campaign_id} is closed")
    with transaction(con):
        con.execute("DELETE FROM judgements WHERE campaign_id = ? AND annotator = ? AND seq = ?",
                    [campaign_id, annotator, seq])
        con.executemany("INSERT INTO judgements (campaign_id, annotator, seq, item_id, cand_id, criterion, value, "
                        "note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [[campaign_id, annotator, seq, row[0], c, k, v, n] for c, k, v, n in rows])
        audit.record(con, actor, "judgement", detail=f"{campaign_id}: {annotator} item {seq}, {len(rows)} values")
        if then is not None:
            then(con)
    return len(rows)


RESULT_COLUMNS = ("kind", "system", "criterion", "level", "value", "low", "high", "n", "items", "correct")
"""Columns of a campaign's stored results (evaluator.human.results.stored_results), after campaign_id."""


def set_status(con: duckdb.DuckDBPyConnection, campaign_id: str, status: str, actor: str, results=None,
               then: Callable[[duckdb.DuckDBPyConnection], None] | None = None) -> None:
    """Open or finish a campaign, audited; a finished campaign's results (a frame with RESULT_COLUMNS) replace the
    stored ones in the same transaction, and reopening removes them; `then(con)` runs last in that transaction."""
    with transaction(con):
        con.execute("UPDATE campaigns SET status = ?, finished_at = CASE WHEN ? = 'finished' THEN current_timestamp "
                    "END WHERE campaign_id = ?", [status, status, campaign_id])
        put_results(con, campaign_id, results)
        audit.record(con, actor, f"campaign-{status}", detail=campaign_id)
        if then is not None:
            then(con)


def put_results(con: duckdb.DuckDBPyConnection, campaign_id: str, results=None) -> None:
    """Replace a campaign's stored results (a frame with RESULT_COLUMNS; None removes them); inside the caller's
    transaction."""
    con.execute("DELETE FROM campaign_results WHERE campaign_id = ?", [campaign_id])
    if results is not None and len(results):
        cols = ", ".join(RESULT_COLUMNS)
        con.executemany(f"INSERT INTO campaign_results (campaign_id, {cols}) VALUES (?{', ?' * len(RESULT_COLUMNS)})",
                        [[campaign_id, *(None if _missing(v) else v for v in row)]
                         for row in results[list(RESULT_COLUMNS)].itertuples(index=False)])


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def progress(con: duckdb.DuckDBPyConnection, campaign_id: str) -> list[tuple[str, int, int]]:
    """(annotator, items judged, items assigned) per annotator."""
    return con.execute(
        "SELECT a.annotator, count(DISTINCT j.seq), count(DISTINCT a.seq) FROM campaign_assignments a "
        "LEFT JOIN judgements j ON j.campaign_id = a.campaign_id AND j.annotator = a.annotator AND j.seq = a.seq "
        "WHERE a.campaign_id = ? GROUP BY a.annotator ORDER BY a.annotator", [campaign_id]).fetchall()


JUDGEMENT_COLUMNS = ("campaign_id", "task", "lang", "protocol", "annotator", "seq", "item_id", "is_repeat", "cand_id",
                     "system", "criterion", "value", "note", "created_at")


def judgements(con: duckdb.DuckDBPyConnection, campaign_id: str | None = None, *, protocol: str | None = None,
               lang: str | None = None):
    """Every judgement with its (unblinded) system, as a pandas frame with JUDGEMENT_COLUMNS; for the operator.
    Of one campaign, else of every campaign (of one protocol and language when given)."""
    return con.execute(
        "SELECT j.campaign_id, c.task, c.lang, c.protocol, j.annotator, j.seq, j.item_id, a.is_repeat, j.cand_id, "
        "k.system, j.criterion, j.value, j.note, j.created_at FROM judgements j "
        "JOIN campaigns c USING (campaign_id) "
        "JOIN campaign_assignments a ON a.campaign_id = j.campaign_id AND a.annotator = j.annotator AND a.seq = j.seq "
        "JOIN campaign_candidates k ON k.campaign_id = j.campaign_id AND k.item_id = j.item_id AND k.cand_id = j.cand_id "
        "WHERE (? IS NULL OR j.campaign_id = ?) AND (? IS NULL OR c.protocol = ?) AND (? IS NULL OR c.lang = ?) "
        "ORDER BY j.campaign_id, j.annotator, j.seq, j.cand_id, j.criterion",
        [campaign_id, campaign_id, protocol, protocol, lang, lang]).df()


RATINGS = "ratings"
"""The protocol of campaigns imported from a ratings CSV (evaluator.human.protocols.RATINGS)."""

RATINGS_SQL = """
    SELECT c.campaign_id, c.task, c.lang, j.item_id, k.system AS model_id, j.annotator AS rater, j.criterion, j.value
    FROM judgements j JOIN campaigns c USING (campaign_id)
    JOIN campaign_candidates k ON k.campaign_id = j.campaign_id AND k.item_id = j.item_id AND k.cand_id = j.cand_id
    WHERE c.protocol = 'ratings'"""
"""Every imported rating as (campaign_id, task, lang, item_id, model_id, rater, criterion, value): a subquery."""


def ratings_campaign_id(task: str, lang: str) -> str:
    return f"ratings-{task}-{lang}"


def rated_cand_id(model_id: str) -> str:
    """A rated model's candidate id in a ratings campaign (as migration V8 computes it)."""
    return hashlib.sha256(model_id.encode()).hexdigest()[:10]


def _ratings_campaign(con: duckdb.DuckDBPyConnection, cid: str, task: str, lang: str, actor: str) -> None:
    found = con.execute("SELECT protocol FROM campaigns WHERE campaign_id = ?", [cid]).fetchone()
    if found and found[0] != RATINGS:
        raise JudgementRefused(f"campaign: {cid} exists and is not a ratings campaign")
    if not found:
        con.execute("INSERT INTO campaigns (campaign_id, task, lang, protocol, systems, n_items, n_repeats, status, "
                    "created_by) VALUES (?, ?, ?, 'ratings', '[]', 0, 0, 'finished', ?)", [cid, task, lang, actor[:200]])


def _rating_seq(con: duckdb.DuckDBPyConnection, cid: str, rater: str, item_id: str, cand_ids: set[str]) -> int:
    """The rater's assignment for the item (created, or widened to the newly rated candidates); its seq."""
    row = con.execute("SELECT seq, cand_order FROM campaign_assignments WHERE campaign_id = ? AND annotator = ? "
                      "AND item_id = ?", [cid, rater, item_id]).fetchone()
    if row is None:
        seq = con.execute("SELECT coalesce(max(seq) + 1, 0) FROM campaign_assignments WHERE campaign_id = ? AND "
                          "annotator = ?", [cid, rater]).fetchone()[0]
        con.execute("INSERT INTO campaign_assignments VALUES (?, ?, ?, ?, ?, false)",
                    [cid, rater, seq, item_id, sorted(cand_ids)])
        return seq
    con.execute("UPDATE campaign_assignments SET cand_order = ? WHERE campaign_id = ? AND annotator = ? AND seq = ?",
                [sorted(set(row[1]) | cand_ids), cid, rater, row[0]])
    return row[0]


def write_ratings(con: duckdb.DuckDBPyConnection, rows: list[tuple], actor: str) -> list[str]:
    """Write checked ratings rows (task, lang, item_id, model_id, rater, criterion, value) as judgements of the
    'ratings' campaign of their task and language (re-uploads replace a rater's scores); the caller holds the
    writer lock and a transaction. Returns the campaign ids touched."""
    by_key: dict[tuple, set[str]] = {}
    for task, lang, item, model, rater, _, _ in rows:
        by_key.setdefault((task, lang, rater, item), set()).add(rated_cand_id(model))
    touched = sorted({ratings_campaign_id(t, lg) for t, lg, *_ in rows})
    for cid in touched:
        task, lang = next((t, lg) for t, lg, *_ in rows if ratings_campaign_id(t, lg) == cid)
        _ratings_campaign(con, cid, task, lang, actor)
    con.executemany("INSERT OR IGNORE INTO campaign_candidates VALUES (?, ?, ?, ?, NULL)",
                    sorted({(ratings_campaign_id(t, lg), item, rated_cand_id(m), m) for t, lg, item, m, *_ in rows}))
    seqs = {key: _rating_seq(con, ratings_campaign_id(key[0], key[1]), key[2], key[3], cands)
            for key, cands in by_key.items()}
    con.executemany("INSERT OR REPLACE INTO judgements (campaign_id, annotator, seq, item_id, cand_id, criterion, "
                    "value) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(ratings_campaign_id(t, lg), rater, seqs[(t, lg, rater, item)], item, rated_cand_id(m), crit, v)
                     for t, lg, item, m, rater, crit, v in rows])
    for cid in touched:
        con.execute("UPDATE campaigns SET n_items = (SELECT count(DISTINCT item_id) FROM campaign_candidates k "
                    "WHERE k.campaign_id = ?), systems = (SELECT to_json(list(DISTINCT system ORDER BY system)) FROM "
                    "campaign_candidates k WHERE k.campaign_id = ?) WHERE campaign_id = ?", [cid, cid, cid])
    return touched
