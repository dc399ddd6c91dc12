"""The judge's client: any OpenAI-compatible endpoint through the openai SDK (judging is low volume), under the
same endpoint policy as a queued model (`evaluator.endpoints.check`): the URL must be allowed and a key is read
only from a variable the operator bound to exactly that endpoint, so no secret goes to a URL someone else chose.

The HTTP client reads nothing from the environment (no proxies), follows no redirect, and sends no header the SDK
would take from `OPENAI_*` variables (organisation, project)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping

from evaluator import endpoints

DROPPED_HEADERS = ("openai-organization", "openai-project")
"""Headers the SDK fills from the environment; never sent to a judge endpoint."""


@dataclass(frozen=True)
class JudgeConfig:
    """Which judge, where, and how it samples; stored with every judgement (the URL and key are not)."""

    model: str
    base_url: str
    api_key_env: str | None = None
    """The variable holding the endpoint's key (allowed by TANAW_ENDPOINT_KEYS for this URL only)."""
    temperature: float = 0.0
    max_tokens: int = 2048
    price_in: float | None = None
    """US dollars per million prompt tokens (None: cost not recorded)."""
    price_out: float | None = None
    """US dollars per million completion tokens."""
    timeout: float = 120.0
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Further sampling settings sent with every request (recorded with the others)."""

    def sampling(self) -> dict:
        """The sampling settings as sent and stored."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, **dict(self.extra)}

    def cost(self, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """The cost of one call in US dollars, when prices and token counts are known."""
        if self.price_in is None or self.price_out is None or tokens_in is None or tokens_out is None:
            return None
        return (tokens_in * self.price_in + tokens_out * self.price_out) / 1e6


@dataclass(frozen=True)
class JudgeReply:
    """The judge's reply text and what it cost."""

    text: str
    tokens_in: int | None
    tokens_out: int | None
    cost: float | None


def _drop_env_headers(request) -> None:
    """httpx request hook: remove the headers the SDK took from the environment."""
    for name in DROPPED_HEADERS:
        request.headers.pop(name, None)


class JudgeClient:
    """Sends judge requests one at a time; `requests_sent` counts them. EndpointRefused at construction when the
    policy refuses the URL or the key variable."""

    def __init__(self, cfg: JudgeConfig, env: Mapping[str, str] | None = None):
        import httpx  # the SDK loads in a second: only when a judge is used, never with the app's pages
        import openai

        env = os.environ if env is None else env
        url = endpoints.check(cfg.base_url, cfg.api_key_env, env=env)[0]
        key = env.get(cfg.api_key_env) if cfg.api_key_env else None
        self.cfg = cfg
        self.requests_sent = 0
        self._http = httpx.Client(trust_env=False, follow_redirects=False, timeout=cfg.timeout,
                                  event_hooks={"request": [_drop_env_headers]})
        self._client = openai.OpenAI(base_url=url, api_key=key or "EMPTY", timeout=cfg.timeout, max_retries=3,
                                     http_client=self._http)

    def ask(self, messages: list[dict]) -> JudgeReply:
        """One chat completion of the judge."""
        self.requests_sent += 1
        resp = self._client.chat.completions.create(
            model=self.cfg.model, messages=messages, temperature=self.cfg.temperature,
            max_tokens=self.cfg.max_tokens, extra_body=dict(self.cfg.extra) or None)
        text = (resp.choices[0].message.content if resp.choices else None) or ""
        usage = resp.usage
        t_in = usage.prompt_tokens if usage is not None else None
        t_out = usage.completion_tokens if usage is not None else None
        return JudgeReply(text, t_in, t_out, self.cfg.cost(t_in, t_out))

    def close(self) -> None:
        self._http.close()
