"""The OpenAI-compatible client against the local stand-in: retries, timeouts, log-probabilities, concurrency."""
from __future__ import annotations

import asyncio

import pytest

from evaluator.clients import (ClientError, LogprobsUnsupported, ModelClient, OptionScore, RateLimiter, RetryPolicy,
                               choose, option_span_logprob)
from evaluator.run import bounded
from tests.helpers.standin_server import Faults, StandinServer, token_logprob

FAST = RetryPolicy(max_retries=8, base_delay=0.01, max_delay=0.05)


def _run(coro):
    return asyncio.run(coro)


async def _chat(url: str, text: str = "hello", **kw):
    async with ModelClient(url, "standin", retry=kw.pop("retry", FAST), **kw) as client:
        return await client.chat([{"role": "user", "content": text}])


def test_chat_survives_429_500_dropped_connection_and_timeout():
    faults = Faults(burst_429=2, burst_500=2, drop=1, hang=1, hang_s=6.0)
    with StandinServer(faults=faults) as server:
        c = _run(_chat(server.base_url, timeout=2.0))
    assert c.attempts == 7
    assert server.counts["hello"] == 7
    assert server.statuses[429] == 2 and server.statuses[500] == 2
    assert server.statuses["drop"] == 1 and server.statuses["hang"] == 1 and server.statuses[200] == 1
    assert c.text in ("A", "B") and c.finish_reason == "stop" and c.tokens_out == 1


def test_gives_up_after_max_retries_with_a_clear_message():
    with StandinServer(faults=Faults(burst_500=10)) as server:
        with pytest.raises(ClientError, match=r"failed after 3 attempts: InternalServerError \(HTTP 500\)"):
            _run(_chat(server.base_url, retry=RetryPolicy(max_retries=2, base_delay=0.01)))
    assert server.counts["hello"] == 3


def _state(attempt: int, exc: Exception | None = None):
    from tenacity import RetryCallState

    state = RetryCallState(None, None, (), {})
    state.attempt_number = attempt
    if exc is not None:
        state.set_exception((type(exc), exc, None))
    return state


def test_backoff_is_exponential_with_full_jitter_and_honours_retry_after():
    from evaluator.clients import StatusError

    policy = RetryPolicy(base_delay=0.5, max_delay=4.0)
    for attempt, cap in ((1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (8, 4.0)):
        waits = [policy.wait(_state(attempt)) for _ in range(400)]
        assert all(0 <= w <= cap for w in waits) and max(waits) > cap * 0.8  # the whole range, not a fixed step
    assert policy.wait(_state(1, StatusError(429, "slow down", "3"))) == 3.0
    assert policy.wait(_state(1, StatusError(429, "slow down", "60"))) == 4.0  # never beyond max_delay


def test_option_logprob_sums_the_tokens_of_the_option():
    prompt, option = "Question: x?\nAnswer:", " foo bar"
    with StandinServer() as server:
        async def go():
            async with ModelClient(server.base_url, "standin", retry=FAST) as client:
                return await client.option_logprob(prompt, option)
        score = _run(go())
    # stand-in tokens: "Question:", " x?", "\nAnswer:", " foo", " bar", then one generated " x"
    assert score.n_tokens == 2
    assert score.logprob == pytest.approx(token_logprob(" foo") + token_logprob(" bar"))
    assert server.counts[prompt + option] == 1


def test_token_straddling_the_boundary_counts_for_the_option():
    # text "Answer:xyz!" tokens at 0 ("Answ"), 4 ("er:xy"), 9 ("z!"); the option is "xyz!" at 7..11
    total, n = option_span_logprob([None, -1.0, -2.0], [0, 4, 9], 7, 11, 11)
    assert (total, n) == (-3.0, 2)
    with pytest.raises(ClientError, match="no echoed token"):
        option_span_logprob([None, -1.0], [0, 4], 9, 9, 9)


def test_chat_only_endpoint_gives_logprobs_unsupported():
    with StandinServer(chat_only=True) as server:
        async def go():
            async with ModelClient(server.base_url, "standin", retry=FAST) as client:
                return await client.option_logprob("Q:", " a")
        with pytest.raises(LogprobsUnsupported, match="chat-only"):
            _run(go())
    assert server.counts["Q: a"] == 1  # a 404 is not retried


def test_reasoning_content_and_think_blocks():
    with StandinServer(reasoning="count the letters first") as server:
        c = _run(_chat(server.base_url))
    assert c.reasoning == "count the letters first"  # <think> blocks in the text: extract.split_reasoning


def test_length_normalisations_pick_different_options():
    scores = [OptionScore(-3.0, 1), OptionScore(-4.0, 4)]
    # sums: -3 > -4; per char: -3/1 < -4/2; per byte: -3/3 ("ก" is 3 bytes) > -4/2; per token: -3 < -1
    assert choose(["ก", "ab"], scores) == {"none": 0, "chars": 1, "bytes": 0, "tokens": 1}


def test_requests_per_minute_spaces_starts_evenly():
    limiter = RateLimiter(rpm=60_000, clock=lambda: 100.0)  # one start per millisecond; the clock stands still

    async def go():
        for _ in range(5):
            await limiter.wait()
        return limiter._next

    assert _run(go()) == pytest.approx(100.0 + 5 * 0.001)
    assert RateLimiter(None).interval == 0.0


def test_bounded_keeps_exactly_c_requests_in_flight():
    with StandinServer(latency=0.3) as server:
        async def go():
            async with ModelClient(server.base_url, "standin", retry=FAST, concurrency=8) as client:
                async def one(i):
                    await client.chat([{"role": "user", "content": f"q{i}"}])
                await bounded(range(40), one, 8)
        _run(go())
    assert server.peak_in_flight == 8
    assert server.requests == 40 and len(server.counts) == 40


def test_several_servers_share_the_load_and_a_failing_replica_is_retried_elsewhere():
    with StandinServer(latency=0.05) as a, StandinServer(latency=0.05, faults=Faults(burst_500=3)) as b:
        async def go():
            async with ModelClient(f"{a.base_url}, {b.base_url}", "standin", retry=FAST, concurrency=32) as client:
                async def one(i):
                    return await client.chat([{"role": "user", "content": f"q{i}"}])
                return await bounded(range(64), one, 32)
        _run(go())
    assert a.statuses[200] + b.statuses[200] == 64  # every question answered once
    assert a.statuses[200] >= 16 and b.statuses[200] >= 16  # both replicas served a real share
    assert b.statuses[500] == 3


def test_bodies_read_and_written_with_orjson_as_the_stdlib_would():
    import json

    from evaluator.clients import _decode, _encode

    payload = {"model": "m", "messages": [{"role": "user", "content": "ภาษาไทย தமிழ் \u2028 \"q\""}], "top_p": 1.0,
               "max_tokens": 8, "extra": {"seed": 7, "stop": ["\n"]}}
    assert json.loads(_encode(payload)) == payload
    assert json.loads(_encode({"seed": 2 ** 70})) == {"seed": 2 ** 70}  # beyond orjson: the stdlib writes it
    answer = b'{"choices": [{"message": {"content": "A"}, "logprobs": {"token_logprobs": [-Infinity, NaN]}}]}'
    lps = _decode(answer)["choices"][0]["logprobs"]["token_logprobs"]  # literals orjson refuses: the stdlib reads them
    assert lps[0] == float("-inf") and lps[1] != lps[1]
    assert _decode('{"a": "ท"}'.encode()) == {"a": "ท"}
    for bad in (b"<html>", b"\xff\xfe{", b""):
        with pytest.raises(ValueError):
            _decode(bad)
