"""The endpoint policy (docs/security.md, "Endpoints" and "Secrets"): every SSRF spelling refused by the one function
`evaluator.endpoints.check`, then through each of its callers: the queue page (AppTest), `python -m evaluator queue
add` (exit 2, one line), the worker (FAILED with a generic message, nothing sent) and the client (every request)."""
from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator import endpoints
from evaluator.clients import ClientError, ModelClient, RetryPolicy
from evaluator.endpoints import EndpointRefused
from store import db, queue

REPO = Path(__file__).resolve().parents[2]

SSRF_URLS = [
    "http://127.0.0.1:8000/v1", "http://localhost/v1", "http://localhost./v1", "http://127.0.0.1./v1",
    "http://2130706433/v1", "http://127.1/v1", "http://0x7f000001/v1", "http://0177.0.0.1/v1",
    "http://0x7f.0.0.1/v1", "http://017700000001/v1", "http://[::1]:8000/v1", "http://[::ffff:127.0.0.1]/v1",
    "http://[::ffff:7f00:1]/v1", "http://[::ffff:169.254.169.254]/latest", "http://169.254.169.254/latest",
    "http://10.1.2.3/v1", "http://192.168.0.10/v1", "http://172.16.5.4/v1", "http://100.64.0.1/v1",
    "http://0.0.0.0/v1", "http://0/v1", "http://[::]/v1", "http://224.0.0.1/v1", "http://240.0.0.1/v1",
    "http://255.255.255.255/v1", "http://[fe80::1]/v1", "http://[fc00::1]/v1", "http://[64:ff9b::7f00:1]/v1",
    "http://[2002:7f00:1::]/v1", "https://ok.example/v1,http://169.254.169.254/v1",
    "http://8.8.8.8/v1, http://127.1/v1", "http://rebind.example/v1", "http://metadata.google.internal/",
    "http://user:pw@8.8.8.8/v1", "file:///etc/passwd", "gopher://8.8.8.8/", "http:///v1",
]
"""Every spelling of a local, private or otherwise non-public endpoint the issue lists, and more."""

PUBLIC_URLS = ["http://8.8.8.8/v1", "https://ok.example/v1", "https://ok.example/v1,https://ok2.example/v1",
               "http://[2606:4700:4700::1111]/v1"]

FAKE_DNS = {"ok.example": ["93.184.215.14"], "ok2.example": ["93.184.215.15"], "rebind.example": ["127.0.0.1"],
            "mixed.example": ["93.184.215.14", "10.0.0.1"], "api.openai.com": ["162.159.140.245"]}


def fake_resolve(host: str, port: int) -> list[str]:
    if host == "localhost":
        return ["127.0.0.1", "::1"]
    if host not in FAKE_DNS:
        raise OSError(f"unknown host {host}")
    return FAKE_DNS[host]


@pytest.fixture(autouse=True)
def _no_real_dns(monkeypatch):
    monkeypatch.setattr(endpoints, "RESOLVE", fake_resolve)
    monkeypatch.delenv(endpoints.PRIVATE_ENV, raising=False)
    monkeypatch.delenv(endpoints.KEYS_ENV, raising=False)


@pytest.mark.parametrize("url", SSRF_URLS)
def test_every_ssrf_spelling_is_refused_with_a_generic_message(url, caplog):
    with pytest.raises(EndpointRefused) as err:
        endpoints.check(url)
    public = str(err.value)
    assert public.startswith("base_url: ")
    assert "127" not in public and "169.254" not in public and "Errno" not in public  # nothing to map a network
    assert err.value.detail and any(r.name == "tanaw.endpoints" for r in caplog.records)  # operator's log


@pytest.mark.parametrize("url", PUBLIC_URLS)
def test_public_endpoints_pass(url):
    assert endpoints.check(url) == [endpoints.normalise_url(u) for u in endpoints.split_urls(url)]


@pytest.mark.parametrize("url", ["https://api.openai.com/v1?redirect=http://10.0.0.1", "https://api.openai.com/v1#x",
                                 "https://api.openai.com/v1\r\nX-Evil: 1", "https://api.openai.com/v 1"])
def test_urls_the_transport_could_not_send_as_they_are_are_refused_at_submission(url):
    with pytest.raises(EndpointRefused, match="query strings, fragments"):
        endpoints.check(url)


def test_a_name_with_any_private_address_is_refused():
    with pytest.raises(EndpointRefused):
        endpoints.check("https://mixed.example/v1")


def test_operator_escape_hatch_allows_private_but_never_lifts_key_rules():
    env = {endpoints.PRIVATE_ENV: "1"}
    assert endpoints.check("http://127.0.0.1:8000/v1", env=env) == ["http://127.0.0.1:8000/v1"]
    with pytest.raises(EndpointRefused, match="^api_key_env"):
        endpoints.check("http://127.0.0.1:8000/v1", "HF_TOKEN", env={**env, endpoints.KEYS_ENV: "x:HF_TOKEN="
                                                                    "http://127.0.0.1:8000/v1"})
    assert not endpoints.private_allowed({endpoints.PRIVATE_ENV: "0"})
    with pytest.raises(EndpointRefused):  # the hatch is for local use: ignored on a public Space
        endpoints.check("http://127.0.0.1:8000/v1", env={**env, "SPACE_ID": "tanaw/leaderboard"})


