"""The worker against hostile names and its own secrets, end to end (`cmd_worker`, its child run, --serve-cmd):
a name that rebinds to loopback after its checks reaches nothing, a model server started for a Hub request sees
none of the worker's secrets, and a restart without --name takes back a request its killed predecessor left
RUNNING."""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from services import worker
from store import db, queue
from tests.helpers import rebinding
from tests.helpers.standin_server import StandinServer
from tests.integration.test_worker import _queue, _status

REPO = Path(__file__).resolve().parents[2]
STANDIN = REPO / "tests" / "helpers" / "standin_server.py"
REBINDING_HOST = "rebind.tanaw.test"
PUBLIC = "192.0.0.9"
"""A public address (IANA's PCP anycast) with no service on the stand-in's port: connecting to it fails."""


def _args(db_path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    worker.add(parser.add_subparsers())
    return parser.parse_args(["worker", "--db", str(db_path), "--once", "-c", "4", "--serve-timeout", "30", *extra])


@pytest.mark.parametrize("on_space", [False, True], ids=["self-hosted", "space-with-private-flag"])
def test_a_name_rebinding_to_loopback_after_its_checks_reaches_nothing(tmp_path, monkeypatch, on_space):
    """The name answers a public address to the first four lookups (the worker's admission, the run's own check,
    the first connections), then 127.0.0.1, where the stand-in listens: no request reaches it and the request fails
    with the generic message. On a Space, TANAW_ALLOW_PRIVATE_ENDPOINTS=1 in the worker's environment changes
    nothing: SPACE_ID goes to the run, whose policy is the Space's."""
    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", raising=False)
    if on_space:
        monkeypatch.setenv("SPACE_ID", "tanaw/leaderboard")
        monkeypatch.setenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", "1")
    counter = tmp_path / "lookups"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(rebinding.sitecustomize_source(REBINDING_HOST, PUBLIC, 4, counter))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.setattr(socket, "getaddrinfo", socket.getaddrinfo)  # restored after the test
    path = tmp_path / "w.duckdb"
    with StandinServer() as server:
        rebinding.install(REBINDING_HOST, PUBLIC, 4, str(counter))  # the worker's own lookups: the same name server
        rid = _queue(path, model_id="rebinding-model", backend="openai",
                     base_url=f"http://{REBINDING_HOST}:{server.port}/v1")
        assert worker.cmd_worker(_args(path, "--name", "w", "--job-timeout", "120")) == 0
        assert server.requests == 0
    failed = _status(path, rid)
    assert failed.status == "FAILED" and failed.error == worker.RUN_FAILED
    assert rebinding.lookups(counter) > 4  # the run looked the name up again and was refused, not skipped


def test_the_model_server_for_a_hub_request_sees_none_of_the_workers_secrets(tmp_path, monkeypatch):
    secrets = {"HF_TOKEN": "hf_serve_secret", "TANAW_QUEUE_TOKEN": "queue-secret", "OPENAI_API_KEY": "sk-secret",
               "MY_PROVIDER_KEY": "provider-secret", "AWS_SECRET_ACCESS_KEY": "aws-secret",
               "TANAW_ENDPOINT_KEYS": "custom:MY_PROVIDER_KEY=https://llm.example/v1"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    dump = tmp_path / "serve-env.json"
    serve = tmp_path / "serve.py"
    serve.write_text("import json, os, runpy, sys\n"
                     f"open({str(dump)!r}, 'w').write(json.dumps(dict(os.environ)))\n"
                     f"sys.argv = [{str(STANDIN)!r}, '--port', sys.argv[1]]\n"
                     f"runpy.run_path({str(STANDIN)!r}, run_name='__main__')\n")
    path = tmp_path / "w.duckdb"
    rid = _queue(path, model_id="served-model", backend="hub", hub_model="org/tiny", revision="main")
    assert worker.cmd_worker(_args(path, "--name", "w", "--serve-cmd", f"{sys.executable} {serve} {{port}}")) == 0
    done = _status(path, rid)
    assert done.status == "FINISHED" and done.n_results == 2, done.error
    env = json.loads(dump.read_text())
    assert set(env) <= set(worker.CHILD_ENV) and env["PATH"] == os.environ["PATH"]
    leaked = [name for name, value in secrets.items() if any(value in v for v in env.values())]
    assert leaked == []


def test_a_restart_without_name_requeues_what_a_killed_worker_left_running(tmp_path, monkeypatch):
    """A worker (default name HOST-PID) claims a Hub request and is killed while its model server starts; a
    second request is RUNNING for a live default-named worker of this host. A worker restarted without --name puts
    the first back to PENDING and runs it, and leaves the live worker's claim alone."""
    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    path = tmp_path / "w.duckdb"
    rid = _queue(path, model_id="orphaned-model", backend="hub", hub_model="org/tiny", revision="main")
    pidfile = tmp_path / "server.pid"
    hang = tmp_path / "hang.py"
    hang.write_text("import os, sys, time\nopen(sys.argv[1], 'w').write(str(os.getpid()))\ntime.sleep(600)\n")
    env = {k: v for k, v in os.environ.items() if k != "TANAW_RESULTS_REPO"}
    first = subprocess.Popen([sys.executable, "-m", "evaluator", "worker", "--db", str(path), "--once",
                              "--serve-cmd", f"{sys.executable} {hang} {pidfile}", "--serve-timeout", "600"],
                             cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        deadline = time.monotonic() + 120
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            assert first.poll() is None, "the first worker exited before starting its model server"
            time.sleep(0.2)
        assert _status(path, rid).status == "RUNNING"
        first.kill()
        first.wait()
        os.kill(int(pidfile.read_text()), signal.SIGKILL)
        host = socket.gethostname()
        assert _status(path, rid).worker == f"{host}-{first.pid}"
        other = _queue(path, model_id="live-model", backend="hub", hub_model="org/other", revision="main")
        con = db.connect(path)
        assert queue.claim_next(con, f"{host}-{live.pid}").request_id == other
        con.close()

        serve = f"{sys.executable} {STANDIN} --port {{port}}"
        assert worker.cmd_worker(_args(path, "--serve-cmd", serve)) == 0  # no --name: HOST-<this pid>
    finally:
        for proc in (first, live):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    done = _status(path, rid)
    assert done.status == "FINISHED" and done.n_results == 2, done.error
    assert done.worker == f"{host}-{os.getpid()}"
    still = _status(path, other)
    assert still.status == "RUNNING" and still.worker == f"{host}-{live.pid}"
