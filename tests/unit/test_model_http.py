"""The runner's transport (`evaluator.clients.Endpoint`, aiohttp) against servers that answer by hand: exactly the
headers it needs (nothing from the environment), redirects never followed, bounded heads and bodies, request lines
that cannot be broken out of, keep-alive reuse, TLS verified against a local certificate."""
from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess

import pytest

from evaluator import clients
from evaluator.clients import MAX_HEADERS, MAX_LINE_BYTES, ClientError, Endpoint, ModelClient, RetryPolicy, \
    StatusError, TransportError


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


def test_only_the_needed_headers_go_out_whatever_the_environment_says(tmp_path, monkeypatch):
    """Proxies, netrc credentials and OPENAI_* variables in the environment change nothing: the request goes
    straight to the server with exactly these headers, and three requests share one keep-alive connection."""
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login netrc-user password netrc-secret\n")
    for name, value in {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
                        "ALL_PROXY": "http://127.0.0.1:9", "NETRC": str(netrc), "OPENAI_API_KEY": "sk-env-secret",
                        "OPENAI_ORG_ID": "org-secret", "OPENAI_BASE_URL": "http://127.0.0.1:9"}.items():
        monkeypatch.setenv(name, value)
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n"

    async def go():
        async with Scripted([ok(b'{"a": 0}', b"Set-Cookie: track=1\r\n"), chunked, ok(b'{"a": 2}')]) as srv:
            ep = Endpoint(f"http://127.0.0.1:{srv.port}/v1", "k", 5, 4)
            answers = [await ep.post("/chat/completions", {"q": i}) for i in range(3)]
            await ep.close()
            return answers, srv
    answers, srv = run(go())
    assert answers == [{"a": 0}, {"a": 1}, {"a": 2}]
    assert srv.connections == 1
    for i, request in enumerate(srv.requests):
        head, body = request.split(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        assert lines[0] == b"POST /v1/chat/completions HTTP/1.1"
        assert sorted(lines[1:]) == sorted([b"Host: 127.0.0.1:%d" % srv.port, b"Authorization: Bearer k",
                                            b"Content-Type: application/json", b"Accept: application/json",
                                            b"User-Agent: tanaw", b"Content-Length: 7"])  # no cookie sent back
        assert body == b'{"q":%d}' % i


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_an_error_and_its_target_is_never_asked(status):
    async def go():
        async with Scripted([ok(b'{"stolen": true}')]) as target:
            moved = (b"HTTP/1.1 %d Moved\r\nLocation: http://127.0.0.1:%d/v1/chat/completions\r\n"
                     b"Content-Length: 0\r\n\r\n" % (status, target.port))
            async with Scripted([moved]) as srv:
                async with ModelClient(f"http://127.0.0.1:{srv.port}/v1", "m", api_key="secret",
                                       retry=RetryPolicy(max_retries=3, base_delay=0.01)) as client:
                    with pytest.raises(ClientError, match=rf"APIStatusError \(HTTP {status}\)"):
                        await client.chat([{"role": "user", "content": "hi"}])
                return len(srv.requests), target.requests
    asked, followed = run(go())
    assert asked == 1 and followed == []  # not retried, not followed: the key never left for the Location


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
    assert (err.status_code, err.retry_after, str(err), err.kind) == (429, "7", "slow down", "RateLimitError")
    assert b"Authorization: Bearer EMPTY" in request


@pytest.mark.parametrize("answer, kind, retryable", [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"x" * 10, "APIResponseValidationError", False),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + (b"400\r\n" + b"x" * 1024 + b"\r\n") * 2,
     "APIResponseValidationError", False),
    (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * 1500, "APIResponseValidationError", False),
    (b"HTTP/1.1 200 OK\r\nX-Pad: " + b"y" * (MAX_LINE_BYTES + 10) + b"\r\n\r\n", "APIResponseValidationError", False),
    (b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * (MAX_HEADERS + 1) + b"\r\n", "APIResponseValidationError", False),
    (b"HTTP/9.9 abc\r\n\r\n", "APIResponseValidationError", False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", "APIConnectionError", True),  # cut short
])
def test_hostile_answers_are_refused_with_the_sdks_error_names(answer, kind, retryable, monkeypatch):
    monkeypatch.setattr(clients, "MAX_RESPONSE_BYTES", 1000)

    async def cut_short(writer):
        writer.write(answer)
        await writer.drain()
        writer.close()

    async def go():
        async with Scripted([cut_short]) as srv:
            ep = Endpoint(f"http://127.0.0.1:{srv.port}/v1", "k", 5, 1)
            with pytest.raises(TransportError) as err:
                await ep.post("/x", {})
            await ep.close()
            return err.value
    err = run(go())
    assert (err.kind, err.retryable) == (kind, retryable)


