"""Async client for OpenAI-compatible servers (vLLM, SGLang, TGI, llama.cpp, hosted APIs).

Chat completions for generation; `/v1/completions` with `echo=True, logprobs` for option log-likelihoods, where the
option's tokens are picked by their text offsets. Every call retries 429, 5xx, dropped connections and timeouts with
exponential backoff and full jitter (tenacity), has a per-request timeout and can be held to a requests-per-minute
budget. The client knows nothing about tasks: it takes messages or strings and returns plain records.

The transport is aiohttp (`Endpoint`: one `ClientSession` per server, keep-alive connections, orjson bodies) set up
for hostile servers: nothing is read from the environment (`trust_env=False`: no proxies, no netrc, no `OPENAI_*`
headers), no cookies are kept, redirects are never followed (a 3xx is an error), only `Authorization`,
`Content-Type`, `Accept`, `User-Agent`, `Host` and `Content-Length` are sent, TLS is verified against the system's
certificates (`SSL_CERT_FILE` honoured), answer heads are capped by `MAX_LINE_BYTES` and `MAX_HEADERS` and bodies
by `MAX_RESPONSE_BYTES`. For a queued run, every new connection's host is resolved and checked by the endpoint
policy (`CheckedResolver`) and only the checked addresses are connected to. Errors keep the openai SDK's names
(`RateLimitError`, `InternalServerError`, ...) so messages read the same.
"""
from __future__ import annotations

import asyncio
import json
import math
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp.abc import AbstractResolver, ResolveResult
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_random_exponential

from evaluator.endpoints import EndpointRefused, check_syntax, literal_address

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""Largest answer body read (a hostile endpoint could otherwise stream without end until the timeout)."""
MAX_LINE_BYTES = 8190
"""Longest status line or header line of an answer (aiohttp's `max_line_size` and `max_field_size`)."""
MAX_HEADERS = 128
"""Most header lines in an answer: its head is at most (MAX_HEADERS + 1) * MAX_LINE_BYTES."""

STATUS_NAMES = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
                404: "NotFoundError", 409: "ConflictError", 422: "UnprocessableEntityError", 429: "RateLimitError"}
"""Error names by HTTP status, as the openai SDK calls them (5xx: InternalServerError)."""

Addresses = Callable[[str, int], list[str]]
"""host, port -> the addresses a connection may use (raises `EndpointRefused`): `endpoints.connect_addresses`."""


class StatusError(Exception):
    """The server answered with a non-2xx status (a redirect included: it is never followed)."""

    def __init__(self, status_code: int, message: str, retry_after: str | None):
        super().__init__(message)
        self.status_code = status_code
        self.retry_after = retry_after
        self.kind = STATUS_NAMES.get(status_code, "InternalServerError" if status_code >= 500 else "APIStatusError")


class TransportError(Exception):
    """No usable answer: the connection failed or dropped, the request timed out, or the answer was unusable."""

    def __init__(self, kind: str, message: str, *, retryable: bool = True):
        super().__init__(message)
        self.kind, self.retryable = kind, retryable


def _encode(payload: Mapping[str, Any]) -> bytes:
    """A request body as UTF-8 JSON: orjson, or the stdlib for what orjson cannot write (integers beyond 64 bits)."""
    try:
        return orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(payload, ensure_ascii=False).encode()


