"""Human evaluation campaigns: the one write path (docs/security.md, "Ratings and admin actions").

The operator creates a campaign (CLI `python -m evaluator campaign create`): candidates come from the store, the plan
from `evaluator.human.campaign` (seeded), and every annotator gets a personal token, of which only the sha256 is
stored. An annotator's token is their only credential: `submit_judgement` resolves it to (campaign, annotator),
checks every value against the protocol (evaluator.human.protocols) and writes under the writer lock, in one
transaction with an audit row; refusals are audited too and change nothing else. A token cannot reach another
annotator's rows or an item that is not assigned to its holder.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from evaluator.human import campaign as planner
from evaluator.human import protocols
from evaluator.human import spans as span_words
from services import human_results
from store import audit, campaigns, ratings
from store.access import new_token, token_hash
from store.campaigns import Campaign, JudgementRefused
from store.sheets import write_csv
from store.writer_lock import writer

MAX_COMMENT = 2000
"""Longest comment kept (characters)."""


class CampaignRefused(ValueError):
    """A campaign request or judgement that was refused; the message names the field."""


@dataclass(frozen=True)
class Annotator:
    """Who a token belongs to."""

    campaign_id: str
    annotator: str



def create_campaign(db_path: str | os.PathLike | None, *, campaign_id: str, task: str, lang: str,
                    systems: list[tuple[str, str]], annotators: list[str], n_items: int, k: int, seed: int,
                    n_repeats: int = 1, protocol: str | None = None, actor: str = "cli",
                    timeout: float = 120.0) -> dict[str, str]:
    """Plan and store a campaign; returns annotator -> personal token (shown once, stored hashed). `timeout`:
    seconds to wait for the store (store.writer_lock)."""
    proto = protocols.protocol_for(task, protocol)
    if not campaign_id.replace("-", "").replace("_", "").isalnum():
        raise CampaignRefused(f"campaign_id: {campaign_id!r} must be letters, digits, - and _")
    if campaign_id.startswith("ratings-"):
        raise CampaignRefused(f"campaign_id: {campaign_id!r}: ratings- names the imported ratings campaigns")
    with writer(db_path, timeout=timeout) as con:
        if campaigns.campaign(con, campaign_id):
            raise CampaignRefused(f"campaign_id: {campaign_id!r} already exists")
        outputs, refs = campaigns.source_texts(con, task, lang, systems)
        keyed = {planner.system_key(m, p): texts for (m, p), texts in outputs.items()}
        try:
            plan = planner.plan(keyed, refs, n_items=n_items, annotators=annotators, k=k, seed=seed,
                                n_repeats=n_repeats)
        except planner.CampaignError as e:
            raise CampaignRefused(str(e)) from None
        tokens = {a: new_token() for a in annotators}
        c = Campaign(campaign_id, task, lang, proto.name, [list(s) for s in systems], n_items, k, seed, n_repeats,
                     "open")
        campaigns.create(con, c, plan, {a: token_hash(t) for a, t in tokens.items()}, actor)
    return tokens


def reissue_tokens(db_path: str | os.PathLike | None, campaign_id: str, names: list[str] | None = None,
                   actor: str = "cli", timeout: float = 120.0) -> dict[str, str]:
    """New personal tokens (old links stop working) for the named annotators, else all of the campaign's."""
    with writer(db_path, timeout=timeout) as con:
        known = campaigns.annotators(con, campaign_id)
        if not known:
            raise CampaignRefused(f"campaign_id: no campaign {campaign_id!r}")
        unknown = sorted(set(names or []) - set(known))
        if unknown:
            raise CampaignRefused(f"annotator: {', '.join(unknown)} not in campaign {campaign_id}")
        tokens = {a: new_token() for a in (names or known)}
        campaigns.replace_tokens(con, campaign_id, {a: token_hash(t) for a, t in tokens.items()}, actor)
    return tokens


def resolve(con, token: str | None) -> Annotator | None:
    """The annotator a token belongs to (read-only connection is fine), or None."""
    if not token or len(token) > 200:
        return None
    got = campaigns.holder(con, token_hash(token))
    return Annotator(*got) if got else None


