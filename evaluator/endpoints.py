"""Endpoint policy for queued evaluations: which URLs a request may name and which key it may have sent there.

One function, `check`, is the policy. The queue page, `python -m evaluator queue add` and the worker call it before a
request is stored or run, and for a queued run the HTTP client resolves every new connection's host through
`connect_addresses` and connects only to the addresses it checked (so a host name that resolves differently later,
DNS rebinding, is caught too: `evaluator.clients.CheckedResolver`). See docs/security.md, "Endpoints" and "Secrets".

- Every comma-separated URL is checked: http(s) only, no user info, a host name that resolves.
- The host is resolved (IP literals in any spelling: decimal `2130706433`, short `127.1`, hex `0x7f000001`, octal
  `0177.0.0.1`, IPv4-mapped IPv6, a trailing dot) and every address must be public: loopback, private, link-local,
  multicast, reserved, unspecified and shared (CGNAT) addresses are refused. `TANAW_ALLOW_PRIVATE_ENDPOINTS=1` lifts
  this for an operator's own machine (never on a public Space); it never lifts the key rules.
- A request may name an API key only from the operator's allow-list `TANAW_ENDPOINT_KEYS`
  (`openai:OPENAI_API_KEY,custom:MY_KEY=https://llm.example/v1`), and only for the endpoint that entry is bound to.
  `HF_TOKEN`, `HF_*`, `HUGGING_FACE_*` and `TANAW_*` are refused even when listed.

Refusals raise `EndpointRefused`, whose message is generic (safe to show the public); the reason goes to the
operator's log through `logging`.
"""
from __future__ import annotations

import ipaddress
import logging
import os
import re
import socket
from dataclasses import dataclass
from typing import Callable, Mapping
from urllib.parse import unquote, urlsplit

log = logging.getLogger("tanaw.endpoints")

PRIVATE_ENV = "TANAW_ALLOW_PRIVATE_ENDPOINTS"
"""Set (non-empty, not 0/false/no) on a self-hosted machine to allow endpoints on its own network."""
KEYS_ENV = "TANAW_ENDPOINT_KEYS"
"""Operator allow-list of key variables a request may name, each bound to one provider's endpoint."""

PROVIDERS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
    "gemini": "https://generativelanguage.googleapis.com/v1beta/openai",
    "mistral": "https://api.mistral.ai/v1",
    "groq": "https://api.groq.com/openai/v1",
    "together": "https://api.together.xyz/v1",
    "fireworks": "https://api.fireworks.ai/inference/v1",
    "deepinfra": "https://api.deepinfra.com/v1/openai",
    "openrouter": "https://openrouter.ai/api/v1",
}
"""Known providers' OpenAI-compatible base URLs, for `TANAW_ENDPOINT_KEYS=provider:VAR` entries."""

NEVER_SENT = re.compile(r"(HF_.*|HUGGING_?FACE.*|TANAW_.*|SPACE_.*|AWS_.*|GOOGLE_.*|AZURE_.*)")
"""Key variable names refused whatever the allow-list says: the Space's own credentials."""
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")

