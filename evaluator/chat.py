"""Multi-turn chat tasks (mode `chat`): an item is a conversation, its `turns` input the user's messages in order.

Each turn is one job of the runner and one stored prediction, its order field naming the turn (`t1`, `t2`, ...).
A turn is sent with the conversation so far: the earlier user messages and the model's own stored answers to them
(`messages`). Turn n waits until turn n - 1 is committed to the store (`TurnBook`), so a killed run never holds a
turn that was answered but not stored beside a later turn built on it: on resume the earlier answers are read back
from the store (the sink's `stored_turns`) and no stored turn is asked again. A turn that fails fails the turns
after it without a request.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable, Mapping, Sequence

from evaluator.chat_items import TURNS_FIELD
from evaluator.clients import ClientError
from evaluator.prompts import Rendered
from evaluator.spec import Item, TaskSpec

def turn_order(n: int) -> str:
    """The order field of turn n (from 1): "t1", "t2", ..."""
    return f"t{n}"


def turn_no(order: str) -> int | None:
    """The turn number of an order field ("t2" -> 2); None for an option order ("ab")."""
    if len(order) > 1 and order[0] == "t" and order[1:].isdigit():
        return int(order[1:])
    return None


def turns_of(item: Item) -> list[str]:
    """The user's messages of a conversation item."""
    turns = item.inputs.get(TURNS_FIELD) or []
    return [str(t) for t in turns]


def render_turns(task: TaskSpec, items: Sequence[tuple[Item, Item, dict | None]], prompt_lang: str
                 ) -> tuple[list[tuple[Item, str, Rendered, dict | None]], str | None]:
    """(item, turn order, the turn's user message, None) for every turn of every conversation, or ([], the reason).
    Conversations are asked as written: only the native prompt language exists."""
    if prompt_lang != "native":
        return [], "no prompt: conversations are asked as written (prompt language native only)"
    out, seen = [], set()
    for item, _, _ in items:
        if item.item_id in seen:
            continue
        seen.add(item.item_id)
        for n, text in enumerate(turns_of(item), start=1):
            out.append((item, turn_order(n), Rendered(system=None, user=text, gold=None, options=None,
                                                      prompt_lang=prompt_lang, order=turn_order(n),
                                                      source=f"item:{TURNS_FIELD}"), None))
    return out, None


def messages(item: Item, order: str, history: Sequence[str]) -> list[dict]:
    """The chat messages of one turn: each earlier user message followed by the model's answer to it, then this
    turn's user message."""
    n = turn_no(order) or 1
    turns = turns_of(item)
    out: list[dict] = []
    for question, answer in zip(turns[:n - 1], history):
        out += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    out.append({"role": "user", "content": turns[n - 1]})
    return out


class TurnBook:
    """The model's committed answers to the turns of the conversations of a run, awaited by the turns after them.

    `stored`: cell key -> {(item_id, order): output} of the turns already in the store (a resumed run)."""

    WAKE_S = 0.5
    """How often a waiting turn looks whether the run's writer failed (`broken`)."""

    def __init__(self, stored: Mapping[tuple, Mapping[tuple[str, str], Any]] | None = None):
        self.broken: Callable[[], BaseException | None] = lambda: None
        """The run's writer error, if any: a turn waiting for a commit that will never come raises it."""
        self._futures: dict[tuple, asyncio.Future] = {}
        self._answered: dict[tuple, str] = {}
        for cell_key, rows in (stored or {}).items():
            for (item_id, order), output in rows.items():
                if (n := turn_no(order)) is not None:
                    self._future((cell_key, item_id, n)).set_result("" if output is None else str(output))

    def _future(self, key: tuple) -> asyncio.Future:
        fut = self._futures.get(key)
        if fut is None:
            fut = self._futures[key] = asyncio.get_running_loop().create_future()
        return fut

    @staticmethod
    def _key(job: Any) -> tuple | None:
        n = turn_no(job.order)
        return None if n is None else (job.cell.key, job.item.item_id, n)

    async def history(self, job: Any) -> list[str] | None:
        """The model's committed answers to the turns before this job's (None for a job that is not a turn);
        ClientError when one of them failed."""
        key = self._key(job)
        if key is None:
            return None
        cell_key, item_id, n = key
        return [await self._wait(self._future((cell_key, item_id, k))) for k in range(1, n)]

    async def _wait(self, fut: asyncio.Future) -> str:
        while True:
            done, _ = await asyncio.wait({fut}, timeout=self.WAKE_S)
            if done:
                return fut.result()
            if (error := self.broken()) is not None:
                raise error

    def answered(self, job: Any, output: str | None) -> None:
        """A turn's answer is handed to the writer (its later turns wait for `committed`)."""
        if (key := self._key(job)) is not None:
            self._answered[key] = "" if output is None else output

    def committed(self, jobs: Sequence[Any]) -> None:
        """These jobs' answers are stored: the turns after them may go."""
        for job in jobs:
            key = self._key(job)
            if key is not None and key in self._answered:
                fut = self._future(key)
                if not fut.done():
                    fut.set_result(self._answered.pop(key))

    def failed(self, job: Any, reason: str) -> None:
        """A turn failed for good: the turns after it fail too, without a request."""
        key = self._key(job)
        if key is not None:
            fut = self._future(key)
            if not fut.done():
                fut.set_exception(ClientError(f"an earlier turn of this conversation failed: {reason}"))
                fut.exception()  # retrieved: a conversation without a later turn logs nothing
