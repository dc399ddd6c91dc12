"""Judging a conversation cell's stored answers with an LLM judge, and the judge's agreement with people.

`judge_cell` reads the cell's turn answers (store.judge), judges every turn not judged before by the same judge
model, template version and sampling settings (the cache is the `judge_calls` table: a second run sends nothing)
and stores the calls and the turn scores in one transaction. `judge_view` gives the Compare page each judge's mean
score per system with its judge-human Kendall's tau from the finished human campaigns of the cell, or
"unvalidated"."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

import duckdb
import pandas as pd

from evaluator.chat import turn_order
from evaluator.judge.agreement import UNVALIDATED, judge_human_tau
from evaluator.judge.client import JudgeClient, JudgeConfig
from evaluator.judge.judging import JUDGE_LABEL, Call, judge
from evaluator.judge.requests import Conversation
from evaluator.judge.templates import Kind
from store import campaigns
from store import judge as stored
from store.db import transaction


@dataclass(frozen=True)
class JudgeSummary:
    """What one judging pass did."""

    turns: int
    """Turns scored (new or again from the cache)."""
    sent: int
    """Requests sent to the judge."""
    cached: int
    """Requests answered from earlier calls."""
    tokens_in: int
    tokens_out: int
    cost: float | None


def conversations(rows: pd.DataFrame) -> list[Conversation]:
    """One Conversation per (run, item) of `store.judge.conversation_rows`."""
    out = []
    for (run_id, item_id), g in rows.groupby(["run_id", "item_id"], sort=True):
        inputs = json.loads(g["inputs"].iloc[0])
        questions = tuple(str(q) for q in inputs.get("turns") or ())
        answers = dict(zip(g["ord"], g["output"]))
        baseline, refs = inputs.get("baseline"), inputs.get("references")
        out.append(Conversation(run_id, item_id, questions,
                                tuple(_text(answers.get(turn_order(n))) for n in range(1, len(questions) + 1)),
                                tuple(baseline) if baseline else None, tuple(refs) if refs else None))
    return out


def _text(value) -> str | None:
    return None if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def judge_cell(con: duckdb.DuckDBPyConnection, cfg: JudgeConfig, task: str, lang: str, kind: Kind, *,
               models: Sequence[str] | None = None, client: JudgeClient | None = None) -> JudgeSummary:
    """Judge every stored turn of a conversation cell (of `models`), sending only what the cache lacks."""
    own = client is None
    client = client or JudgeClient(cfg)
    try:
        convs = conversations(stored.conversation_rows(con, task, lang, models))
        cache = {row[0]: Call(row[0], row[1], row[2], json.loads(row[3]) if row[3] else {}, row[4], row[5], row[6],
                              row[7]) for row in stored.cached_calls(con, cfg.model)}
        before = client.requests_sent
        new, scores = judge(convs, cfg, kind, client.ask, cache)
        sent = client.requests_sent - before
    finally:
        if own:
            client.close()
    with transaction(con):
        stored.put(con, [(c.key, c.judge_model, c.template, c.sampling, c.reply, c.tokens_in, c.tokens_out, c.cost)
                         for c in new],
                   [(s.run_id, s.item_id, turn_order(s.turn), s.judge_model, s.template, s.kind, s.value, s.verdict,
                     cfg.sampling(), s.call_keys, "judged") for s in scores])
    costs = [c.cost for c in new]
    return JudgeSummary(len(scores), sent, sum(len(s.call_keys) for s in scores) - len(new),
                        sum(c.tokens_in or 0 for c in new), sum(c.tokens_out or 0 for c in new),
                        sum(costs) if costs and all(c is not None for c in costs) else None)


def judge_view(con: duckdb.DuckDBPyConnection, task: str, lang: str, *, n_boot: int = 1000) -> pd.DataFrame:
    """One row per judge (model, kind and origin; its templates named) and system of a cell: the judge's mean item score, items, origin,
    and its item-level Kendall's tau with the people of each finished campaign of the cell ("unvalidated" when
    there is none or it shares fewer than two answers with the judge)."""
    items = stored.judged_items(con, task, lang)
    cols = ["judge", "template", "kind", "origin", "system", JUDGE_LABEL, "items", "agreement", "tau", "low",
            "high", "n", "campaign"]
    if items.empty:
        return pd.DataFrame(columns=cols)
    finished = [c for c in campaigns.campaigns(con, "finished") if c.task == task and c.lang == lang]
    rows = []
    for (judge_model, kind, origin), g in items.groupby(["judge_model", "kind", "origin"], sort=True):
        found = _agreement(con, g, finished, n_boot)
        template = ", ".join(sorted({t for ts in g["templates"] for t in ts.split(", ")}))
        for (model, prompt_lang), s in g.groupby(["model_id", "prompt_lang"], sort=True):
            rows.append({"judge": judge_model, "template": template, "kind": kind, "origin": origin,
                         "system": f"{model}|{prompt_lang}", JUDGE_LABEL: float(s["value"].mean()),
                         "items": len(s), **found})
    return pd.DataFrame(rows, columns=cols)


def _agreement(con: duckdb.DuckDBPyConnection, judged: pd.DataFrame, finished: list, n_boot: int) -> dict:
    """The judge's item-level tau with the first finished campaign it shares answers with, else unvalidated."""
    for c in finished:
        frame = judged.assign(system=judged["model_id"] if c.protocol == campaigns.RATINGS
                              else judged["model_id"] + "|" + judged["prompt_lang"])
        tau = judge_human_tau(campaigns.judgements(con, c.campaign_id), frame[["item_id", "system", "value"]],
                              c.protocol, seed=c.seed or 0, n_boot=n_boot)
        item = tau[tau["level"] == "item"]
        if not item.empty:
            r = item.iloc[0]
            return {"agreement": f"{r.criterion}: tau {r.tau:.2f} [{r.low:.2f}, {r.high:.2f}]", "tau": r.tau,
                    "low": r.low, "high": r.high, "n": int(r.n), "campaign": c.campaign_id}
    return {"agreement": UNVALIDATED, "tau": None, "low": None, "high": None, "n": None, "campaign": None}



