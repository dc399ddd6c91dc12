"""`python -m evaluator run`: every option documented, YAML run specs, clear errors."""
from __future__ import annotations

import argparse

import pytest

from evaluator import runspec
from cli import run as cli_run
from evaluator.runspec import ConfigError, RunSpec


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluator")
    cli_run.add(parser.add_subparsers(dest="command"))
    return parser


def _args(*argv: str) -> argparse.Namespace:
    return _parser().parse_args(["run", *argv])


def test_help_documents_every_option(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["run", "--help"])
    text = capsys.readouterr().out
    sub = _parser()._subparsers._group_actions[0].choices["run"]
    for action in sub._actions:
        if action.dest == "help":
            continue
        assert action.help and len(action.help) > 10, f"{action.option_strings} has no help"
        assert action.option_strings[-1] in text
    assert "vllm serve" in text and "--base-url http://localhost:8000/v1" in text


def test_yaml_config_with_command_line_overrides(tmp_path):
    cfg_file = tmp_path / "run.yaml"
    cfg_file.write_text("model: sea-lion\nbase_url: http://localhost:8000/v1\ntasks: [bhasa, pacute]\n"
                        "prompt_langs: [native]\nconcurrency: 64\nsystem_prompt: false\nthinking: true\n"
                        "generation: {max_tokens: 2048}\nextra_body: {chat_template_kwargs: {foo: 1}}\n"
                        "model_info: {organisation: AI Singapore, params_b: 9}\n", encoding="utf-8")
    cfg = runspec.from_args(_args("--config", str(cfg_file), "-c", "16", "--langs", "id,tl",
                                         "--temperature", "0.2"))
    assert (cfg.model, cfg.tasks, cfg.langs, cfg.prompt_langs) == ("sea-lion", "bhasa,pacute", "id,tl", ("native",))
    assert cfg.concurrency == 16 and cfg.system_prompt is False
    assert cfg.generation == {"max_tokens": 2048, "temperature": 0.2}
    assert cfg.request_body == {"chat_template_kwargs": {"foo": 1, "enable_thinking": True}}
    assert cfg.model_info == {"organisation": "AI Singapore", "params_b": 9}


@pytest.mark.parametrize("text, message", [
    ("model: m\nconcurency: 8\n", "run.yaml: unknown setting 'concurency'; did you mean 'concurrency'?"),
    ("model: m\nconcurrency: lots\n", "run.yaml: concurrency: expected a number, got 'lots'"),
    ("model: m\nprompt_langs: [en, tl]\n", "run.yaml: prompt_langs: expected a list of 'en'/'native'"),
    ("model: m\ngeneration: {max_token: 5}\n", "run.yaml: generation.max_token: unknown key"),
    ("model: m\nthinking: yes please\n", "run.yaml: thinking: expected true or false"),
    ("model: [unclosed\n", "run.yaml:2: invalid YAML"),
])
def test_bad_configs_name_the_file_and_setting(tmp_path, text, message):
    path = tmp_path / "run.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        runspec.load(path)
    assert str(err.value).startswith(str(path)[: -len("run.yaml")])
    assert message in str(err.value)


def test_missing_settings_and_api_key_are_clear_errors(capsys, monkeypatch):
    assert cli_run.cmd_run(_args("--base-url", "http://x/v1")) == 2
    assert "--model (or `model:` in the config) is required" in capsys.readouterr().err
    assert cli_run.cmd_run(_args("--model", "m")) == 2
    assert "--base-url" in capsys.readouterr().err
    monkeypatch.delenv("TANAW_TEST_KEY", raising=False)
    assert cli_run.cmd_run(_args("--model", "m", "--base-url", "http://x/v1", "--api-key-env", "TANAW_TEST_KEY")) == 2
    assert "environment variable TANAW_TEST_KEY is not set" in capsys.readouterr().err


def test_defaults_follow_the_paper():
    cfg = RunSpec()
    assert cfg.prompt_langs == ("en", "native") and cfg.runs == 1 and cfg.backend == "http"
    assert cfg.request_body == {}  # thinking unset: the server's default is left alone
