"""Multi-turn conversations on the stand-in server into the store: each turn sent with the model's own earlier
answers, stored as its own prediction; a run killed between turns resumes without sending any turn twice."""
from __future__ import annotations

import asyncio
import json

import pytest

from evaluator.clients import ModelClient, RetryPolicy
from evaluator.run import run
from evaluator.runspec import RunSpec
from services.live import StoreSink
from store.db import connect
from tests.helpers.standin_server import StandinServer

FAST = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05)
CONVERSATIONS = [
    {"question_id": 1, "prompts": [{"text": "Tulis pantun tentang hujan."}, {"text": "Sekarang jadikan lucu."}],
     "baselines": {"ref-model": ["Hujan turun.", "Hujan lucu."]}, "references": None,
     "metadata": {"category": "writing"}},
    {"question_id": 2, "prompts": [{"text": "Berapa 12 kali 12?"}, {"text": "Bagi hasilnya dengan 3."}],
     "baselines": {"ref-model": ["144", "48"]}, "references": ["144", "48"], "metadata": {"category": "math"}},
    {"question_id": 3, "prompts": [{"text": "Sebutkan tiga pulau di Indonesia."}, {"text": "Yang mana terbesar?"}],
     "baselines": {"ref-model": ["Jawa, Bali, Sumatra", "Sumatra"]}, "references": None,
     "metadata": {"category": "knowledge"}},
]


def reply(prompt: str) -> str:
    """A distinct answer per user message, so the history can be checked."""
    return f"answer to <{prompt}>"


class Killed(BaseException):
    """A kill, raised just before the first second turn is sent."""


class KillBeforeTurnTwo:
    """The model client, killed when a conversation's second turn is about to be sent."""

    def __init__(self, client: ModelClient):
        self.client = client

    async def chat(self, messages, **kw):
        if sum(m["role"] == "user" for m in messages) > 1:
            raise Killed()
        return await self.client.chat(messages, **kw)

    async def option_logprob(self, prompt, option):  # pragma: no cover - chat tasks never ask for it
        raise AssertionError


@pytest.fixture()
def data_dir(tmp_path):
    d = tmp_path / "data" / "mt_bench"
    d.mkdir(parents=True)
    (d / "id.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CONVERSATIONS), encoding="utf-8")
    return tmp_path / "data"


def _go(url, con, data_dir, wrap=None, concurrency=1):
    async def main():
        async with ModelClient(url, "standin", retry=FAST, timeout=5, concurrency=concurrency) as client:
            backend = wrap(client) if wrap else client
            spec = RunSpec(model="chat-model", tasks="sea-mt-bench", langs="id", prompt_langs=("native",),
                           data_dir=data_dir, concurrency=concurrency)
            return await run(backend, StoreSink(con, "chat-model"), spec, progress=False)
    return asyncio.run(main())


def _stored(con):
    return {(r[0], r[1]): r[2] for r in con.execute(
        "SELECT p.item_id, p.ord, p.output FROM predictions p JOIN runs USING (run_id) "
        "WHERE runs.task = 'sea-mt-bench'").fetchall()}


def _sent(server):
    """(first user message, number of user messages) of every request, in order."""
    out = []
    for body in server.bodies:
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        out.append((users[0], len(users)))
    return out


def test_turn_two_carries_the_models_turn_one_answer(tmp_path, data_dir):
    con = connect(tmp_path / "s.duckdb")
    with StandinServer(reply=reply) as server:
        statuses = _go(server.base_url, con, data_dir, concurrency=4)
    assert [(s.asked, s.failed) for s in statuses] == [(6, 0)]
    stored = _stored(con)
    assert set(stored) == {(str(i), f"t{n}") for i in (1, 2, 3) for n in (1, 2)}
    assert stored[("2", "t1")] == "answer to <Berapa 12 kali 12?>"
    second = [b["messages"] for b in server.bodies if len(b["messages"]) > 1]
    assert len(second) == 3
    by_first = {m[0]["content"]: m for m in second}
    assert by_first["Berapa 12 kali 12?"] == [
        {"role": "user", "content": "Berapa 12 kali 12?"},
        {"role": "assistant", "content": "answer to <Berapa 12 kali 12?>"},
        {"role": "user", "content": "Bagi hasilnya dengan 3."}]
    # each turn's stored prompt is its own user message
    prompt = con.execute("SELECT prompt FROM predictions WHERE item_id = '2' AND ord = 't2'").fetchone()[0]
    assert prompt == "Bagi hasilnya dengan 3."
    con.close()


def test_killed_between_turns_then_resumed_sends_no_turn_twice(tmp_path, data_dir):
    con = connect(tmp_path / "k.duckdb")
    with StandinServer(reply=reply) as server:
        with pytest.raises(Killed):
            _go(server.base_url, con, data_dir, wrap=KillBeforeTurnTwo)
        assert _stored(con) == {("1", "t1"): "answer to <Tulis pantun tentang hujan.>"}
        assert _sent(server) == [("Tulis pantun tentang hujan.", 1)]
        statuses = _go(server.base_url, con, data_dir)
    assert statuses[0].resumed == 1 and statuses[0].asked == 5
    sent = _sent(server)
    assert len(sent) == len(set(sent)) == 6  # every turn of every conversation sent exactly once over both runs
    # the resumed conversation's second turn carries the answer stored before the kill
    resumed = next(b["messages"] for b in server.bodies if b["messages"][0]["content"] == "Tulis pantun tentang hujan."
                   and len(b["messages"]) == 3)
    assert resumed[1] == {"role": "assistant", "content": "answer to <Tulis pantun tentang hujan.>"}
    assert len(_stored(con)) == 6
    con.close()


def test_a_failed_turn_is_not_followed_by_a_request_for_the_next(tmp_path, data_dir):
    con = connect(tmp_path / "f.duckdb")
    with StandinServer(reply=reply) as server:
        server.faults.burst_500 = 3  # the first turn's request and both retries
        statuses = _go(server.base_url, con, data_dir)
    assert statuses[0].failed == 6 and statuses[0].asked == 0  # a failed cell skips the rest (the runner's rule)
    assert _sent(server) == [("Tulis pantun tentang hujan.", 1)] * 3  # turn 2 never sent
    assert _stored(con) == {}
    con.close()


class FailingSink(StoreSink):
    """A store whose commits fail."""

    def save_many(self, rows):
        raise RuntimeError("disk full")


def test_a_failed_commit_ends_the_run_instead_of_leaving_turn_two_waiting(tmp_path, data_dir):
    con = connect(tmp_path / "w.duckdb")

    async def main(url):
        async with ModelClient(url, "standin", retry=FAST, timeout=5, concurrency=1) as client:
            spec = RunSpec(model="chat-model", tasks="sea-mt-bench", langs="id", prompt_langs=("native",),
                           data_dir=data_dir, concurrency=1)
            return await asyncio.wait_for(run(client, FailingSink(con, "chat-model"), spec, progress=False), 30)

    with StandinServer(reply=reply) as server:
        with pytest.raises(RuntimeError, match="disk full"):
            asyncio.run(main(server.base_url))
    assert _sent(server) == [("Tulis pantun tentang hujan.", 1)]  # turn 2 never sent on an unstored turn 1
    con.close()