@dataclass(frozen=True)
class ImportSummary:
    """What a SEA-HELM conversation import stored."""

    model: str
    task: str
    lang: str
    conversations: int
    turns: int
    judged_turns: int
    judge_model: str


def import_seahelm(con: duckdb.DuckDBPyConnection, data: bytes, file: str, *, model: str | None = None,
                   judge_model: str | None = None, batches: Sequence[tuple[bytes, str]] = ()) -> ImportSummary:
    """Store a SEA-HELM mt-bench inference file as a conversation run, turn by turn, with SEA-HELM's per-turn
    judge scores as self-reported judge scores naming the judge (its judge batch response files, when given,
    supply the verdicts and the scores the inference file lacks). ValueError (naming file, line and field) and
    nothing stored when a file is bad."""
    from evaluator.formats import seahelm, seahelm_chat
    from evaluator.registry import get_task
    from services.ingest import content_hash, run_id, sync_registry
    from services.ownership import name_refusal
    from store.owners import OPERATOR

    file_model, seahelm_task, lang = seahelm.split_name(file)
    task = seahelm.our_task(seahelm_task) if seahelm_task else None
    if task is None or get_task(task).mode != "chat" or lang not in get_task(task).langs:
        raise ValueError(f"{file}: file name is not {{model}}_mt-bench_{{lang}}.jsonl for a conversation task and "
                         "one of its languages")
    model = model or file_model
    refusal = name_refusal(con, model, OPERATOR)
    if refusal is not None:  # another identity's model, or a name that looks like one
        raise ValueError(f"model: {refusal}")
    judge_model = judge_model or seahelm_chat.SEAHELM_JUDGE
    rows = seahelm_chat.parse_inference(data, file, task, lang)
    replies: dict = {}
    for blob, name in batches:
        replies.update(seahelm_chat.parse_judge_batch(blob, name))
    rid = run_id(model, task, lang, "native", 1, "upload")
    scores = []
    for r in rows:
        for n, given in enumerate(r.scores, start=1):
            value, verdict = seahelm_chat.turn_verdict(replies.get((r.item.item_id, n)))
            value = given if given is not None else value
            if value is not None and r.answers[n - 1] is not None:
                scores.append((rid, r.item.item_id, turn_order(n), judge_model, seahelm_chat.SELF_REPORTED_TEMPLATE,
                               "pairwise", value, verdict, {}, (), "self-reported"))
    with transaction(con):
        sync_registry(con)
        stored.put_conversation_run(
            con, run=(rid, model, task, lang, "native", json.dumps({"mode": "chat", "judge_model": judge_model}),
                      "seahelm", file, content_hash(rows[0].item)),
            items=[(task, lang, r.item.item_id, json.dumps(dict(r.item.inputs), ensure_ascii=False),
                    r.item.metadata.get("category")) for r in rows],
            turns=[(r.item.item_id, turn_order(n), q, a) for r in rows
                   for n, (q, a) in enumerate(zip(r.item.inputs["turns"], r.answers), start=1) if a is not None])
        con.execute("DELETE FROM judge_scores WHERE run_id = ? AND origin = 'self-reported'", [rid])
        stored.put(con, [], scores)
    return ImportSummary(model, task, lang, len(rows), sum(a is not None for r in rows for a in r.answers),
                         len(scores), judge_model)


__all__ = ["ImportSummary", "JudgeSummary", "conversations", "import_seahelm", "judge_cell", "judge_view"]
