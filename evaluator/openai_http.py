"""A lean transport for the OpenAI-compatible protocol on aiohttp: one JSON POST, one JSON answer.

Chosen over the openai SDK (openai + httpx + anyio) by `benchmarks/bench_throughput.py`: against the same stand-in
it spends about a tenth of the SDK's event-loop CPU per request (README, "Throughput"); bodies are encoded and
decoded with orjson (the client loop's CPU per request 14% lower than with the stdlib's json). It sends exactly what
it is given plus `Authorization` and `Content-Type`: no environment variables are read (no proxies, no netrc, no
`OPENAI_*` headers), redirects are never followed, and answers larger than `MAX_RESPONSE_BYTES` are refused.
Errors keep the openai SDK's names (`RateLimitError`, `InternalServerError`, ...) so messages read the same.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

import aiohttp
import orjson

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
    """One server's connection pool. Created lazily inside the running event loop (aiohttp's requirement)."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float, connections: int):
        self.base_url = base_url
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self.connections = connections
        self.headers = {"Authorization": f"Bearer {api_key or 'EMPTY'}", "Content-Type": "application/json"}
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(limit=self.connections, limit_per_host=0, ttl_dns_cache=None)
        # trust_env=False: no proxy variables or netrc; redirects are refused per request below
        return aiohttp.ClientSession(connector=connector, timeout=self.timeout, trust_env=False,
                                     headers=self.headers, skip_auto_headers=("Accept-Encoding",))

    async def post(self, path: str, payload: Mapping[str, Any]) -> dict:
        """POST `payload` as JSON to base_url + path; the decoded JSON object, or StatusError / TransportError."""
        if self._session is None or self._session.closed:
            self._session = self._open()
        data = _encode(payload)
        try:
            async with self._session.post(self.base_url + path, data=data, allow_redirects=False) as resp:
                body = await _read_capped(resp)
                status, retry_after = resp.status, resp.headers.get("retry-after")
        except TimeoutError as exc:
            raise TransportError("APITimeoutError", "request timed out") from exc
        except aiohttp.ClientError as exc:
            raise TransportError("APIConnectionError", f"connection error ({type(exc).__name__})") from exc
        if status >= 300:
            raise StatusError(status, _error_message(body), retry_after)
        try:
            answer = _decode(body)
        except ValueError as exc:
            raise TransportError("APIResponseValidationError", "response is not JSON", retryable=False) from exc
        if not isinstance(answer, dict):
            raise TransportError("APIResponseValidationError", "response is not a JSON object", retryable=False)
        return answer

    async def close(self) -> None:
        """Close the pool's connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None


async def _read_capped(resp: aiohttp.ClientResponse) -> bytes:
    if resp.content_length is not None and resp.content_length > MAX_RESPONSE_BYTES:
        raise TransportError("APIResponseValidationError", f"response larger than {MAX_RESPONSE_BYTES} bytes",
                             retryable=False)
    chunks, size = [], 0
    async for chunk in resp.content.iter_any():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise TransportError("APIResponseValidationError", f"response larger than {MAX_RESPONSE_BYTES} bytes",
                                 retryable=False)
        chunks.append(chunk)
    return b"".join(chunks)