def _decode(body: bytes) -> Any:
    """The JSON value of a body: orjson, the stdlib for what orjson refuses but servers send (NaN, Infinity);
    ValueError when it is not JSON."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return json.loads(body)


def _error_message(body: bytes) -> str:
    """The `error.message` of an OpenAI-style error body (else the start of the body), at most 300 characters."""
    try:
        data = json.loads(body)
        err = data.get("error") if isinstance(data, dict) else None
        msg = err.get("message") if isinstance(err, dict) else (err if isinstance(err, str) else None)
        text = str(msg) if msg else body.decode("utf-8", "replace")
    except ValueError:
        text = body.decode("utf-8", "replace")
    return text[:300]


class CheckedResolver(AbstractResolver):
    """aiohttp's resolver for a queued run: a host is resolved once per new connection by `addresses` (the endpoint
    policy, `endpoints.connect_addresses`), which refuses the connection unless every address is allowed, and the
    connection goes only to those checked addresses (TLS still verifies the host name). A name that answers a
    public address to the check and a private one to the connection (DNS rebinding) cannot reach the private one."""

    def __init__(self, addresses: Addresses):
        self.addresses = addresses

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[ResolveResult]:
        found = await asyncio.get_running_loop().run_in_executor(None, self.addresses, host, port)
        return [ResolveResult(hostname=host, host=a, port=port, family=socket.AF_INET6 if ":" in a else socket.AF_INET,
                              proto=0, flags=socket.AI_NUMERICHOST) for a in found]

    async def close(self) -> None:
        pass


class Endpoint:
    """One server: an aiohttp session (opened lazily inside the running event loop) of at most `connections`
    connections. ValueError at construction for a base URL or key that cannot go into a request as they are, and
    `EndpointRefused` for an IP-literal host `addresses` refuses (aiohttp connects to literals without resolving)."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float, connections: int,
                 addresses: Addresses | None = None):
        self.base_url = check_syntax(base_url)
        self.timeout = timeout
        self.connections = connections
        self.addresses = addresses
        key = api_key or "EMPTY"
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in key):
            raise ValueError("the API key contains control characters")
        parts = urlsplit(self.base_url)
        if addresses is not None and literal_address(parts.hostname or "") is not None:
            addresses(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
        self._headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                         "Accept": "application/json", "User-Agent": "tanaw"}
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _open(self) -> aiohttp.ClientSession:
        """The session of the running event loop (a new loop, a new `asyncio.run`, starts afresh)."""
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            checked = self.addresses is not None
            connector = aiohttp.TCPConnector(
                limit=max(1, self.connections), limit_per_host=0, ssl=self._tls(),
                resolver=CheckedResolver(self.addresses) if checked else None,
                use_dns_cache=not checked)  # checked: every new connection resolves and checks again
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, skip_auto_headers=("Accept-Encoding",),
                auto_decompress=False, trust_env=False, cookie_jar=aiohttp.DummyCookieJar(),
                timeout=aiohttp.ClientTimeout(total=self.timeout), max_line_size=MAX_LINE_BYTES,
                max_field_size=MAX_LINE_BYTES, max_headers=MAX_HEADERS)
            self._loop = loop
        return self._session

    def _tls(self) -> ssl.SSLContext | bool:
        """The system's trust store (`SSL_CERT_FILE` honoured), certificates and host names verified, for https;
        none to load for http (loading the trust store takes tens of milliseconds of the event loop)."""
        return False if urlsplit(self.base_url).scheme == "http" else ssl.create_default_context()

    async def post(self, path: str, payload: Mapping[str, Any]) -> dict:
        """POST `payload` as JSON to base_url + path; the decoded JSON object, or StatusError / TransportError
        (`EndpointRefused` when the policy refuses the host)."""
        session = self._open()
        try:
            async with session.post(self.base_url + path, data=_encode(payload), allow_redirects=False) as resp:
                body = await _read(resp)
                status, retry_after = resp.status, resp.headers.get("Retry-After")
        except TimeoutError as exc:
            raise TransportError("APITimeoutError", "request timed out") from exc
        except aiohttp.ClientResponseError as exc:  # an answer head aiohttp could not parse, or too large
            raise TransportError("APIResponseValidationError", f"malformed answer ({type(exc).__name__})",
                                 retryable=False) from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise TransportError("APIConnectionError", f"connection error ({type(exc).__name__})") from exc
        if status >= 300:
            raise StatusError(status, _error_message(body), retry_after)
        try:
            decoded = _decode(body)
        except ValueError as exc:
            raise TransportError("APIResponseValidationError", "response is not JSON", retryable=False) from exc
        if not isinstance(decoded, dict):
            raise TransportError("APIResponseValidationError", "response is not a JSON object", retryable=False)
        return decoded

    async def close(self) -> None:
        """Close the session and its connections."""
        if self._session is not None and self._loop is asyncio.get_running_loop():
            await self._session.close()
        self._session = None


