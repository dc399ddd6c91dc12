"""Async client for OpenAI-compatible servers (vLLM, SGLang, TGI, llama.cpp, hosted APIs).

Chat completions for generation; `/v1/completions` with `echo=True, logprobs` for option log-likelihoods, where the
option's tokens are picked by their text offsets. Every call retries 429, 5xx, dropped connections and timeouts with
exponential backoff and full jitter, has a per-request timeout and can be held to a requests-per-minute budget.
The client knows nothing about tasks: it takes messages or strings and returns plain records.
"""
from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from evaluator.openai_http import Endpoint, StatusError, TransportError


class ClientError(Exception):
    """A request failed for good (after retries, or with a status that retrying cannot fix)."""


class LogprobsUnsupported(ClientError):
    """The endpoint cannot return prompt log-probabilities (chat-only API, or no `echo` + `logprobs`)."""


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before asking again."""

    max_retries: int = 6
    """Retries after the first attempt (so at most max_retries + 1 requests per call)."""
    base_delay: float = 0.5
    """Backoff before the first retry, doubled each time (seconds)."""
    max_delay: float = 30.0
    """Ceiling of one backoff (seconds)."""

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Full-jitter backoff for retry number `attempt` (1-based), at least the server's Retry-After."""
        cap = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        wait = random.uniform(0, cap)
        return max(wait, min(retry_after or 0.0, self.max_delay))


@dataclass(frozen=True)
class Completion:
    """One generated answer with what it cost."""

    text: str
    """Answer text (a leading `<think>…</think>` block stays in it; extraction splits it off)."""
    reasoning: str | None
    """Reasoning trace the server returned separately (`reasoning_content` / `reasoning`)."""
    tokens_in: int | None
    """Prompt tokens as counted by the server."""
    tokens_out: int | None
    """Completion tokens as counted by the server."""
    latency_s: float
    """Wall time of the successful attempt (seconds)."""
    finish_reason: str | None
    """"stop", "length", ... as reported."""
    attempts: int = 1
    """Requests sent, retries included."""


@dataclass(frozen=True)
class OptionScore:
    """Log-likelihood of one option continuing a prompt."""

    logprob: float
    """Sum of the log-probabilities of the tokens covering the option's characters."""
    n_tokens: int
    """Number of those tokens."""
    tokens_in: int | None = None
    """Tokens in the scored text (prompt + option)."""
    latency_s: float = 0.0
    """Wall time of the successful attempt (seconds)."""
    attempts: int = 1
    """Requests sent, retries included."""


def option_span_logprob(tokens_lp: Sequence[float | None], offsets: Sequence[int], start: int, end: int,
                        text_len: int) -> tuple[float, int]:
    """Sum and count of the token log-probabilities whose characters overlap [start, end).

    `offsets[i]` is where token i starts in the echoed text; a token ends where the next one starts (the last one at
    `text_len`). A token straddling the prompt/option boundary counts for the option, since it carries option text.
    """
    total, count = 0.0, 0
    for i, (lp, off) in enumerate(zip(tokens_lp, offsets)):
        tok_end = offsets[i + 1] if i + 1 < len(offsets) else text_len
        if tok_end <= start or off >= end or tok_end <= off:
            continue
        if lp is None:
            raise ClientError(f"no log-probability for token {i} inside the option span")
        total += lp
        count += 1
    if count == 0:
        raise ClientError(f"no echoed token covers characters {start}-{end}")
    return total, count


