"""The run specification: what to run, against which server, and how, as one frozen value.

A `RunSpec` comes from the command line (`from_args`), a YAML file (`load`), or a queued request (`from_request`),
and travels as JSON (`to_json` / `from_json`: the worker hands it to its child process that way). The runner
(`evaluator.run.run`) receives it unchanged. A YAML file holds the same settings as `python -m evaluator run`
(command-line values win) plus per-model generation settings, whether the model accepts a system prompt, and
thinking mode. Example:

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
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

import yaml

from evaluator.registry import select


class ConfigError(ValueError):
    """A run specification is invalid; the message names the file (or option) and the setting."""


@dataclass(frozen=True)
class RunSpec:
    """Every setting of a run."""

    model: str | None = None
    """Model name as stored and shown (and sent as `model` unless `served_model` is set)."""
    served_model: str | None = None
    """Model id the server expects, when it differs from `model`."""
    backend: str = "http"
    """"http" (any OpenAI-compatible server) or "llamacpp" (in-process GGUF via llama-cpp-python)."""
    base_url: str | None = None
    """Server base URL including /v1, e.g. http://localhost:8000/v1 (comma-separated replicas allowed)."""
    api_key_env: str | None = None
    """Environment variable holding the API key (the key itself never goes in a spec)."""
    model_path: str | None = None
    """GGUF file for the llamacpp backend."""
    tasks: str | None = None
    """Comma list of task ids, aliases or families; None = all."""
    langs: str | None = None
    """Comma list of languages; None = every language of each task."""
    prompt_langs: tuple[str, ...] = ("en", "native")
    runs: int = 1
    """Repeats of every cell (run numbers 1..runs)."""
    limit: int | None = None
    """At most this many items per (task, lang)."""
    concurrency: int = 8
    """Requests in flight at most."""
    timeout: float = 120.0
    """Per-request timeout (seconds)."""
    max_retries: int = 6
    rpm: float | None = None
    """Requests-per-minute ceiling; None = unlimited."""
    rerun: bool = False
    """Ask again even what is already stored."""
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
    public_endpoint: bool = False
    """Apply the queue's endpoint policy (evaluator/endpoints.py) to every request: set for queued requests."""

    @cached_property
    def request_body(self) -> dict:
        """Request fields beyond the OpenAI ones: `extra_body` plus the thinking switch (computed once)."""
        body = dict(self.extra_body)
        if self.thinking is not None:
            kwargs = dict(body.get("chat_template_kwargs") or {})
            kwargs["enable_thinking"] = self.thinking
            body["chat_template_kwargs"] = kwargs
        return body

    def checked(self) -> "RunSpec":
        """This spec when it can run; ConfigError naming the missing setting otherwise."""
        if not self.model:
            raise ConfigError("--model (or `model:` in the config) is required")
        if self.backend == "http" and not self.base_url:
            raise ConfigError("--base-url (or `base_url:` in the config) is required for the http backend")
        if self.backend == "llamacpp" and not self.model_path:
            raise ConfigError("--model-path (or `model_path:` in the config) is required for the llamacpp backend")
        check_selection(self)
        return self


def check_selection(spec: RunSpec, where: str = "") -> None:
    """ConfigError when `tasks` names no known task, id or family, or `langs` a language none of them exists in."""
    prefix = f"{where}: " if where else ""
    try:
        cells = select(spec.tasks)
    except KeyError as exc:
        raise ConfigError(f"{prefix}tasks: {exc.args[0]}") from None
    have = {lang for _, lang in cells}
    unknown = [x.strip() for x in (spec.langs or "").split(",") if x.strip() and x.strip() not in have]
    if unknown:
        raise ConfigError(f"{prefix}langs: no selected task exists in {unknown[0]!r} "
                          f"(they exist in {', '.join(sorted(have))})")


FIELDS = {f.name: f for f in dataclasses.fields(RunSpec)}
MAPPINGS = ("generation", "extra_body", "model_info")
GENERATION_KEYS = {"temperature", "top_p", "max_tokens"}
MODEL_INFO_KEYS = {"family", "organisation", "params_b", "model_type", "weights", "licence", "url", "sea_tuned",
                   "owner"}
OPTIONAL_KINDS = {"limit": int, "n_threads": int, "rpm": float, "thinking": bool}
"""Types of the settings whose default is None but which are not strings."""


