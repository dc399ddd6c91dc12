"""A lean transport for the OpenAI-compatible protocol: one JSON POST, one JSON answer.

Chosen by `benchmarks/bench_throughput.py` over the openai SDK (openai + httpx + anyio), then over aiohttp: requests
go through `evaluator.http1` (keep-alive HTTP/1.1 connections on asyncio protocols, answers parsed by httptools),
bodies are encoded and decoded with orjson. Event-loop CPU per request against the same stand-in: the SDK 3.1-7.9
ms, aiohttp 0.11-0.14 ms, this 0.04-0.05 ms (README, "Running a model"). It sends exactly what it is given plus
`Host`, `User-Agent`, `Authorization`, `Content-Type`, `Accept` and `Content-Length`: no environment variables are
read (no proxies, no netrc, no `OPENAI_*` headers), redirects are never followed, and answers larger than
`MAX_RESPONSE_BYTES` are refused. Errors keep the openai SDK's names (`RateLimitError`, `InternalServerError`, ...)
so messages read the same.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

import orjson

from evaluator.http1 import HttpError, Origin, Pool

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""Largest answer read (a hostile endpoint could otherwise stream without end until the timeout)."""

STATUS_NAMES = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
                404: "NotFoundError", 409: "ConflictError", 422: "UnprocessableEntityError", 429: "RateLimitError"}
"""Error names by HTTP status, as the openai SDK calls them (5xx: InternalServerError)."""


class StatusError(Exception):
    """The server answered with a non-2xx status."""

    def __init__(self, status_code: int, message: str, retry_after: str | None):
        super().__init__(message)
        self.status_code = status_code
        self.retry_after = retry_after
        self.kind = STATUS_NAMES.get(status_code, "InternalServerError" if status_code >= 500 else "APIStatusError")


class TransportError(Exception):
    """No usable answer: the connection failed or dropped, the request timed out, or the body was not JSON."""

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
    """The JSON value of a body: orjson (a tenth of the stdlib's CPU), the stdlib for what orjson refuses but
    servers send (NaN, Infinity); ValueError when it is not JSON."""
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


class Endpoint:
    """One server's connection pool (`evaluator.http1.Pool`), opened lazily inside the running event loop.

    ValueError at construction for a base URL or key that cannot go into a request head as they are."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float, connections: int):
        self.base_url = base_url
        self.timeout = timeout
        self.connections = connections
        self.origin = Origin.parse(base_url)
        key = api_key or "EMPTY"
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in key):
            raise ValueError("the API key contains control characters")
        self._head = (f"Host: {self.origin.host_header}\r\nUser-Agent: tanaw\r\nAuthorization: Bearer {key}\r\n"
                      "Content-Type: application/json\r\nAccept: application/json\r\n").encode("utf-8")
        self._pool = Pool(self.origin, connections, MAX_RESPONSE_BYTES)

    def _request(self, path: str, body: bytes) -> bytes:
        target = (self.origin.base_path + path).encode("ascii")
        return (b"POST " + target + b" HTTP/1.1\r\n" + self._head + b"Content-Length: " + str(len(body)).encode()
                + b"\r\n\r\n" + body)

    async def post(self, path: str, payload: Mapping[str, Any]) -> dict:
        """POST `payload` as JSON to base_url + path; the decoded JSON object, or StatusError / TransportError."""
        try:
            answer = await self._pool.exchange(self._request(path, _encode(payload)), self.timeout)
        except HttpError as exc:
            if exc.kind == "timeout":
                raise TransportError("APITimeoutError", "request timed out") from exc
            if exc.kind == "too_large":
                raise TransportError("APIResponseValidationError", str(exc), retryable=False) from exc
            raise TransportError("APIConnectionError", str(exc)) from exc
        if answer.status >= 300:
            raise StatusError(answer.status, _error_message(answer.body), answer.headers.get("retry-after"))
        try:
            decoded = _decode(answer.body)
        except ValueError as exc:
            raise TransportError("APIResponseValidationError", "response is not JSON", retryable=False) from exc
        if not isinstance(decoded, dict):
            raise TransportError("APIResponseValidationError", "response is not a JSON object", retryable=False)
        return decoded

    async def close(self) -> None:
        """Close the pool's idle connections."""
        self._pool.close()


