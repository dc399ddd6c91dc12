"""Run settings from a YAML file and/or the command line: what to run, against which server, and how.

A run config holds the same settings as `python -m evaluator run` (command-line values win) plus per-model
generation settings, whether the model accepts a system prompt, and thinking mode. Example:

    model: sea-lion-v4-27b
    base_url: http://localhost:8000/v1
    api_key_env: VLLM_API_KEY
    tasks: bhasa,lindsea,pacute
    langs: id,th,tl
    prompt_langs: [en, native]
    concurrency: 64
    system_prompt: true
    thinking: false
    generation: {max_tokens: 1024}
    model_info: {organisation: AI Singapore, params_b: 27, model_type: instruct, weights: open}
"""
from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml


class ConfigError(ValueError):
    """A run config is invalid; the message names the file and the setting."""


@dataclass(frozen=True)
class RunConfig:
    """Every setting of a run."""

    model: str | None = None
    """Model name as stored and shown (and sent as `model` unless `served_model` is set)."""
    served_model: str | None = None
    """Model id the server expects, when it differs from `model`."""
    backend: str = "http"
    """"http" (any OpenAI-compatible server) or "llamacpp" (in-process GGUF via llama-cpp-python)."""
    base_url: str | None = None
    """Server base URL including /v1, e.g. http://localhost:8000/v1."""
    api_key_env: str | None = None
    """Environment variable holding the API key (the key itself never goes in a file)."""
    model_path: str | None = None
    """GGUF file for the llamacpp backend."""
    tasks: str | None = None
    """Comma list of task ids, aliases or families; None = all."""
    langs: str | None = None
    """Comma list of languages; None = all."""
    prompt_langs: tuple[str, ...] = ("en", "native")
    runs: int = 1
    limit: int | None = None
    concurrency: int = 8
    timeout: float = 120.0
    """Per-request timeout (seconds)."""
    max_retries: int = 6
    rpm: float | None = None
    """Requests-per-minute ceiling; None = unlimited."""
    rerun: bool = False
    db: str | None = None
    """DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)."""
    data_dir: str | None = None
    system_prompt: bool = True
    """The model accepts a system message; if not, system text is prepended to the user turn."""
    thinking: bool | None = None
    """Thinking mode: sends chat_template_kwargs.enable_thinking (None = leave the server's default)."""
    logprob_choices: bool = False
    """Score BHASA/LINDSEA letter-choice tasks by letter log-probability instead of generating."""
    generation: Mapping[str, Any] = field(default_factory=dict)
    """Overrides of the per-task generation settings (temperature, top_p, max_tokens)."""
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    """Extra request fields passed through to the server."""
    model_info: Mapping[str, Any] = field(default_factory=dict)
    """Metadata stored with the model: family, organisation, params_b, model_type, weights, licence, url."""
    n_ctx: int = 4096
    """Context window for the llamacpp backend."""
    n_threads: int | None = None
    """CPU threads for the llamacpp backend (None: llama.cpp's default)."""
    chat_format: str | None = None
    """llama-cpp-python chat format for the llamacpp backend (default: the GGUF's template, else its known family)."""


FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}
GENERATION_KEYS = {"temperature", "top_p", "max_tokens"}
MODEL_INFO_KEYS = {"family", "organisation", "params_b", "model_type", "weights", "licence", "url", "sea_tuned"}


def _check(where: str, name: str, value: Any) -> Any:
    """The value converted to the field's type, or ConfigError naming the setting."""
    default = FIELDS[name].default
    if value is None:
        return None
    if name == "prompt_langs":
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(x in ("en", "native") for x in items):
            raise ConfigError(f"{where}: prompt_langs: expected a list of 'en'/'native', got {value!r}")
        return tuple(items)
    if name in ("tasks", "langs") and isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    if name in ("generation", "extra_body", "model_info"):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: {name}: expected a mapping, got {type(value).__name__}")
        allowed = {"generation": GENERATION_KEYS, "model_info": MODEL_INFO_KEYS}.get(name)
        bad = sorted(set(value) - allowed) if allowed else []
        if bad:
            raise ConfigError(f"{where}: {name}.{bad[0]}: unknown key (allowed: {', '.join(sorted(allowed))})")
        return dict(value)
    kind = type(default) if default is not None and not isinstance(default, Mapping) else None
    if name in ("limit", "n_threads"):
        kind = int
    if name in ("rpm",):
        kind = float
    if name in ("thinking",):
        kind = bool
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {name}: expected true or false, got {value!r}")
        return value
    if kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)):
            raise ConfigError(f"{where}: {name}: expected a number, got {value!r}")
        if value <= 0:
            raise ConfigError(f"{where}: {name}: must be positive, got {value!r}")
        return kind(value)
    if kind is str or default is None:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: {name}: expected a string, got {type(value).__name__}")
    if name == "backend" and value not in ("http", "llamacpp"):
        raise ConfigError(f"{where}: backend: expected 'http' or 'llamacpp', got {value!r}")
    return value


def from_mapping(data: Mapping[str, Any], where: str = "<config>") -> RunConfig:
    """A RunConfig from plain values; ConfigError on an unknown setting or a wrong type."""
    values = {}
    for name, value in data.items():
        if name not in FIELDS:
            hint = difflib.get_close_matches(str(name), FIELDS, n=1)
            raise ConfigError(f"{where}: unknown setting {name!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
        values[name] = _check(where, name, value)
    return RunConfig(**{k: v for k, v in values.items() if v is not None})


def load(path: str | Path) -> RunConfig:
    """Read a YAML run config; ConfigError names the file (and line for YAML syntax errors)."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ConfigError(f"{p}: file not found") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise ConfigError(f"{p}{line}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"{p}: expected a mapping of settings, got {type(data).__name__}")
    return from_mapping(data, str(p))


def merge(base: RunConfig, overrides: Mapping[str, Any]) -> RunConfig:
    """`base` with every non-None override applied (command-line values win over the file)."""
    checked = {k: _check("command line", k, v) for k, v in overrides.items() if v is not None and k in FIELDS}
    return dataclasses.replace(base, **checked)


def extra_body(cfg: RunConfig) -> dict:
    """Request fields beyond the OpenAI ones: the config's extra_body plus the thinking switch."""
    body = dict(cfg.extra_body)
    if cfg.thinking is not None:
        kwargs = dict(body.get("chat_template_kwargs") or {})
        kwargs["enable_thinking"] = cfg.thinking
        body["chat_template_kwargs"] = kwargs
    return body