def _rows(proto: protocols.Protocol, cand_order: tuple[str, ...], values: dict[int, dict[str, float]],
          comments: dict[int, str]) -> list[tuple]:
    """Checked judgement rows (cand_id, criterion, value, note) from values keyed by displayed position."""
    rows = []
    for pos, crits in values.items():
        if not isinstance(pos, int) or not 0 <= pos < len(cand_order):
            raise CampaignRefused(f"candidate: no candidate {pos!r} on this item")
        for name, value in crits.items():
            if value is None:
                continue
            why = protocols.check_value(proto, name, float(value))
            if why:
                raise CampaignRefused(f"candidate {pos + 1}: {why}")
            rows.append((cand_order[pos], name, float(value), None))
    for pos in range(len(cand_order)):
        given = values.get(pos, {})
        missing = [c.name for c in proto.criteria if c.required and given.get(c.name) is None]
        if missing:
            raise CampaignRefused(f"candidate {pos + 1}: {', '.join(missing)} not given")
    for pos, text in comments.items():
        if not isinstance(pos, int) or not 0 <= pos < len(cand_order):
            raise CampaignRefused(f"comment: no candidate {pos!r} on this item")
        if text and text.strip():
            if len(text) > MAX_COMMENT:
                raise CampaignRefused(f"comment: longer than {MAX_COMMENT} characters")
            rows.append((cand_order[pos], "comment", None, text.strip()))
    return rows


def _span_rows(protocol: str, cand_order: tuple[str, ...], texts: dict[str, str],
               spans: dict[int, list[dict]]) -> list[tuple]:
    """Checked ESA error-span rows (cand_id, 'spans', number of spans, spans as JSON) by displayed position."""
    rows = []
    for pos, given in spans.items():
        if not isinstance(pos, int) or not 0 <= pos < len(cand_order):
            raise CampaignRefused(f"spans: no candidate {pos!r} on this item")
        if given and protocol != "mt":
            raise CampaignRefused("spans: only translation campaigns take error spans")
        clean, why = protocols.check_spans(given, texts.get(cand_order[pos], ""))
        if why:
            raise CampaignRefused(f"candidate {pos + 1}: {why}")
        if clean:
            rows.append((cand_order[pos], "spans", float(len(clean)), json.dumps(clean)))
    return rows


def submit_judgement(db_path: str | os.PathLike | None, token: str, seq: int, values: dict[int, dict[str, float]],
                     comments: dict[int, str] | None = None, spans: dict[int, list[dict]] | None = None) -> int:
    """Write the token holder's judgement of their `seq`-th item (values by displayed candidate position 0..n-1;
    ESA error spans [{start, end, severity}] by position, character offsets into the candidate text); returns rows
    written. Raises CampaignRefused (audited, nothing written) for anything out of place."""
    with writer(db_path) as con:
        who = resolve(con, token)
        try:
            if who is None:
                raise CampaignRefused("token: not a valid annotator link")
            c = campaigns.campaign(con, who.campaign_id)
            mine = {a.seq: a for a in campaigns.assignments(con, who.campaign_id, who.annotator)}
            if not isinstance(seq, int) or seq not in mine:
                raise CampaignRefused(f"item: {seq!r} is not assigned to you")
            a = mine[seq]
            rows = _rows(protocols.PROTOCOLS[c.protocol], a.cand_order, values, comments or {})
            if spans:
                texts = campaigns.candidate_texts(con, who.campaign_id, a.item_id)
                rows += _span_rows(c.protocol, a.cand_order, texts, spans)
            return campaigns.save_judgement(con, who.campaign_id, who.annotator, seq, rows,
                                            actor=f"annotator:{who.annotator}",
                                            then=lambda tx: human_results.recompute(tx, who.campaign_id))
        except (CampaignRefused, JudgementRefused) as e:
            actor = f"annotator:{who.annotator}" if who else "web:unknown-token"
            audit.record(con, actor, "reject", detail=f"judgement: {e}")
            raise CampaignRefused(str(e)) from None


