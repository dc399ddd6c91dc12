"""The runner's HTTP/1.1 transport (`evaluator.http1`, under `evaluator.openai_http.Endpoint`) against servers that
answer by hand: framing (length, chunked, until close), keep-alive reuse, hostile answers (too large, malformed,
unsolicited bytes), request heads that cannot be broken out of, TLS verified against a local certificate."""
from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess

import pytest

from evaluator.http1 import MAX_HEAD_BYTES, HttpError, Origin, Pool
from evaluator.openai_http import Endpoint, StatusError, TransportError


class Scripted:
    """A TCP server that reads one request head + body per turn and writes the next scripted answer (bytes, or a
    callable (writer) -> awaitable for odd behaviour); records every request and connection it saw."""

    def __init__(self, answers, ssl_context=None):
        self.answers, self.ssl_context = list(answers), ssl_context
        self.requests: list[bytes] = []
        self.connections = 0

    async def _handle(self, reader, writer):
        self.connections += 1
        try:
            while self.answers:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                self.requests.append(head + await reader.readexactly(length))
                answer = self.answers.pop(0)
                if callable(answer):
                    await answer(writer)
                    continue
                writer.write(answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def __aenter__(self):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self.ssl_context)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc):
        self.server.close()


def ok(body: bytes, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s" % (
        len(body), extra, body)


def run(coro):
    return asyncio.run(coro)


def test_length_chunked_and_until_close_answers_and_keep_alive_reuse():
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n"
    until_close = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"a\": 3}"

    async def go():
        async with Scripted([ok(b'{"a": 0}'), chunked, until_close]) as srv:
            ep = Endpoint(f"http://127.0.0.1:{srv.port}/v1", "k", 5, 4)
            answers = [await ep.post("/chat/completions", {"q": i}) for i in range(3)]
            await ep.close()
            return answers, srv
    answers, srv = run(go())
    assert answers == [{"a": 0}, {"a": 1}, {"a": 3}]
    assert srv.connections == 1  # one keep-alive connection carried all three
    head = srv.requests[0].split(b"\r\n\r\n")[0].split(b"\r\n")
    assert head[0] == b"POST /v1/chat/completions HTTP/1.1"
    assert {b"Host: 127.0.0.1:%d" % srv.port, b"Authorization: Bearer k", b"Content-Type: application/json",
            b"Content-Length: 7"} <= set(head)
    assert srv.requests[0].endswith(b'\r\n\r\n{"q":0}')


def test_a_connection_the_server_closed_or_answered_with_close_is_not_reused():
    async def go():
        async with Scripted([ok(b"{}", b"Connection: close\r\n"), ok(b"{}"), ok(b"{}")]) as srv:
            pool = Pool(Origin.parse(f"http://127.0.0.1:{srv.port}"), 2, 1000)
            for _ in range(2):
                assert (await pool.exchange(b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 5)).status == 200
            idle = pool._idle[0]
            idle.transport.close()  # as a server's idle timeout would
            await asyncio.sleep(0.05)
            assert (await pool.exchange(b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 5)).body == b"{}"
            pool.close()
            return srv.connections
    assert run(go()) == 3


def test_errors_statuses_and_retry_after_reach_the_caller():
    body = b'{"error": {"message": "slow down"}}'
    answer = b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)

    async def go():
        async with Scripted([answer]) as srv:
            ep = Endpoint(f"http://127.0.0.1:{srv.port}/v1", None, 5, 1)
            with pytest.raises(StatusError) as err:
                await ep.post("/chat/completions", {})
            await ep.close()
            return err.value, srv.requests[0]
    err, request = run(go())
    assert (err.status_code, err.retry_after, str(err)) == (429, "7", "slow down")
    assert b"Authorization: Bearer EMPTY" in request


