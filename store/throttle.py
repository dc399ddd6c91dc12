"""Slowing down a client that keeps presenting wrong tokens: plain Python, no store, an injectable clock.

A client (a key the caller derives: an address, else a browser session) may present `failures` wrong tokens within
`window` seconds; every further one within the window locks the client out for `base_delay` seconds, doubling with
each failure (at most `max_delay`). While locked out the client is refused before its token is looked at. A right
token clears the client's count. At most `max_clients` clients are remembered (the least recently seen go first),
so forged client keys cannot grow memory without bound.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class _Client:
    failures: list[float] = field(default_factory=list)
    """Times of the wrong tokens within the window."""
    until: float = 0.0
    """Locked out until this time."""


class Limiter:
    """Per-client failure counts and lock-outs (thread-safe: one instance serves every session of a process)."""

    def __init__(self, *, failures: int = 5, window: float = 600.0, base_delay: float = 30.0,
                 max_delay: float = 3600.0, max_clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.failures, self.window, self.base_delay, self.max_delay = failures, window, base_delay, max_delay
        self.max_clients, self.clock = max_clients, clock
        self._clients: OrderedDict[str, _Client] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, client: str) -> float:
        """Seconds until `client` may present a token again (0: now)."""
        with self._lock:
            c = self._clients.get(client)
            return max(0.0, c.until - self.clock()) if c else 0.0

    def fail(self, client: str) -> tuple[int, float]:
        """Record a wrong token: (wrong tokens within the window, seconds the client is now locked out)."""
        now = self.clock()
        with self._lock:
            c = self._clients.pop(client, None) or _Client()
            self._clients[client] = c  # most recently seen last
            while len(self._clients) > self.max_clients:
                self._clients.popitem(last=False)
            c.failures = [t for t in c.failures if now - t < self.window] + [now]
            over = len(c.failures) - self.failures
            if over > 0:
                c.until = now + min(self.max_delay, self.base_delay * 2 ** min(over - 1, 32))
            return len(c.failures), max(0.0, c.until - now)

    def succeed(self, client: str) -> None:
        """A right token: forget the client's failures."""
        with self._lock:
            self._clients.pop(client, None)
