"""Judging conversations with a cache: a request whose key (judge model, template version, sampling settings,
messages) was answered before is not sent again, so judging the same answers twice costs nothing.

Each call (`Call`) is recorded with its reply, tokens and cost; each judged turn (`TurnScore`) with its judge,
template and value: the 1-10 rating, or for pairwise the outcome of both orders against the reference model as
1 (win), 0.5 (tie: the orders disagree, or both say tie) or 0 (loss). A reply without a readable verdict leaves
the turn unscored (value None)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, MutableMapping

from evaluator.judge import verdicts
from evaluator.judge.client import JudgeConfig, JudgeReply
from evaluator.judge.requests import Conversation, requests_for, turns_of
from evaluator.judge.templates import Kind

JUDGE_LABEL = "judge score"
"""How judge scores are named wherever they are shown (never a metric's name)."""


@dataclass(frozen=True)
class Call:
    """One judge request and its reply (the cache's row)."""

    key: str
    judge_model: str
    template: str
    sampling: Mapping
    reply: str
    tokens_in: int | None
    tokens_out: int | None
    cost: float | None


@dataclass(frozen=True)
class TurnScore:
    """The judge's score of one turn of one model's conversation."""

    run_id: str
    item_id: str
    turn: int
    judge_model: str
    template: str
    kind: Kind
    value: float | None
    verdict: str
    """single: the rating as read; pairwise: the outcome of each order and the combined one ("win,tie -> tie")."""
    call_keys: tuple[str, ...]


def judge(conversations: Iterable[Conversation], cfg: JudgeConfig, kind: Kind,
          ask: Callable[[list[dict]], JudgeReply], cache: MutableMapping[str, Call]
          ) -> tuple[list[Call], list[TurnScore]]:
    """Judge every turn of every conversation; `cache` (key -> Call) holds earlier calls and gains the new ones.
    Returns the new calls and every turn's score."""
    new: list[Call] = []
    scores: list[TurnScore] = []
    sampling = cfg.sampling()
    for conv in conversations:
        for turn in turns_of(conv):
            reqs = requests_for(conv, turn, kind)
            if not reqs:
                continue
            replies = []
            for req in reqs:
                key = req.key(cfg.model, sampling)
                call = cache.get(key)
                if call is None:
                    got = ask([dict(m) for m in req.messages])
                    call = Call(key, cfg.model, req.template.label, sampling, got.text, got.tokens_in,
                                got.tokens_out, got.cost)
                    cache[key] = call
                    new.append(call)
                replies.append((req, call))
            scores.append(_score(conv, turn, cfg.model, kind, replies))
    return new, scores


def _score(conv: Conversation, turn: int, judge_model: str, kind: Kind, replies: list) -> TurnScore:
    keys = tuple(call.key for _, call in replies)
    template = replies[0][0].template.label
    if kind == "single":
        value = verdicts.rating(replies[0][1].reply)
        verdict = "unreadable" if value is None else f"{value:g}"
    else:
        each = [verdicts.outcome(verdicts.preference(call.reply), req.order) for req, call in replies]
        both = verdicts.combined(*each)
        value = None if both is None else verdicts.OUTCOME_SCORE[both]
        verdict = ",".join(e or "unreadable" for e in each) + f" -> {both or 'unreadable'}"
    return TurnScore(conv.run_id, conv.item_id, turn, judge_model, template, kind, value, verdict, keys)