def test_a_hung_server_times_out():
    async def hang(writer):
        await asyncio.sleep(5)

    async def go():
        async with Scripted([hang]) as srv:
            ep = Endpoint(f"http://127.0.0.1:{srv.port}", "k", 0.3, 1)
            with pytest.raises(TransportError) as err:
                await ep.post("/x", {})
            await ep.close()
            return err.value
    err = run(go())
    assert (err.kind, err.retryable) == ("APITimeoutError", True)


@pytest.mark.parametrize("url", ["http://h/v1\r\nX-Evil: 1", "http://h/v 1", "http://user:pw@h/v1", "http://h/v1?a=b",
                                 "http://h/v1#f", "ftp://h/", "http:///v1", "http://h/ä", "http://h:99999/v1"])
def test_base_urls_that_could_break_out_of_a_request_are_refused(url):
    with pytest.raises(ValueError):
        Endpoint(url, "k", 5, 1)


def test_keys_with_control_characters_are_refused():
    for key in ("key\r\nX-Evil: 1", "key\n", "k\x00", "k\x7f"):
        with pytest.raises(ValueError, match="control"):
            Endpoint("http://h/v1", key, 5, 1)
    assert Endpoint("https://api.example.org/v1/", "k", 5, 1).base_url == "https://api.example.org/v1"


def test_a_client_outlives_its_event_loop():
    async def ask(srv, ep):
        return await ep.post("/x", {})

    async def both():
        async with Scripted([ok(b'{"n": 1}'), ok(b'{"n": 2}')]) as srv:
            ep = Endpoint(f"http://127.0.0.1:{srv.port}", "k", 5, 1)
            first = await ask(srv, ep)
            await ep.close()
            second = await ask(srv, ep)  # closed, then asked again: a new session
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

    async def ask(trusted: bool, host: str = "localhost", addresses=None, scheme: str = "https"):
        if trusted:
            monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        else:
            monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        async with Scripted([ok(b'{"tls": true}')], ssl_context=server_ctx) as srv:
            ep = Endpoint(f"{scheme}://{host}:{srv.port}/v1", "k", 5, 1, addresses)
            try:
                return await ep.post("/x", {})
            finally:
                await ep.close()
    with pytest.raises(TransportError, match="connection error"):
        run(ask(trusted=False))  # a certificate nobody vouches for
    with pytest.raises(TransportError, match="connection error"):
        run(ask(trusted=False, scheme="HTTPS"))  # however the scheme is spelled
    with pytest.raises(TransportError, match="connection error"):
        run(ask(trusted=True, host="127.0.0.1"))  # trusted, but not for this name
    assert run(ask(trusted=True)) == {"tls": True}
    resolved = []

    def addresses(host, port):  # the policy's seam: the connection goes to this address, TLS still checks the name
        resolved.append((host, port))
        return ["127.0.0.1"]
    assert run(ask(trusted=True, addresses=addresses)) == {"tls": True} and resolved[0][0] == "localhost"
