"""Keep-alive HTTP/1.1 connections to one origin on asyncio protocols, responses parsed by httptools (llhttp).

The runner's requests are all alike (one JSON POST, one JSON answer, thousands of times), so the client's cost per
request is the runner's ceiling at high concurrency: aiohttp spends 0.11-0.14 ms of event-loop CPU per request on
its general machinery (request and response objects, header multidicts, cookie and redirect handling, tracing), this
0.04-0.05 ms (`benchmarks/bench_throughput.py --aiohttp`). It does only what the runner needs: a
request is bytes written to an idle connection of the pool (a new one when none is idle, at most `limit` busy); the
answer is parsed by httptools (Node's llhttp: status, headers, content-length or chunked bodies, keep-alive); a
connection the server closed, or one whose answer broke off, is never reused. Limits hold against a hostile server:
the head of an answer is capped at `MAX_HEAD_BYTES`, its body at the caller's `max_body`, the whole exchange
(connect included) at the caller's timeout. TLS through the stdlib's default context (certificates and host names
verified). No proxies, no cookies, no redirects (a 3xx is an answer like any other), no compression asked for.
"""
from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

import httptools

MAX_HEAD_BYTES = 64 * 1024
"""Largest status line plus headers read before the body."""


class HttpError(Exception):
    """The exchange failed: `kind` is "connect", "timeout", "broken" (closed or malformed answer) or "too_large"."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    """Header names in lower case (the last value of a repeated header)."""
    body: bytes


@dataclass(frozen=True)
class Origin:
    """Where requests go: scheme, host, port and the base path every request path is appended to."""

    scheme: str
    host: str
    port: int
    base_path: str

    @classmethod
    def parse(cls, url: str) -> "Origin":
        """An http(s) URL without user info, query or fragment; ValueError otherwise (the request line and the Host
        header are built from it, so nothing that could break them out is accepted)."""
        if any(ord(ch) < 33 or ord(ch) > 126 for ch in url):
            raise ValueError(f"URL {url!r}: spaces, control or non-ASCII characters are not allowed")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"URL {url!r}: expected http://host[:port]/path or https://...")
        if parts.username is not None or parts.query or parts.fragment:
            raise ValueError(f"URL {url!r}: user info, query and fragment are not allowed")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return cls(parts.scheme, parts.hostname, port, parts.path.rstrip("/"))

    @property
    def host_header(self) -> str:
        name = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return name if self.port == default else f"{name}:{self.port}"


class _Connection(asyncio.Protocol):
    """One TCP (or TLS) connection: one exchange at a time."""

    def __init__(self, max_body: int):
        self.max_body = max_body
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.closed = False
        self.waiter: asyncio.Future | None = None
        self._begin()

    def _begin(self) -> None:
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.size = self.head_size = 0
        self.head_done = self.framed = False

    # -- asyncio.Protocol ---------------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.waiter is None or self.waiter.done():  # bytes nobody asked for: the connection is out of step
            self.close()
            return
        if not self.head_done:
            self.head_size += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail("broken", f"malformed HTTP answer ({type(exc).__name__})")
            return
        if not self.head_done and self.head_size > MAX_HEAD_BYTES:
            self._fail("too_large", f"answer head larger than {MAX_HEAD_BYTES} bytes")

    def eof_received(self) -> bool:
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is not None and not self.waiter.done():
            if self.head_done and not self.framed:  # no length, not chunked: the body ends with the connection
                self._complete(keep=False)
            else:
                self.waiter.set_exception(HttpError("broken", "server closed the connection without a full answer"))

    # -- httptools callbacks --------------------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        if self.waiter is None or self.waiter.done():  # a second answer to one request: out of step
            self.close()

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self.head_done = True
        self.framed = "content-length" in self.headers or "chunked" in self.headers.get("transfer-encoding", "")
        length = self.headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body:
            self._fail("too_large", f"answer larger than {self.max_body} bytes")

    def on_body(self, body: bytes) -> None:
        self.size += len(body)
        if self.size > self.max_body:
            self._fail("too_large", f"answer larger than {self.max_body} bytes")
            return
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        self._complete(keep=self.parser.should_keep_alive())

    # -- the exchange -------------------------------------------------------------------------------------------
    def _complete(self, keep: bool) -> None:
        if self.waiter is None or self.waiter.done():
            return
        self.waiter.set_result(Answer(self.parser.get_status_code(), self.headers, b"".join(self.chunks)))
        if not keep:
            self.close()

    def _fail(self, kind: str, message: str) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(HttpError(kind, message))
        self.close()

    def send(self, request: bytes) -> asyncio.Future:
        """Write one request; the future resolves to its `Answer` (or raises `HttpError`)."""
        self._begin()
        self.waiter = asyncio.get_running_loop().create_future()
        if self.closed:  # closed before it was asked anything (a server that spoke first)
            self.waiter.set_exception(HttpError("broken", "server closed the connection before the request"))
        else:
            self.transport.write(request)
        return self.waiter

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class Pool:
    """Connections to one origin, at most `limit` in use at once; idle ones are kept for the next request."""

    def __init__(self, origin: Origin, limit: int, max_body: int):
        self.origin, self.limit, self.max_body = origin, max(1, limit), max_body
        self._idle: list[_Connection] = []
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ssl = ssl.create_default_context() if origin.scheme == "https" else None

    def _bind(self) -> asyncio.AbstractEventLoop:
        """The pool's state belongs to one event loop; a new loop (a new `asyncio.run`) starts afresh."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._idle = []
            self._slots = asyncio.Semaphore(self.limit)
            self._loop = loop
        return loop

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Connection:
        host = self.origin.host if self._ssl is not None else None
        try:
            _, conn = await loop.create_connection(lambda: _Connection(self.max_body), self.origin.host,
                                                   self.origin.port, ssl=self._ssl, server_hostname=host)
        except (OSError, ssl.SSLError) as exc:
            raise HttpError("connect", f"connection error ({type(exc).__name__})") from exc
        return conn

    async def exchange(self, request: bytes, timeout: float) -> Answer:
        """Send one request (the complete bytes) and read its answer, within `timeout` seconds all told."""
        loop = self._bind()
        async with self._slots:
            conn = None
            try:
                async with asyncio.timeout(timeout):
                    while self._idle and conn is None:
                        conn = self._idle.pop()
                        if conn.closed:
                            conn = None
                    conn = conn or await self._connect(loop)
                    answer = await conn.send(request)
            except TimeoutError:
                if conn is not None:
                    conn.close()
                raise HttpError("timeout", "request timed out") from None
            except BaseException:
                if conn is not None:
                    conn.close()
                raise
            if not conn.closed and self._loop is loop:
                self._idle.append(conn)
            else:
                conn.close()
            return answer

    def close(self) -> None:
        """Close the idle connections (one in use closes when its exchange ends)."""
        for conn in self._idle:
            conn.close()
        self._idle = []
        self._loop = None