async def _read(resp: aiohttp.ClientResponse) -> bytes:
    """The body of an answer, at most MAX_RESPONSE_BYTES (TransportError beyond; the connection is dropped)."""
    if resp.content_length is not None and resp.content_length <= MAX_RESPONSE_BYTES:
        return await resp.read()  # aiohttp reads exactly content_length bytes
    chunks, size = [], 0
    if resp.content_length is None:
        async for chunk in resp.content.iter_any():
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                break
            chunks.append(chunk)
        else:
            return b"".join(chunks)
    resp.close()
    raise TransportError("APIResponseValidationError", f"answer larger than {MAX_RESPONSE_BYTES} bytes",
                         retryable=False)


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

    def wait(self, state: RetryCallState) -> float:
        """tenacity's wait: full-jitter backoff before retry number `state.attempt_number` (uniform up to
        base_delay * 2 ** (n - 1), at most max_delay), at least the server's Retry-After (at most max_delay)."""
        jitter = wait_random_exponential(multiplier=self.base_delay, max=self.max_delay)(state)
        retry_after = _retry_after(state.outcome.exception()) if state.outcome is not None else None
        return max(jitter, min(retry_after or 0.0, self.max_delay))


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
    """One model served at one or several OpenAI-compatible endpoints (transport: `Endpoint`, aiohttp).

    `base_url` may list several servers separated by commas (e.g. one vLLM or SGLang replica per GPU): each request
    goes to the least busy server, so load follows each server's speed and a retried request may land on another
    replica. `addresses` (the endpoint policy, for queued runs: `endpoints.connect_addresses`) resolves and checks
    the host of every new connection, which goes only to the addresses it returned; a refusal fails the call at
    once, never retried. Redirects are never followed (a public endpoint must not bounce the request, and its key,
    elsewhere).
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 120.0,
                 retry: RetryPolicy = RetryPolicy(), rpm: float | None = None,
                 extra_body: Mapping[str, Any] | None = None, concurrency: int = 8,
                 addresses: Addresses | None = None):
        self.base_urls = [u.strip().rstrip("/") for u in base_url.split(",") if u.strip()]
        if not self.base_urls:
            raise ValueError("base_url names no server")
        self.base_url = ",".join(self.base_urls)
        self.model = model
        self.retry = retry
        self.limiter = RateLimiter(rpm)
        self.extra_body = dict(extra_body or {})
        self.requests_sent = 0
        self._servers = [Endpoint(url, api_key, timeout, max(1, concurrency), addresses) for url in self.base_urls]
        self._busy = [0] * len(self._servers)

    async def close(self) -> None:
        """Release pooled connections."""
        for server in self._servers:
            await server.close()

    async def __aenter__(self) -> "ModelClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _try(self, path: str, payload: Mapping[str, Any], classify: Callable[[Exception], None] | None
                   ) -> tuple[dict, float, str]:
        """One attempt on the least busy server: (answer, latency, server's base URL)."""
        await self.limiter.wait()
        pick = min(range(len(self._servers)), key=self._busy.__getitem__)
        server = self._servers[pick]
        self.requests_sent += 1
        self._busy[pick] += 1
        t0 = time.monotonic()
        try:
            return await server.post(path, payload), time.monotonic() - t0, server.base_url
        except (StatusError, TransportError) as exc:
            exc.server = server.base_url
            if classify is not None:
                classify(exc)
            raise
        finally:
            self._busy[pick] -= 1

    async def _call(self, what: str, path: str, payload: Mapping[str, Any],
                    classify: Callable[[Exception], None] | None = None) -> tuple[dict, float, int]:
        """POST with rate limiting and retries; returns (answer, latency of the good try, attempts).

        The first attempt is sent directly; only after a retryable failure does tenacity take over, its loop
        starting from that failure (its attempt 1, so waits and the attempt count are as if it had sent it): its
        machinery costs about as much CPU as the request itself (0.13-0.17 ms against aiohttp's 0.19-0.21 ms at
        C = 128), which the requests that succeed at once, nearly all of them, do not pay."""
        retrying: AsyncRetrying | None = None
        try:
            try:
                answer, latency, _ = await self._try(path, payload, classify)
                return answer, latency, 1
            except (StatusError, TransportError) as exc:
                if not _retryable(exc) or self.retry.max_retries < 1:
                    raise
                failed = [exc]
            retrying = AsyncRetrying(stop=stop_after_attempt(self.retry.max_retries + 1), wait=self.retry.wait,
                                     retry=retry_if_exception(_retryable), reraise=True)
            async for attempt in retrying:
                with attempt:
                    if failed:  # attempt 1: the failure of the request sent above
                        raise failed.pop()
                    answer, latency, _ = await self._try(path, payload, classify)
        except EndpointRefused as exc:
            raise ClientError(f"{what}: endpoint refused by the endpoint policy") from exc
        except (StatusError, TransportError) as exc:
            n = retrying.statistics.get("attempt_number", 1) if retrying is not None else 1
            where = getattr(exc, "server", self.base_url)
            if not _retryable(exc):
                raise ClientError(f"{what} at {where}: {_describe(exc)}") from exc
            raise ClientError(f"{what} at {where} failed after {n} attempts: {_describe(exc)}") from exc
        return answer, latency, attempt.retry_state.attempt_number

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

    def _no_logprobs(self, exc: Exception) -> None:
        """Raise LogprobsUnsupported for an answer saying the endpoint cannot echo prompt log-probabilities."""
        if isinstance(exc, StatusError) and exc.status_code == 404:
            raise LogprobsUnsupported(
                f"{self.base_url} has no /completions endpoint (chat-only API): prompt log-probabilities "
                f"need a server with echo + logprobs (vLLM, llama.cpp, TGI)") from exc
        if isinstance(exc, StatusError) and exc.status_code == 400 and (
                "echo" in str(exc).lower() or "logprob" in str(exc).lower()):
            raise LogprobsUnsupported(f"{self.base_url} refuses echo + logprobs: {exc}") from exc

    async def prompt_logprobs(self, text: str, top_k: int = 20) -> list[tuple[str, float | None, dict[str, float]]]:
        """Each token of `text` as the server scored it: (token, log-probability given its prefix or None for the
        first, the top `top_k` alternatives at its position as token → log-probability), from one echoed
        completion with `logprobs=top_k` (vLLM answers it from its `prompt_logprobs`). LogprobsUnsupported when
        the endpoint returns no echoed log-probabilities or no alternatives."""
        payload = {"model": self.model, "prompt": text, "max_tokens": 1, "temperature": 0.0, "echo": True,
                   "logprobs": top_k, **self.extra_body}
        answer, _, _ = await self._call("completion with echo", "/completions", payload, self._no_logprobs)
        try:
            choice = answer["choices"][0]
            lp = choice.get("logprobs") or {}
            tokens, lps, tops = lp.get("tokens"), lp.get("token_logprobs"), lp.get("top_logprobs")
            offsets, echoed = lp.get("text_offset"), choice.get("text") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            tokens = lps = tops = offsets = None
        if not isinstance(tokens, list) or not isinstance(lps, list) or not isinstance(offsets, list) \
                or not isinstance(tops, list) or not (len(tokens) == len(lps) == len(offsets) == len(tops)):
            raise LogprobsUnsupported(f"{self.base_url} returned no prompt log-probabilities with alternatives")
        if not isinstance(echoed, str) or not echoed.startswith(text):
            raise LogprobsUnsupported(f"{self.base_url} did not echo the prompt (echo=True ignored)")
        out = []
        for tok, value, top, off in zip(tokens, lps, tops, offsets):
            if not isinstance(off, int) or isinstance(off, bool) or off >= len(text):
                break  # past the prompt: the generated token
            good = value is None or (isinstance(value, (int, float)) and math.isfinite(value))
            alts = top if isinstance(top, dict) else {}
            if not good or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in alts.values()):
                raise ClientError(f"completion with echo at {self.base_url}: a log-probability is not a number")
            out.append((str(tok), None if value is None else float(value),
                        {str(k): float(v) for k, v in alts.items()}))
        if not any(alts for _, _, alts in out):
            raise LogprobsUnsupported(f"{self.base_url} returned no top-k alternatives for the prompt's tokens")
        return out

    async def option_logprob(self, prompt: str, option: str) -> OptionScore:
        """log P(option | prompt) from one echoed completion of `prompt + option`."""
        text = prompt + option
        payload = {"model": self.model, "prompt": text, "max_tokens": 1, "temperature": 0.0, "echo": True,
                   "logprobs": 1, **self.extra_body}
        answer, latency, attempts = await self._call("completion with echo", "/completions", payload,
                                                     self._no_logprobs)
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