@pytest.mark.parametrize("answer, kind, retryable", [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"x" * 10, "APIResponseValidationError", False),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"400\r\n" + b"x" * 1024 + b"\r\n", "APIResponseValidationError", False),
    (b"HTTP/1.1 200 OK\r\nX-Pad: " + b"y" * (MAX_HEAD_BYTES + 10), "APIResponseValidationError", False),
    (b"HTTP/9.9 abc\r\n\r\n", "APIConnectionError", True),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", "APIConnectionError", True),  # cut short
])
def test_hostile_answers_are_refused_with_the_sdks_error_names(answer, kind, retryable, monkeypatch):
    import evaluator.openai_http as oh

    monkeypatch.setattr(oh, "MAX_RESPONSE_BYTES", 1000)

    async def cut_short(writer):
        writer.write(answer)
        await writer.drain()
        writer.close()

    async def go():
        async with Scripted([cut_short]) as srv:
            ep = oh.Endpoint(f"http://127.0.0.1:{srv.port}/v1", "k", 5, 1)
            with pytest.raises(TransportError) as err:
                await ep.post("/x", {})
            await ep.close()
            return err.value
    err = run(go())
    assert (err.kind, err.retryable) == (kind, retryable)


def test_unsolicited_bytes_and_a_hung_server_close_the_connection():
    async def extra(writer):
        writer.write(ok(b"{}") + b"HTTP/1.1 200 OK\r\n")  # more than was asked for
        await writer.drain()

    async def hang(writer):
        await asyncio.sleep(5)

    async def go():
        async with Scripted([extra, hang, ok(b"{}")]) as srv:
            pool = Pool(Origin.parse(f"http://127.0.0.1:{srv.port}"), 1, 1000)
            request = b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"
            assert (await pool.exchange(request, 5)).status == 200
            assert not pool._idle  # out of step: never reused
            with pytest.raises(HttpError) as err:
                await pool.exchange(request, 0.2)
            assert err.value.kind == "timeout" and not pool._idle
            pool.close()
            return srv.connections
    assert run(go()) == 2


def test_a_server_that_speaks_first_fails_the_request_at_once():
    async def go():
        async def banner(reader, writer):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
            await writer.drain()
            await asyncio.sleep(1)
            writer.close()

        server = await asyncio.start_server(banner, "127.0.0.1", 0)
        pool = Pool(Origin.parse(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"), 1, 1000)
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(HttpError) as err:
            conn = await pool._connect(loop)
            await asyncio.sleep(0.05)  # the banner arrives before anything is asked
            await conn.send(b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        server.close()
        return err.value.kind, loop.time() - began
    kind, took = run(go())
    assert kind == "broken" and took < 0.5


def test_request_heads_cannot_be_broken_out_of():
    for bad in ("http://h/v1\r\nX-Evil: 1", "http://h/v 1", "http://user:pw@h/v1", "http://h/v1?a=b", "ftp://h/",
                "http:///v1", "http://h/ä"):
        with pytest.raises(ValueError):
            Origin.parse(bad)
    with pytest.raises(ValueError, match="control"):
        Endpoint("http://h/v1", "key\r\nX-Evil: 1", 5, 1)
    assert Origin.parse("https://api.example.org/v1/").host_header == "api.example.org"
    assert Origin.parse("http://[::1]:8000/v1").host_header == "[::1]:8000"
    assert Origin.parse("http://h:80").base_path == ""


def test_a_pool_outlives_its_event_loop():
    async def both():
        async with Scripted([ok(b'{"n": 1}'), ok(b'{"n": 2}')]) as srv:
            ep = Endpoint(f"http://127.0.0.1:{srv.port}", "k", 5, 1)
            first = await ep.post("/x", {})
            ep._pool._loop = object()  # as if the next call came from a new asyncio.run
            second = await ep.post("/x", {})
            await ep.close()
            return first, second, srv.connections
    assert run(both()) == ({"n": 1}, {"n": 2}, 2)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a test certificate")
def test_tls_is_verified_against_the_trusted_certificates(tmp_path, monkeypatch):
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)

    async def ask(trusted: bool):
        if trusted:
            monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        else:
            monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        async with Scripted([ok(b'{"tls": true}')], ssl_context=server_ctx) as srv:
            ep = Endpoint(f"https://localhost:{srv.port}/v1", "k", 5, 1)
            try:
                return await ep.post("/x", {})
            finally:
                await ep.close()
    with pytest.raises(TransportError, match="connection error"):
        run(ask(trusted=False))  # a certificate nobody vouches for
    assert run(ask(trusted=True)) == {"tls": True}
