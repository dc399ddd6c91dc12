"""One run specification: the same `RunSpec` from the command line, a YAML file and a queued request, a JSON round
trip, and the runner receiving it unchanged from `evaluator run` and from the worker's child process."""
from __future__ import annotations

import argparse
import dataclasses
import subprocess

import pytest

from evaluator import runspec
from cli import run as cli_run
from evaluator.runspec import ConfigError, RunSpec
from services import run as services_run
from services import run_child, worker
from store.queue import Submission

URL = "http://127.0.0.1:9/v1"
"""Nothing is sent: the runner is replaced by a spy (the worker's real child run is in test_worker.py)."""


def _cli(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m evaluator")
    cli_run.add(parser.add_subparsers(dest="command"))
    return parser.parse_args(["run", *argv])


def _worker_args(db, data_dir) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    worker.add(parser.add_subparsers())
    return parser.parse_args(["worker", "--db", str(db), "--data-dir", str(data_dir), "-c", "4", "--once"])


def _request(**kw) -> Submission:
    values = dict(request_id="r1", model_id="sea-lion", backend="openai", base_url=URL, hub_model="served/sl",
                  api_key_env="MY_KEY", tasks="sentiment,nli", langs="id,th", prompt_langs="en", item_limit=2)
    return Submission(**{**values, **kw})


@pytest.fixture
def sources(tmp_path):
    """The same run from each source: (command-line args, YAML path, queue request, worker args)."""
    db, data = tmp_path / "x.duckdb", tmp_path / "data"
    argv = ["--model", "sea-lion", "--served-model", "served/sl", "--base-url", URL, "--api-key-env", worker.KEY_VAR,
            "--tasks", "sentiment,nli", "--langs", "id,th", "--prompt-lang", "en", "--limit", "2", "-c", "4",
            "--db", str(db), "--data-dir", str(data), "--public-endpoint"]
    yaml_file = tmp_path / "run.yaml"
    yaml_file.write_text(f"model: sea-lion\nserved_model: served/sl\nbase_url: {URL}\napi_key_env: {worker.KEY_VAR}\n"
                         f"tasks: [sentiment, nli]\nlangs: id,th\nprompt_langs: [en]\nlimit: 2\nconcurrency: 4\n"
                         f"db: {db}\ndata_dir: {data}\npublic_endpoint: true\n", encoding="utf-8")
    return _cli(*argv), yaml_file, _request(), _worker_args(db, data)


def test_the_same_spec_from_all_three_sources(sources):
    args, yaml_file, request, wargs = sources
    from_cli = runspec.from_args(args)
    from_yaml = runspec.load(yaml_file)
    from_queue = worker.run_spec(request, URL, request.hub_model, wargs)
    assert from_queue.model_info == {"owner": "queue"}  # the worker's runs write the queue's models (store.owners)
    assert from_cli == from_yaml == dataclasses.replace(from_queue, model_info={})
    assert from_cli.limit == 2 and from_cli.prompt_langs == ("en",) and from_cli.public_endpoint is True
    assert runspec.from_args(_cli("--config", str(yaml_file))) == from_yaml  # a file alone through the CLI


def test_json_round_trip_keeps_every_setting():
    spec = RunSpec(model="m", served_model="s", base_url="http://h/v1", api_key_env="K", tasks="bhasa", langs="id",
                   prompt_langs=("native",), runs=3, limit=5, concurrency=16, timeout=30.5, max_retries=2, rpm=600.0,
                   rerun=True, db="x.duckdb", data_dir="d", system_prompt=False, thinking=False,
                   logprob_choices=True, generation={"max_tokens": 64, "temperature": 0.2},
                   extra_body={"chat_template_kwargs": {"foo": [1, "ก"]}}, model_info={"params_b": 9.5},
                   n_ctx=2048, n_threads=2, chat_format="gemma", public_endpoint=True)
    assert runspec.from_json(runspec.to_json(spec)) == spec
    assert runspec.from_json(runspec.to_json(RunSpec())) == RunSpec()
    assert spec.request_body == {"chat_template_kwargs": {"foo": [1, "ก"], "enable_thinking": False}}


@pytest.mark.parametrize("text, message", [
    ('{"model": "m", "base_url": "http://h/v1", "shell": "rm -rf /"}', "run spec on stdin: unknown setting 'shell'"),
    ('{"model": "m", "base_url": "http://h/v1", "limit": "all"}', "run spec on stdin: limit: expected a number"),
    ('["model"]', "run spec on stdin: expected a JSON object"),
    ("{not json", "run spec on stdin: invalid JSON"),
    ('{"base_url": "http://h/v1"}', "--model (or `model:` in the config) is required"),
])
def test_the_child_refuses_a_bad_spec_with_one_line(text, message, capsys, monkeypatch):
    monkeypatch.setattr(services_run, "run", _fail_if_called)
    assert run_child.main(text) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


async def _fail_if_called(*a, **kw):
    raise AssertionError("the runner must not start")


class Spy:
    """Stands in for `evaluator.run.run`: keeps the spec it was handed."""

    def __init__(self):
        self.specs: list[RunSpec] = []

    async def __call__(self, backend, sink, spec, **kw):
        self.specs.append(spec)
        return []


def test_the_runner_receives_the_spec_unchanged(sources, monkeypatch):
    args, yaml_file, request, wargs = sources
    expected = runspec.load(yaml_file)
    monkeypatch.setenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", "1")  # the spec's endpoint is 127.0.0.1
    monkeypatch.setenv("MY_KEY", "sk-test")
    monkeypatch.setenv(worker.KEY_VAR, "sk-test")  # the CLI run reads the key the worker's child would get
    spy = Spy()
    monkeypatch.setattr(services_run, "run", spy)
    assert cli_run.cmd_run(args) == 0

    sent = []

    def child(cmd, *, input, env, **kw):  # the worker's child process, run in this process to see the spy
        sent.append((cmd, input, env))
        with monkeypatch.context() as m:
            m.setattr("os.environ", dict(env))
            code = run_child.main(input)
        return subprocess.CompletedProcess(cmd, code, "", "")

    monkeypatch.setattr(worker.subprocess, "run", child)
    monkeypatch.setattr(worker, "admit", lambda sub: None)  # endpoint policy: test_endpoints.py / test_secrets.py
    assert worker.handle(request, wargs) == (True, "")
    (cmd, text, env), = sent
    assert cmd[-2:] == ["-m", "services.run_child"] and len(cmd) == 3  # nothing of the request on the command line
    assert env.get(worker.KEY_VAR) == "sk-test" and "MY_KEY" not in env
    queued = dataclasses.replace(expected, model_info={"owner": "queue"})
    assert runspec.from_json(text) == queued
    assert spy.specs == [expected, queued]
    assert all(type(s) is RunSpec for s in spy.specs)


def test_a_request_with_a_bad_value_is_refused_before_any_run(tmp_path):
    bad = _request(item_limit=0)
    with pytest.raises(ConfigError, match="request r1: limit: must be positive"):
        worker.run_spec(bad, URL, None, _worker_args(tmp_path / "x.duckdb", tmp_path))


@pytest.mark.parametrize("kw, message", [
    (dict(prompt_langs="en,tl"), "prompt_langs: expected a list of 'en'/'native'"),
    (dict(tasks="sentimet"), "tasks: unknown task 'sentimet'; did you mean 'sentiment'?"),
    (dict(tasks="sentiment", langs="id,xx"), "langs: no selected task exists in 'xx'"),
])
def test_a_request_that_cannot_make_a_run_is_refused_when_queued(tmp_path, kw, message):
    from services.queue import QueueError, submit_request

    request = _request(request_id="", api_key_env=None, **kw)
    with pytest.raises(QueueError) as err:
        submit_request(tmp_path / "q.duckdb", request)
    assert str(err.value).startswith(message)
    with pytest.raises(QueueError, match="^" + message.split(":")[0]):  # the worker refuses it too
        worker.admit(dataclasses.replace(request, request_id="r9"))


def test_unknown_tasks_and_languages_are_one_line_errors(capsys):
    assert cli_run.cmd_run(_cli("--model", "m", "--base-url", URL, "--tasks", "bogus")) == 2
    assert capsys.readouterr().err == "error: tasks: unknown task 'bogus'\n"
    assert cli_run.cmd_run(_cli("--model", "m", "--base-url", URL, "--tasks", "qa", "--langs", "tl")) == 2
    assert "langs: no selected task exists in 'tl' (they exist in id, ta, th, vi)" in capsys.readouterr().err
