"""Async client for OpenAI-compatible servers (vLLM, SGLang, TGI, llama.cpp, hosted APIs).

Chat completions for generation; `/v1/completions` with `echo=True, logprobs` for option log-likelihoods, where the
option's tokens are picked by their text offsets. Every call retries 429, 5xx, dropped connections and timeouts with
exponential backoff and full jitter, has a per-request timeout and can be held to a requests-per-minute budget.
The client knows nothing about tasks: it takes messages or strings and returns plain records.
"""
from __future__ import annotations

import asyncio
import math
import random
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Mapping, Sequence

import httpx
import openai
from openai import AsyncOpenAI

POOL_SIZE = 16
"""Requests in flight per HTTP connection pool."""


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
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, httpx.TransportError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value else None
    except ValueError:
        return None


def _guard_hook(guard: Callable[[str], Any]) -> Callable[[httpx.Request], Awaitable[None]]:
    """An httpx request hook running `guard(url)` (which may resolve names: off the event loop) before sending."""
    async def hook(request: httpx.Request) -> None:
        await asyncio.get_running_loop().run_in_executor(None, guard, str(request.url))

    return hook


def _refused(exc: BaseException | None) -> bool:
    """Whether an exception (or one it wraps) is the endpoint policy refusing a request: never retried."""
    from evaluator.endpoints import EndpointRefused

    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, EndpointRefused):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc}"


class ModelClient:
    """One model served at one or several OpenAI-compatible endpoints.

    `base_url` may list several servers separated by commas (e.g. one vLLM or SGLang replica per GPU): each request
    goes to the least busy connection pool across all of them, so load follows each server's speed and a retried
    request may land on another replica.
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
        self.requests_sent = 0
        # httpx's pool costs more CPU per request the more connections it holds, so requests are spread over
        # one pool per POOL_SIZE slots (measured: ~10x less client CPU per request at 128 in flight).
        per_server = max(1, math.ceil(concurrency / len(self.base_urls) / POOL_SIZE))
        self._urls = [url for url in self.base_urls for _ in range(per_server)]
        # Redirects are never followed (a public endpoint must not bounce the request, and its key, elsewhere);
        # `guard` (the endpoint policy, for queued runs) checks every request's URL before it is sent.
        hooks = {"request": [_guard_hook(guard)]} if guard else {}
        self._pools = [AsyncOpenAI(base_url=url, api_key=api_key or "EMPTY", timeout=timeout, max_retries=0,
                                   http_client=httpx.AsyncClient(timeout=timeout, follow_redirects=False,
                                                                 event_hooks=hooks)) for url in self._urls]
        self._busy = [0] * len(self._pools)

    async def close(self) -> None:
        """Release pooled connections."""
        for api in self._pools:
            await api.close()

    async def __aenter__(self) -> "ModelClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, what: str, fn: Callable[[AsyncOpenAI], Awaitable[Any]]) -> tuple[Any, float, int]:
        """Run one request with rate limiting and retries; returns (response, latency of the good try, attempts)."""
        attempt = 0
        while True:
            attempt += 1
            await self.limiter.wait()
            self.requests_sent += 1
            pool = min(range(len(self._pools)), key=self._busy.__getitem__)
            self._busy[pool] += 1
            t0 = time.monotonic()
            try:
                return await fn(self._pools[pool]), time.monotonic() - t0, attempt
            except LogprobsUnsupported:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                if _refused(exc):
                    raise ClientError(f"{what}: endpoint refused by the endpoint policy") from exc
                if not _retryable(exc):
                    raise ClientError(f"{what} at {self._urls[pool]}: {_describe(exc)}") from exc
                if attempt > self.retry.max_retries:
                    raise ClientError(f"{what} at {self._urls[pool]} failed after {attempt} attempts: "
                                      f"{_describe(exc)}") from exc
                wait = self.retry.delay(attempt, _retry_after(exc))
            finally:
                self._busy[pool] -= 1
            await asyncio.sleep(wait)

    async def chat(self, messages: list[dict], *, temperature: float = 0.0, top_p: float = 1.0,
                   max_tokens: int = 256, extra_body: Mapping[str, Any] | None = None) -> Completion:
        """One chat completion."""
        body = {**self.extra_body, **(extra_body or {})}

        async def send(api: AsyncOpenAI) -> Any:
            return await api.chat.completions.create(
                model=self.model, messages=messages, temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                extra_body=body or None)

        response, latency, attempts = await self._call("chat completion", send)
        if not getattr(response, "choices", None):
            raise ClientError(f"chat completion at {self.base_url}: response has no choices")
        choice = response.choices[0]
        message = choice.message
        extra = message.model_extra or {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        usage = response.usage
        return Completion(
            text=message.content or "", reasoning=reasoning,
            tokens_in=usage.prompt_tokens if usage else None, tokens_out=usage.completion_tokens if usage else None,
            latency_s=latency, finish_reason=choice.finish_reason, attempts=attempts)

    async def option_logprob(self, prompt: str, option: str) -> OptionScore:
        """log P(option | prompt) from one echoed completion of `prompt + option`."""
        text = prompt + option

        async def send(api: AsyncOpenAI) -> Any:
            try:
                return await api.completions.create(
                    model=self.model, prompt=text, max_tokens=1, temperature=0.0, echo=True, logprobs=1,
                    extra_body=self.extra_body or None)
            except openai.NotFoundError as exc:
                raise LogprobsUnsupported(
                    f"{self.base_url} has no /completions endpoint (chat-only API): option log-probabilities "
                    f"need a server with echo + logprobs (vLLM, llama.cpp, TGI)") from exc
            except openai.BadRequestError as exc:
                if "echo" in str(exc).lower() or "logprob" in str(exc).lower():
                    raise LogprobsUnsupported(f"{self.base_url} refuses echo + logprobs: {exc}") from exc
                raise

        response, latency, attempts = await self._call("completion with echo", send)
        lp = response.choices[0].logprobs if response.choices else None
        if lp is None or not lp.token_logprobs or not lp.text_offset:
            raise LogprobsUnsupported(f"{self.base_url} returned no echoed prompt log-probabilities")
        echoed = response.choices[0].text or ""
        base = 0 if echoed.startswith(text) else echoed.find(text)
        if base < 0:
            raise LogprobsUnsupported(f"{self.base_url} did not echo the prompt (echo=True ignored)")
        total, count = option_span_logprob(lp.token_logprobs, lp.text_offset, base + len(prompt), base + len(text),
                                           len(echoed))
        usage = response.usage
        return OptionScore(logprob=total, n_tokens=count, tokens_in=usage.prompt_tokens if usage else None,
                           latency_s=latency, attempts=attempts)


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
