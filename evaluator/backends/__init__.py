"""Model backends for the runner: `ModelClient` (any OpenAI-compatible server) or the in-process llama.cpp one."""
from __future__ import annotations

import os
from typing import Any

from evaluator.runspec import ConfigError, RunSpec


def for_spec(spec: RunSpec) -> tuple[Any, dict]:
    """The model backend a spec names and the endpoint description recorded in each run's settings. With
    `spec.public_endpoint` (queued runs, see docs/security.md) the URLs are checked by the endpoint policy and every new
    connection goes only to addresses the policy resolved and checked (`endpoints.connect_addresses`). ConfigError
    for a missing key variable, a refused endpoint, a base URL or key the transport refuses or an unusable GGUF."""
    if spec.backend == "llamacpp":
        from evaluator.backends.llamacpp import ChatFormatError, LlamaCppBackend

        try:
            backend = LlamaCppBackend(spec.model_path, n_ctx=spec.n_ctx, chat_format=spec.chat_format,
                                      n_threads=spec.n_threads)
        except ChatFormatError as exc:
            raise ConfigError(str(exc)) from None
        return backend, {"backend": "llamacpp", "model_file": os.path.basename(spec.model_path),
                         "chat_format": backend.chat_format, "chat_template": backend.chat_template}
    from evaluator.clients import ModelClient, RetryPolicy

    key = None
    if spec.api_key_env:
        key = os.environ.get(spec.api_key_env)
        if not key:
            raise ConfigError(f"--api-key-env: environment variable {spec.api_key_env} is not set")
    addresses = None
    if spec.public_endpoint:
        import functools

        from evaluator import endpoints

        try:
            endpoints.check(spec.base_url)
        except endpoints.EndpointRefused as e:
            raise ConfigError(str(e)) from None
        addresses = functools.partial(endpoints.connect_addresses, allow_private=endpoints.private_allowed())
    try:
        client = ModelClient(spec.base_url, spec.served_model or spec.model, api_key=key, timeout=spec.timeout,
                             concurrency=spec.concurrency, addresses=addresses,
                             retry=RetryPolicy(max_retries=spec.max_retries), rpm=spec.rpm)
    except ValueError as exc:  # a URL or key that cannot go into a request as it is (endpoints.check_syntax)
        raise ConfigError(str(exc)) from None
    return client, {"backend": "http", "endpoint": spec.base_url, "served_model": spec.served_model or spec.model}