@pytest.mark.parametrize("var, url, env, ok", [
    ("HF_TOKEN", "https://ok.example/v1", {}, False),
    ("HF_TOKEN", "https://ok.example/v1", {endpoints.KEYS_ENV: "custom:HF_TOKEN=https://ok.example/v1"}, False),
    ("TANAW_ADMIN_TOKEN", "https://ok.example/v1", {endpoints.KEYS_ENV: "c:TANAW_ADMIN_TOKEN=https://ok.example/v1"},
     False),
    ("OPENAI_API_KEY", "https://ok.example/v1", {}, False),  # not listed
    ("OPENAI_API_KEY", "https://ok.example/v1", {endpoints.KEYS_ENV: "openai:OPENAI_API_KEY"}, False),  # wrong host
    ("OPENAI_API_KEY", "https://api.openai.com/v1/", {endpoints.KEYS_ENV: "openai:OPENAI_API_KEY"}, True),
    ("OPENAI_API_KEY", "https://api.openai.com/v1,https://ok.example/v1",
     {endpoints.KEYS_ENV: "openai:OPENAI_API_KEY"}, False),  # the key would go to the second URL too
    ("MY_KEY", "https://ok.example/v1", {endpoints.KEYS_ENV: "openai:OPENAI_API_KEY, mine:MY_KEY=https://ok.example/v1"},
     True),
    ("sk-live-123", "https://ok.example/v1", {}, False),
])
def test_keys_only_from_the_allow_list_and_only_to_their_endpoint(var, url, env, ok):
    if ok:
        endpoints.check(url, var, env=env)
    else:
        with pytest.raises(EndpointRefused, match="^api_key_env: "):
            endpoints.check(url, var, env=env)


# ---- through the queue page (AppTest) ----------------------------------------------------------------------------