def _check_mapping(where: str, name: str, value: Any) -> dict:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: {name}: expected a mapping, got {type(value).__name__}")
    allowed = {"generation": GENERATION_KEYS, "model_info": MODEL_INFO_KEYS}.get(name)
    bad = sorted(set(value) - allowed) if allowed else []
    if bad:
        raise ConfigError(f"{where}: {name}.{bad[0]}: unknown key (allowed: {', '.join(sorted(allowed))})")
    return dict(value)


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
    if name in MAPPINGS:
        return _check_mapping(where, name, value)
    kind = OPTIONAL_KINDS.get(name) or (type(default) if default is not None else None)
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
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {name}: expected a string, got {type(value).__name__}")
    if name == "backend" and value not in ("http", "llamacpp"):
        raise ConfigError(f"{where}: backend: expected 'http' or 'llamacpp', got {value!r}")
    return value


def from_mapping(data: Mapping[str, Any], where: str = "<config>") -> RunSpec:
    """A RunSpec from plain values; ConfigError on an unknown setting or a wrong type."""
    values = {}
    for name, value in data.items():
        if name not in FIELDS:
            hint = difflib.get_close_matches(str(name), FIELDS, n=1)
            raise ConfigError(f"{where}: unknown setting {name!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
        values[name] = _check(where, name, value)
    return RunSpec(**{k: v for k, v in values.items() if v is not None})


def load(path: str | Path) -> RunSpec:
    """Read a YAML run spec; ConfigError names the file (and line for YAML syntax errors)."""
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


def merge(base: RunSpec, overrides: Mapping[str, Any]) -> RunSpec:
    """`base` with every non-None override applied (command-line values win over the file)."""
    checked = {k: _check("command line", k, v) for k, v in overrides.items() if v is not None and k in FIELDS}
    return dataclasses.replace(base, **checked)


def from_args(args: Any) -> RunSpec:
    """The spec of `python -m evaluator run`'s parsed options: the --config file (if any) with the options applied
    (`--max-tokens` and `--temperature` go into `generation`); ConfigError when a required setting is missing."""
    spec = load(args.config) if getattr(args, "config", None) else RunSpec()
    spec = merge(spec, {n: getattr(args, n, None) for n in FIELDS if n not in MAPPINGS})
    gen = {k: getattr(args, k, None) for k in ("max_tokens", "temperature")}
    gen = {k: v for k, v in gen.items() if v is not None}
    if gen:
        spec = merge(spec, {"generation": {**spec.generation, **gen}})
    return spec.checked()


def _request_values(request: Any) -> dict:
    """The settings a queued request (`store.queue.Submission`, read by attribute) chooses itself."""
    return {"model": request.model_id, "tasks": request.tasks, "langs": request.langs,
            "prompt_langs": request.prompt_langs, "limit": request.item_limit,
            "public_endpoint": request.backend == "openai"}


def check_request(request: Any) -> None:
    """ConfigError naming the field when a request's own settings cannot make a run (wrong type, prompt language,
    unknown task or language): the queue page, `queue add` and the worker check this before anything runs."""
    where = f"request {request.request_id}" if getattr(request, "request_id", "") else "request"
    check_selection(from_mapping(_request_values(request), where), where)


def from_request(request: Any, *, base_url: str, served_model: str | None = None, key_env: str | None = None,
                 concurrency: int = 8, data_dir: str | None = None, db: str | None = None) -> RunSpec:
    """The spec of a queued request run by a worker that serves it at `base_url` and passes its key, if any, in
    the variable `key_env`. The request's own values are checked like a file's; endpoint requests get the endpoint
    policy on every connection (`public_endpoint`)."""
    where = f"request {request.request_id}" if getattr(request, "request_id", "") else "request"
    spec = from_mapping({
        **_request_values(request), "served_model": served_model, "base_url": base_url,
        "api_key_env": key_env if request.api_key_env else None, "concurrency": concurrency,
        "data_dir": data_dir, "db": db,
    }, where)
    return spec.checked()


def to_json(spec: RunSpec) -> str:
    """The spec as one JSON object (settings left at their defaults included)."""
    return json.dumps(dataclasses.asdict(spec), ensure_ascii=False, sort_keys=True)


def from_json(text: str | bytes, where: str = "<json>") -> RunSpec:
    """The spec `to_json` wrote, checked like a YAML file; `from_json(to_json(s)) == s`."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{where}: invalid JSON ({exc})") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a JSON object of settings, got {type(data).__name__}")
    return from_mapping(data, where)