Resolver = Callable[[str, int], list[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class EndpointRefused(ValueError):
    """The endpoint or key is not accepted. `str(e)` is safe to show anyone; `detail` is for the operator's log."""

    def __init__(self, public: str, detail: str):
        super().__init__(public)
        self.detail = detail


@dataclass(frozen=True)
class KeyBinding:
    """One allow-listed key variable and the endpoint it may be sent to."""

    provider: str
    """Provider name as written in TANAW_ENDPOINT_KEYS."""
    env_var: str
    """Environment variable holding the key on the worker."""
    base_url: str
    """The only base URL (normalised) this key is ever sent to."""


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


def private_allowed(env: Mapping[str, str] | None = None) -> bool:
    """Whether the operator allowed endpoints on private networks (TANAW_ALLOW_PRIVATE_ENDPOINTS): for local use
    only, so it is ignored on a public Space (SPACE_ID set), whose visitors must never reach a private network."""
    env = os.environ if env is None else env
    if _truthy(env.get(PRIVATE_ENV)) and env.get("SPACE_ID"):
        log.warning("%s ignored: this app runs as a public Space (SPACE_ID=%s)", PRIVATE_ENV, env.get("SPACE_ID"))
        return False
    return _truthy(env.get(PRIVATE_ENV))


def split_urls(base_url: str | None) -> list[str]:
    """The comma-separated URLs of a base_url, stripped (empty parts dropped)."""
    return [u.strip() for u in (base_url or "").split(",") if u.strip()]


def normalise_url(url: str) -> str:
    """scheme://host[:port]/path in lower-case scheme and host, without a trailing slash (for comparing bindings)."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").rstrip(".")
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{host}{port}{parts.path.rstrip('/')}"


def _system_resolve(host: str, port: int) -> list[str]:
    return [info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


RESOLVE: Resolver = _system_resolve
"""How host names are resolved, by the checks here and by the HTTP client of a queued run (`connect_addresses`)."""


def check_syntax(url: str) -> str:
    """An http(s) base URL with a host and no user info, query, fragment, spaces, control or non-ASCII characters
    (nothing that could break out of a request line or header); returns it without a trailing slash, ValueError
    otherwise. The HTTP client refuses such URLs when it is built, the policy at submission."""
    if any(ord(ch) < 33 or ord(ch) > 126 for ch in url):
        raise ValueError(f"URL {url!r}: spaces, control or non-ASCII characters are not allowed")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"URL {url!r}: expected http://host[:port]/path or https://...")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise ValueError(f"URL {url!r}: user info, query and fragment are not allowed")
    _ = parts.port  # ValueError for a port out of range
    return url.rstrip("/")


def literal_address(host: str) -> IPAddress | None:
    """The address a host written as an IP literal denotes, in any spelling inet_aton accepts; None for names."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def _embedded_v4(ip: IPAddress) -> IPAddress:
    """The IPv4 address inside an IPv4-mapped, 6to4, Teredo or NAT64 IPv6 address (else the address itself)."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped:
            return ip.ipv4_mapped
        if ip.sixtofour:
            return ip.sixtofour
        if ip.teredo:
            return ip.teredo[1]
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def is_public_address(ip: IPAddress) -> bool:
    """Whether an address is on the public internet (not loopback, private, link-local, multicast, reserved,
    unspecified, shared/CGNAT or site-local), looking inside IPv6 forms that embed an IPv4 address."""
    for a in {ip, _embedded_v4(ip)}:
        if (a.is_loopback or a.is_private or a.is_link_local or a.is_multicast or a.is_reserved
                or a.is_unspecified or not a.is_global or a in _CGNAT
                or (isinstance(a, ipaddress.IPv6Address) and a.is_site_local)):
            return False
    return True


def _refuse(public: str, detail: str) -> EndpointRefused:
    log.warning("endpoint refused: %s", detail)
    return EndpointRefused(public, detail)


def _host_addresses(host: str, port: int, resolve: Resolver) -> list[IPAddress]:
    literal = literal_address(host)
    if literal is not None:
        return [literal]
    try:
        found = resolve(host, port)
    except (OSError, UnicodeError, ValueError) as e:
        raise _refuse("base_url: the endpoint's host name cannot be resolved", f"{host!r}: {e}") from None
    addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in found]
    if not addresses:
        raise _refuse("base_url: the endpoint's host name cannot be resolved", f"{host!r}: no address")
    return addresses


def connect_addresses(host: str, port: int, *, allow_private: bool, resolve: Resolver | None = None) -> list[str]:
    """The addresses a connection to `host` may use: `host` resolved once (IP literals in any spelling read as
    such), every address public unless `allow_private`; EndpointRefused (generic message) otherwise. The HTTP client
    of a queued run connects only to what this returns, so what was checked is what is reached."""
    addresses = _host_addresses(host.rstrip("."), port, resolve or RESOLVE)
    if not allow_private:
        bad = [str(a) for a in addresses if not is_public_address(a)]
        if bad:
            raise _refuse("base_url: this endpoint is not accepted (local, private and reserved addresses are "
                          "refused)", f"{host!r} resolves to non-public {', '.join(bad)}")
    return [str(a) for a in addresses]


def check_url(url: str, *, allow_private: bool | None = None, resolve: Resolver | None = None) -> str:
    """Check one endpoint URL (scheme, no user info, every resolved address public); returns it normalised."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError as e:
        raise _refuse("base_url: not a valid http(s) URL", f"{url!r}: {e}") from None
    host = unquote(parts.hostname or "").rstrip(".")
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise _refuse("base_url: an http(s) URL with a host is required", f"{url!r}: scheme or host missing")
    if parts.username is not None or parts.password is not None:
        raise _refuse("base_url: user names and passwords in the URL are not accepted", f"{url!r}: user info")
    try:
        check_syntax(url.strip())  # what the HTTP client would refuse at run time, refused now
    except ValueError as e:
        raise _refuse("base_url: query strings, fragments, spaces and control characters are not accepted",
                      f"{url!r}: {e}") from None
    if allow_private is None:
        allow_private = private_allowed()
    if allow_private:
        return normalise_url(url)
    connect_addresses(host, port, allow_private=False, resolve=resolve)
    return normalise_url(url)


def key_bindings(env: Mapping[str, str] | None = None) -> dict[str, KeyBinding]:
    """The operator's allow-list (TANAW_ENDPOINT_KEYS) by variable name; malformed entries are logged and skipped."""
    env = os.environ if env is None else env
    out: dict[str, KeyBinding] = {}
    for entry in (env.get(KEYS_ENV) or "").replace(";", ",").split(","):
        entry = entry.strip()
        if not entry:
            continue
        provider, _, rest = entry.partition(":")
        var, _, url = rest.partition("=")
        provider, var, url = provider.strip().lower(), var.strip(), url.strip() or PROVIDERS.get(provider.strip()
                                                                                                   .lower(), "")
        if not _ENV_NAME.fullmatch(var) or not url or NEVER_SENT.fullmatch(var):
            log.warning("%s: entry %r ignored (want provider:VAR or name:VAR=https://url; HF_*/TANAW_* are never "
                        "sent)", KEYS_ENV, entry)
            continue
        out[var] = KeyBinding(provider, var, normalise_url(url))
    return out


def check_key(api_key_env: str | None, base_url: str | None, env: Mapping[str, str] | None = None) -> None:
    """A request may name a key only from the allow-list, and only for the endpoint that key is bound to."""
    if not api_key_env:
        return
    if not _ENV_NAME.fullmatch(api_key_env) or NEVER_SENT.fullmatch(api_key_env):
        raise _refuse("api_key_env: this key variable is not accepted (ask the maintainers which keys exist)",
                      f"{api_key_env!r} is a server credential or not a variable name")
    binding = key_bindings(env).get(api_key_env)
    if binding is None:
        raise _refuse("api_key_env: this key variable is not accepted (ask the maintainers which keys exist)",
                      f"{api_key_env!r} is not in {KEYS_ENV}")
    urls = split_urls(base_url)
    if not urls or any(normalise_url(u) != binding.base_url for u in urls):
        raise _refuse(f"api_key_env: {api_key_env} may only be sent to its provider's endpoint",
                      f"{api_key_env} is bound to {binding.base_url}, request names {base_url!r}")


def check(base_url: str | None, api_key_env: str | None = None, *, env: Mapping[str, str] | None = None,
          resolve: Resolver | None = None) -> list[str]:
    """THE endpoint policy for queued requests: every comma-separated URL allowed, and the key (if any) allowed
    for exactly those URLs. Returns the normalised URLs; raises EndpointRefused (generic message) otherwise."""
    urls = split_urls(base_url)
    if not urls:
        raise _refuse("base_url: an http(s) URL is required for an OpenAI-compatible endpoint", "no URL")
    allow = private_allowed(env)
    checked = [check_url(u, allow_private=allow, resolve=resolve) for u in urls]
    check_key(api_key_env, base_url, env)
    return checked