def _page(monkeypatch, path, **env):
    from tests.helpers.fixtures_store import pages_on
    from streamlit.testing.v1 import AppTest

    for k in ("SPACE_ID", "TANAW_SUBMIT_TOKEN"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    ctx = pages_on(path)
    ctx.__enter__()
    at = AppTest.from_file(str(REPO / "pages" / "queue.py"), default_timeout=60).run()
    return at, ctx


def _form_inputs(at) -> dict:
    return {t.label: t for t in at.text_input}


def test_queue_page_refuses_every_ssrf_spelling(tmp_path, monkeypatch):
    path = tmp_path / "q.duckdb"
    db.connect(path).close()
    at, ctx = _page(monkeypatch, path)
    try:
        for url in SSRF_URLS + ["https://ok.example/v1"]:
            inputs = _form_inputs(at)
            inputs["Model name (as shown on the leaderboard)"].set_value(f"m-{len(url)}")
            inputs["Endpoint base URL"].set_value(url)
            at.button[0].click()
            at.run()
            assert not at.exception, url
            errors = [e.value.replace("\\", "").replace("\u2060", "") for e in at.error]  # shown Markdown-escaped
            if url == "https://ok.example/v1":
                assert not errors and any("Queued as request" in s.value for s in at.success)
            else:
                assert errors and errors[0].startswith("Not queued: base"), (url, errors)
                assert "Errno" not in errors[0] and "127" not in errors[0]
    finally:
        ctx.__exit__(None, None, None)
    con = db.connect(path)
    assert [s.base_url for s in queue.listing(con)] == ["https://ok.example/v1"]
    con.close()


def test_queue_page_is_closed_on_a_space_without_a_token(tmp_path, monkeypatch):
    path = tmp_path / "q.duckdb"
    db.connect(path).close()
    at, ctx = _page(monkeypatch, path, SPACE_ID="tanaw/leaderboard")
    try:
        assert not at.exception
        assert any("Requests are closed" in i.value for i in at.info)
        assert not at.text_input  # no form at all
    finally:
        ctx.__exit__(None, None, None)


def test_queue_page_needs_its_token_on_a_space(tmp_path, monkeypatch):
    path = tmp_path / "q.duckdb"
    db.connect(path).close()
    at, ctx = _page(monkeypatch, path, SPACE_ID="tanaw/leaderboard", TANAW_SUBMIT_TOKEN="queue-secret")
    try:
        inputs = _form_inputs(at)
        inputs["Model name (as shown on the leaderboard)"].set_value("m")
        inputs["Endpoint base URL"].set_value("https://ok.example/v1")
        inputs["Submission token"].set_value("wrong")
        at.button[0].click()
        at.run()
        assert any("valid submission token" in e.value for e in at.error)
        _form_inputs(at)["Submission token"].set_value("queue-secret")
        at.button[0].click()
        at.run()
        assert any("Queued as request" in s.value for s in at.success)
    finally:
        ctx.__exit__(None, None, None)


# ---- through `python -m evaluator queue add` ---------------------------------------------------------------------

def _cli(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in (endpoints.PRIVATE_ENV, endpoints.KEYS_ENV)}
    return subprocess.run([sys.executable, "-m", "evaluator", "queue", "add", *argv], capture_output=True,
                          text=True, cwd=REPO, env={**clean, **(env or {})}, timeout=120)


def test_queue_add_refuses_every_literal_ssrf_spelling_with_exit_2(tmp_path):
    """One subprocess per spelling would take minutes; the parser runs in-process, the exit code is checked in a
    subprocess for a few spellings below."""
    from cli.main import main

    path = tmp_path / "cli.duckdb"
    for url in SSRF_URLS:
        assert main(["queue", "add", "--model", "m", "--base-url", url, "--db", str(path)]) == 2, url
    assert main(["queue", "add", "--model", "m", "--base-url", "https://ok.example/v1", "--db", str(path)]) == 0
    con = db.connect(path)
    assert [s.base_url for s in queue.listing(con)] == ["https://ok.example/v1"]
    con.close()


@pytest.mark.parametrize("argv, message", [
    (["--base-url", "http://2130706433/v1"], "error: not queued: base_url: this endpoint is not accepted"),
    (["--base-url", "http://8.8.8.8/v1,http://0x7f000001/v1"], "error: not queued: base_url: this endpoint"),
    (["--base-url", "http://8.8.8.8/v1", "--api-key-env", "HF_TOKEN"], "error: not queued: api_key_env: "),
])
def test_queue_add_exits_2_with_one_line(tmp_path, argv, message):
    res = _cli("--model", "m", *argv, "--db", str(tmp_path / "c.duckdb"), env={"HF_TOKEN": "hf_secret"})
    assert res.returncode == 2, res.stderr
    lines = [line for line in res.stderr.splitlines() if not line.startswith("endpoint refused")]
    assert len(lines) == 1 and lines[0].startswith(message), res.stderr
    assert "hf_secret" not in res.stderr + res.stdout


# ---- the client: policy before every request, no redirects ---------------------------------------------------------

def test_client_connects_only_to_addresses_the_policy_checked_and_never_retries_a_refusal():
    """With the policy (`addresses`), every new connection's host is resolved and checked by it: the stand-in on
    loopback, by name or by literal, is refused before anything is sent, and a refusal is never retried."""
    import functools

    from tests.helpers.standin_server import StandinServer

    policy = functools.partial(endpoints.connect_addresses, allow_private=False)

    async def ask(url: str, addresses) -> str:
        async with ModelClient(url, "m", addresses=addresses,
                               retry=RetryPolicy(max_retries=3, base_delay=0.01)) as c:
            return (await c.chat([{"role": "user", "content": "hi"}])).text

    with StandinServer() as server:
        assert asyncio.run(ask(server.base_url, None)) in ("A", "B")  # operator's own run: no policy
        by_name = server.base_url.replace("127.0.0.1", "localhost")
        assert asyncio.run(ask(by_name, functools.partial(endpoints.connect_addresses, allow_private=True))) in "AB"
        before = server.requests
        with pytest.raises(ClientError, match="refused by the endpoint policy"):
            asyncio.run(ask(by_name, policy))
        with pytest.raises(EndpointRefused):  # a literal needs no resolving: refused when the client is built
            asyncio.run(ask(server.base_url, policy))
        assert server.requests == before  # nothing sent, and no retries


def test_worker_refuses_every_ssrf_spelling_stored_behind_the_pages_back(tmp_path, monkeypatch):
    """A request can reach the store without the page (a results-repo co-writer): the worker checks again, stores a
    generic FAILED message and sends nothing, for every spelling and for the stand-in's own address spelled four ways."""
    from services import worker
    from tests.helpers.standin_server import StandinServer

    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    path = tmp_path / "w.duckdb"
    with StandinServer() as server:
        con = db.connect(path)
        urls = SSRF_URLS + [server.base_url, server.base_url.replace("127.0.0.1", "2130706433"),
                            server.base_url.replace("127.0.0.1", "127.1"), f"https://ok.example/v1,{server.base_url}"]
        for i, url in enumerate(urls):  # raw rows, as a tampered results repo would hold them
            con.execute("INSERT INTO submissions (request_id, model_id, backend, base_url, tasks, langs, "
                        "prompt_langs, item_limit) VALUES (?, ?, 'openai', ?, 'sentiment', 'id', 'en', 1)",
                        [f"r{i:03d}", f"m{i}", url])
        con.close()
        parser = argparse.ArgumentParser()
        worker.add(parser.add_subparsers())
        args = parser.parse_args(["worker", "--db", str(path), "--exit-when-empty", "--name", "w"])
        assert worker.cmd_worker(args) == 0
        assert server.requests == 0
    con = db.connect(path)
    rows = con.execute("SELECT base_url, status, error FROM submissions ORDER BY request_id").fetchall()
    con.close()
    assert len(rows) == len(urls)
    for url, status, error in rows:
        assert status == "FAILED" and error.startswith("refused: base_url: "), (url, error)
        assert str(server.port) not in error and "127" not in error and "Errno" not in error
