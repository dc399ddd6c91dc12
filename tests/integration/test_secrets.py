"""No server secret leaves for a user-chosen endpoint (docs/security.md, "Secrets"): a stand-in endpoint records every
header it receives while the worker runs queued requests with the Space's HF_TOKEN, an admin token, the operator's
OpenAI key and OpenAI's header variables in its environment."""
from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from services import worker
from store import db

SECRETS = {"HF_TOKEN": "hf_SPACE_SECRET_1", "HUGGING_FACE_HUB_TOKEN": "hf_SPACE_SECRET_2",
           "TANAW_ADMIN_TOKEN": "adm_SECRET_3", "OPENAI_API_KEY": "sk-OPERATOR_SECRET_4",
           "OPENAI_CUSTOM_HEADERS": "X-Extra: SECRET_HEADER_5", "OPENAI_ORG_ID": "org-SECRET_6"}


class Recorder:
    """An OpenAI-compatible chat endpoint that records each request's headers (or redirects every request)."""

    def __init__(self, redirect_to: str | None = None):
        self.headers: list[dict[str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _answer(self):
                recorder.headers.append({k.lower(): v for k, v in self.headers.items()})
                self.rfile.read(int(self.headers.get("content-length") or 0))
                if redirect_to:
                    self.send_response(307)
                    self.send_header("Location", redirect_to + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": "Positive"}}],
                                   "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            do_POST = do_GET = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def leaked(self) -> list[str]:
        """Secret values found in any recorded header."""
        text = json.dumps(self.headers)
        return [name for name, value in SECRETS.items() if value in text or value.split(": ")[-1] in text]


@pytest.fixture
def env(monkeypatch):
    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    monkeypatch.setenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", "1")  # the stand-ins listen on 127.0.0.1
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    return monkeypatch


def _run_queue(path, *requests) -> list[tuple]:
    con = db.connect(path)
    for i, (url, key) in enumerate(requests):  # raw rows: the page's checks are bypassed on purpose
        con.execute("INSERT INTO submissions (request_id, model_id, backend, base_url, api_key_env, tasks, langs, "
                    "prompt_langs, item_limit, created_at) VALUES (?, ?, 'openai', ?, ?, 'sentiment', 'id', 'en', 1, "
                    "now() + to_seconds(?))", [f"r{i}", f"m{i}", url, key, i])
    con.close()
    parser = argparse.ArgumentParser()
    worker.add(parser.add_subparsers())
    assert worker.cmd_worker(parser.parse_args(["worker", "--db", str(path), "--exit-when-empty", "--name", "w"])) == 0
    con = db.connect(path)
    rows = con.execute("SELECT request_id, status, error, n_results FROM submissions ORDER BY request_id").fetchall()
    con.close()
    return rows


def test_hf_token_named_by_a_request_never_arrives(tmp_path, env):
    """The attack: a request whose key variable is HF_TOKEN (or any unlisted or TANAW_ variable)."""
    endpoint = Recorder()
    try:
        rows = _run_queue(tmp_path / "s.duckdb", (endpoint.url, "HF_TOKEN"), (endpoint.url, "TANAW_ADMIN_TOKEN"),
                          (endpoint.url, "OPENAI_API_KEY"), (endpoint.url, None))
    finally:
        endpoint.close()
    assert [r[1] for r in rows] == ["FAILED", "FAILED", "FAILED", "FINISHED"], rows
    assert all(r[2].startswith("refused: api_key_env: ") for r in rows[:3])
    assert len(endpoint.headers) == 1  # only the keyless request was sent
    assert endpoint.headers[0]["authorization"] == "Bearer EMPTY"
    assert endpoint.leaked() == [] and "x-extra" not in endpoint.headers[0]
    assert "openai-organization" not in endpoint.headers[0]


def test_an_allow_listed_key_reaches_only_its_own_endpoint(tmp_path, env):
    mine, other = Recorder(), Recorder()
    env.setenv("TANAW_ENDPOINT_KEYS", f"openai:OPENAI_API_KEY, mine:MY_KEY={mine.url}")
    env.setenv("MY_KEY", "sk-mine-123")
    try:
        rows = _run_queue(tmp_path / "s.duckdb", (mine.url, "MY_KEY"), (other.url, "MY_KEY"),
                          (other.url, "OPENAI_API_KEY"))
    finally:
        mine.close()
        other.close()
    assert [r[1] for r in rows] == ["FINISHED", "FAILED", "FAILED"], rows
    assert [h["authorization"] for h in mine.headers] == ["Bearer sk-mine-123"]
    assert other.headers == [] and mine.leaked() == []


def test_redirects_are_not_followed(tmp_path, env):
    """An endpoint answering 307 to another host gets nothing more sent there (key included)."""
    target = Recorder()
    bouncer = Recorder(redirect_to=target.url.removesuffix("/v1"))
    env.setenv("TANAW_ENDPOINT_KEYS", f"mine:MY_KEY={bouncer.url}")
    env.setenv("MY_KEY", "sk-mine-123")
    try:
        rows = _run_queue(tmp_path / "s.duckdb", (bouncer.url, "MY_KEY"))
    finally:
        bouncer.close()
        target.close()
    assert rows[0][1] == "FAILED" and rows[0][2] == worker.RUN_FAILED  # generic: no status code, no port
    assert bouncer.headers and target.headers == []


def test_run_environment_holds_only_the_allow_listed_key():
    args = argparse.Namespace(data_dir=None)
    sub = argparse.Namespace(api_key_env="MY_KEY")
    env = worker.run_env(sub, args, {**SECRETS, "MY_KEY": "k", "PATH": "/bin", "AWS_SECRET_ACCESS_KEY": "a"})
    assert env == {"PATH": "/bin", worker.KEY_VAR: "k"}