class RateLimiter:
    """At most `rpm` request starts per minute, evenly spaced."""

    def __init__(self, rpm: float | None, clock: Callable[[], float] = time.monotonic):
        self.interval = 60.0 / rpm if rpm else 0.0
        self.clock = clock
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        """Sleep until the next start slot is free."""
        if not self.interval:
            return
        async with self._lock:
            now = self.clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, TransportError):
        return exc.retryable
    if isinstance(exc, StatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


def _retry_after(exc: Exception) -> float | None:
    value = getattr(exc, "retry_after", None)
    try:
        return float(value) if value else None
    except ValueError:
        return None


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"{getattr(exc, 'kind', type(exc).__name__)}" + (f" (HTTP {status})" if status else "") + f": {exc}"


class ModelClient:
    """One model served at one or several OpenAI-compatible endpoints (transport: `evaluator.openai_http`).

    `base_url` may list several servers separated by commas (e.g. one vLLM or SGLang replica per GPU): each request
    goes to the least busy server, so load follows each server's speed and a retried request may land on another
    replica. `guard` (the endpoint policy, for queued runs) checks the URL before every request is sent; redirects
    are never followed (a public endpoint must not bounce the request, and its key, elsewhere).
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 120.0,
                 retry: RetryPolicy = RetryPolicy(), rpm: float | None = None,
                 extra_body: Mapping[str, Any] | None = None, concurrency: int = 8,
                 guard: Callable[[str], Any] | None = None):
        self.base_urls = [u.strip().rstrip("/") for u in base_url.split(",") if u.strip()]
        if not self.base_urls:
            raise ValueError("base_url names no server")
        self.base_url = ",".join(self.base_urls)
        self.model = model
        self.retry = retry
        self.limiter = RateLimiter(rpm)
        self.extra_body = dict(extra_body or {})
        self.guard = guard
        self.requests_sent = 0
        self._servers = [Endpoint(url, api_key, timeout, max(1, concurrency)) for url in self.base_urls]
        self._busy = [0] * len(self._servers)

    async def close(self) -> None:
        """Release pooled connections."""
        for server in self._servers:
            await server.close()

    async def __aenter__(self) -> "ModelClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _check(self, what: str, url: str) -> None:
        """The endpoint policy on one URL (it may resolve names: off the event loop); a refusal is never retried."""
        from evaluator.endpoints import EndpointRefused

        try:
            await asyncio.get_running_loop().run_in_executor(None, self.guard, url)
        except EndpointRefused as exc:
            raise ClientError(f"{what}: endpoint refused by the endpoint policy") from exc

    async def _call(self, what: str, path: str, payload: Mapping[str, Any],
                    classify: Callable[[Exception], None] | None = None) -> tuple[dict, float, int]:
        """POST with rate limiting and retries; returns (answer, latency of the good try, attempts)."""
        attempt = 0
        while True:
            attempt += 1
            await self.limiter.wait()
            pick = min(range(len(self._servers)), key=self._busy.__getitem__)
            server = self._servers[pick]
            if self.guard is not None:
                await self._check(what, server.base_url + path)
            self.requests_sent += 1
            self._busy[pick] += 1
            t0 = time.monotonic()
            try:
                return await server.post(path, payload), time.monotonic() - t0, attempt
            except (StatusError, TransportError) as exc:
                if classify is not None:
                    classify(exc)
                if not _retryable(exc):
                    raise ClientError(f"{what} at {server.base_url}: {_describe(exc)}") from exc
                if attempt > self.retry.max_retries:
                    raise ClientError(f"{what} at {server.base_url} failed after {attempt} attempts: "
                                      f"{_describe(exc)}") from exc
                wait = self.retry.delay(attempt, _retry_after(exc))
            finally:
                self._busy[pick] -= 1
            await asyncio.sleep(wait)

    async def chat(self, messages: list[dict], *, temperature: float = 0.0, top_p: float = 1.0,
                   max_tokens: int = 256, extra_body: Mapping[str, Any] | None = None) -> Completion:
        """One chat completion."""
        payload = {"model": self.model, "messages": messages, "temperature": temperature, "top_p": top_p,
                   "max_tokens": max_tokens, **self.extra_body, **(extra_body or {})}
        answer, latency, attempts = await self._call("chat completion", "/chat/completions", payload)
        try:
            choice = answer["choices"][0]
            message = choice.get("message") or {}
            text = message.get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ClientError(f"chat completion at {self.base_url}: response has no choices") from None
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        tokens_in, tokens_out = _usage(answer)
        return Completion(text=str(text), reasoning=reasoning if isinstance(reasoning, str) else None,
                          tokens_in=tokens_in, tokens_out=tokens_out, latency_s=latency,
                          finish_reason=choice.get("finish_reason"), attempts=attempts)

    async def option_logprob(self, prompt: str, option: str) -> OptionScore:
        """log P(option | prompt) from one echoed completion of `prompt + option`."""
        text = prompt + option
        payload = {"model": self.model, "prompt": text, "max_tokens": 1, "temperature": 0.0, "echo": True,
                   "logprobs": 1, **self.extra_body}

        def classify(exc: Exception) -> None:
            if isinstance(exc, StatusError) and exc.status_code == 404:
                raise LogprobsUnsupported(
                    f"{self.base_url} has no /completions endpoint (chat-only API): option log-probabilities "
                    f"need a server with echo + logprobs (vLLM, llama.cpp, TGI)") from exc
            if isinstance(exc, StatusError) and exc.status_code == 400 and (
                    "echo" in str(exc).lower() or "logprob" in str(exc).lower()):
                raise LogprobsUnsupported(f"{self.base_url} refuses echo + logprobs: {exc}") from exc

        answer, latency, attempts = await self._call("completion with echo", "/completions", payload, classify)
        try:
            choice = answer["choices"][0]
            lp = choice.get("logprobs") or {}
            token_lps, offsets, echoed = lp.get("token_logprobs"), lp.get("text_offset"), choice.get("text") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            token_lps = offsets = None
        if not token_lps or not offsets:
            raise LogprobsUnsupported(f"{self.base_url} returned no echoed prompt log-probabilities")
        base = 0 if echoed.startswith(text) else echoed.find(text)
        if base < 0:
            raise LogprobsUnsupported(f"{self.base_url} did not echo the prompt (echo=True ignored)")
        total, count = option_span_logprob(token_lps, offsets, base + len(prompt), base + len(text), len(echoed))
        return OptionScore(logprob=total, n_tokens=count, tokens_in=_usage(answer)[0], latency_s=latency,
                           attempts=attempts)


def _usage(answer: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """(prompt_tokens, completion_tokens) as the server counted them, when it did."""
    usage = answer.get("usage")
    if not isinstance(usage, dict):
        return None, None
    def count(v: Any) -> int | None:
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    return count(usage.get("prompt_tokens")), count(usage.get("completion_tokens"))


def choose(options: Sequence[str], scores: Sequence[OptionScore]) -> dict[str, int]:
    """Argmax option index per length normalisation (none, chars, bytes, tokens); ties are decided by the options'
    text, never their position (`evaluator.metrics.choice.argmax_option`)."""
    from evaluator.metrics.choice import argmax_option

    def argmax(values: list[float]) -> int:
        return argmax_option(values, options)

    sums = [s.logprob for s in scores]
    return {
        "none": argmax(sums),
        "chars": argmax([s / max(len(o), 1) for s, o in zip(sums, options)]),
        "bytes": argmax([s / max(len(o.encode("utf-8")), 1) for s, o in zip(sums, options)]),
        "tokens": argmax([s.logprob / max(s.n_tokens, 1) for s in scores]),
    }
