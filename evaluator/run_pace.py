"""The runner's rhythm: when the next answer can come, so store work runs between bursts of answers, not beside them.

C requests sent together come back together, about one latency later, and the next C go out as those answers are
handled: answers arrive in bursts with idle gaps between them. Work on the writer's threads (group commits,
aggregate refreshes) takes the interpreter from the event loop while it runs Python code; during a burst that delays
every request sent in it, in a gap it costs the requests nothing. `Pace` predicts the gap; `responsive_loop` keeps
the event loop's share of the interpreter high when the two do overlap.
"""
from __future__ import annotations

import collections
import contextlib
import gc
import math
import sys
from typing import Callable, Iterator

SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval during a run (Python's default is 5 ms). The event loop gives up the
GIL at every socket call; while the writer or refresher thread runs Python code (scoring, building rows), the loop
waits up to this long to get it back, once per call: at the default that delays the requests by milliseconds."""


class Pace:
    """Requests in flight and the shortest recent latency: how long, from now, no answer is expected (`lull`).

    The oldest request in flight was sent at t; no answer among the last `window` came back sooner than `shortest`
    after its request; so the next answer is not expected before t + shortest. While answers of a burst are still
    coming, the oldest request in flight is one of the burst's (sent a latency ago): no lull. Once the burst is
    handled, every request in flight was sent during it: the lull is about one latency minus the burst's length.
    With no latency seen yet there is no lull; with nothing in flight it is endless. Varied latencies only shorten
    the prediction (the shortest one counts), so the writer falls back on its size and clock rules.
    """

    def __init__(self, clock: Callable[[], float], window: int = 64):
        self.clock = clock
        self._sent: dict[int, float] = {}  # request token -> when it was sent; insertion order is sending order
        self._latencies: collections.deque[float] = collections.deque(maxlen=max(1, window))
        self._tokens = 0

    def sent(self) -> int:
        """A request goes out now; returns its token for `answered`."""
        self._tokens += 1
        self._sent[self._tokens] = self.clock()
        return self._tokens

    def answered(self, token: int, ok: bool = True) -> None:
        """The request is done; an answer (`ok`) teaches its latency, a failure only ends it."""
        began = self._sent.pop(token, None)
        if ok and began is not None:
            self._latencies.append(self.clock() - began)

    @property
    def in_flight(self) -> int:
        """Requests sent and not yet answered."""
        return len(self._sent)

    def lull(self) -> float:
        """Seconds from now before the next answer is expected (0 when one may come at any moment)."""
        if not self._sent:
            return math.inf
        if not self._latencies:
            return 0.0
        oldest = next(iter(self._sent.values()))
        return max(0.0, oldest + min(self._latencies) - self.clock())


@contextlib.contextmanager
def responsive_loop() -> Iterator[None]:
    """During a run: a short thread switch interval (`SWITCH_INTERVAL_S`), and the objects alive at its start
    frozen out of the cyclic garbage collector (`gc.freeze`), whose full collections over every imported module's
    objects otherwise stop the event loop for 50-90 ms a few times a run. Both are restored at its end."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL_S))
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        sys.setswitchinterval(interval)