def set_finished(db_path: str | os.PathLike | None, campaign_id: str, finished: bool = True,
                 actor: str = "cli", n_boot: int = 1000, timeout: float = 120.0) -> None:
    """Finish a campaign (its results computed once by evaluator.human.results and stored with the status) or
    reopen it (its final results removed, provisional ones stored: the leaderboard's human column shows finished
    campaigns only)."""
    with writer(db_path, timeout=timeout) as con:
        if not campaigns.campaign(con, campaign_id):
            raise CampaignRefused(f"campaign_id: no campaign {campaign_id!r}")
        campaigns.set_status(con, campaign_id, "finished" if finished else "open", actor,
                             then=lambda tx: human_results.recompute(tx, campaign_id, n_boot=n_boot))


EXPORT_FORMATS = ("csv", "jsonl", "parquet")


def export(con, campaign_id: str | None, path: Path, fmt: str) -> int:
    """Write the judgements (with systems unblinded) as CSV, JSONL or Parquet; returns rows written."""
    if fmt not in EXPORT_FORMATS:
        raise CampaignRefused(f"format: {fmt!r} (choose {', '.join(EXPORT_FORMATS)})")
    frame = campaigns.judgements(con, campaign_id)
    if fmt == "csv":  # annotator comments are untrusted: formula cells neutralised as in the pages' downloads
        write_csv(frame, path)
    elif fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True, force_ascii=False, date_format="iso")
    else:
        frame.to_parquet(path, index=False)
    return len(frame)


@dataclass(frozen=True)
class ItemView:
    """What the annotation page shows for one item: texts only, candidates by position (no system names)."""

    task: str
    lang: str
    protocol: str
    seq: int | None             # the first item not yet judged; None when all are done
    n_done: int
    n_total: int
    source: str
    reference: str | None
    candidates: tuple[str, ...]


def next_item(con, token: str | None) -> ItemView | None:
    """The token holder's first unjudged item (resume), or None for an unknown token."""
    who = resolve(con, token)
    if who is None:
        return None
    c = campaigns.campaign(con, who.campaign_id)
    mine = campaigns.assignments(con, who.campaign_id, who.annotator)
    done = campaigns.done_seqs(con, who.campaign_id, who.annotator)
    todo = [a for a in mine if a.seq not in done]
    base = dict(task=c.task, lang=c.lang, protocol=c.protocol, n_done=len(mine) - len(todo), n_total=len(mine))
    if not todo or c.status != "open":
        return ItemView(**base, seq=None, source="", reference=None, candidates=())
    a = todo[0]
    inputs, gold = campaigns.item_inputs(con, c.task, c.lang, a.item_id)
    texts = campaigns.candidate_texts(con, who.campaign_id, a.item_id)
    shows_ref = protocols.PROTOCOLS[c.protocol].show_reference
    return ItemView(**base, seq=a.seq, source=str(inputs.get("text") or inputs.get("article") or ""),
                    reference=gold if shows_ref and isinstance(gold, str) else None,
                    candidates=tuple(texts[cid] for cid in a.cand_order))


def words_of(text: str, lang: str) -> list[tuple[int, int]]:
    """A candidate's words as character offsets, for picking ESA error spans (evaluator.human.spans)."""
    return span_words.segments(text, lang)


def picked_spans(words: list[tuple[int, int]], minor: list[int], major: list[int]) -> list[dict]:
    """ESA spans from the words picked as minor and major errors (evaluator.human.spans)."""
    return span_words.spans_from_words(words, minor, major)


def import_ratings(db_path: str | os.PathLike | None, data: str | bytes | Path, file_name: str | None = None, *,
                   actor: str, rater: str | None = None, timeout: float = 60.0) -> ratings.RatingsSummary:
    """A ratings CSV (Cultural page) as judgements of the task and language's 'ratings' campaign: checked, under the
    writer lock, all or nothing, audited (refusals too); the campaign's stored results are recomputed in the same
    transaction (services.human_results)."""
    with writer(db_path, timeout=timeout) as con:
        try:
            summary = ratings.ingest_ratings(con, data, file_name, rater=rater, actor=actor,
                                             scale=protocols.RATINGS_SCALE, then=human_results.recompute_all)
        except ratings.RatingsError as e:
            raw = data.read_bytes() if isinstance(data, Path) else data.encode() if isinstance(data, str) else data
            audit.record(con, actor, "reject", source_hash=hashlib.sha256(raw).hexdigest(), file_name=file_name,
                         detail=f"ratings: {e}")
            raise
    return summary
