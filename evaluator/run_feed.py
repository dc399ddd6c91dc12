"""The runner's job feed: requests start while the rest of the plan is still being built.

Planning a run (loading every cell's items, rendering every prompt) takes milliseconds per task and language, which
would all pass before the first request. Instead the first (task, language) is planned, its requests go out, and the
rest is planned in the first quiet stretch while the endpoint answers (`plan_rest`); workers that run out of jobs
before then simply wait for more (`JobFeed`).
"""
from __future__ import annotations

import asyncio
import collections
from typing import Any, Awaitable, Callable, Iterable


class JobFeed:
    """Jobs handed out in the order added; a worker that finds none waits until more are added or the feed is
    closed. `on_last`: called once, when the last job of a closed feed is handed out."""

    def __init__(self, on_last: Callable[[], None] = lambda: None):
        self._jobs: collections.deque = collections.deque()
        self._more = asyncio.Event()
        self._closed = False
        self._on_last = on_last
        self.waiting = 0
        """Workers waiting for a job."""

    def add(self, jobs: Iterable[Any]) -> None:
        """Queue more jobs (after those already queued)."""
        self._jobs.extend(jobs)
        self._more.set()

    def close(self) -> None:
        """No job will be added any more."""
        self._closed = True
        self._more.set()
        if not self._jobs:
            self._last()

    def _last(self) -> None:
        on_last, self._on_last = self._on_last, lambda: None
        on_last()

    async def next(self) -> Any | None:
        """The next job, waiting for one while the feed is open; None once it is closed and empty."""
        while not self._jobs:
            if self._closed:
                return None
            self._more.clear()
            self.waiting += 1
            try:
                await self._more.wait()
            finally:
                self.waiting -= 1
        job = self._jobs.popleft()
        if self._closed and not self._jobs:
            self._last()
        return job


async def drain_feed(feed: JobFeed, fn: Callable[[Any], Awaitable[None]], concurrency: int) -> None:
    """Run `fn(job)` for every job of the feed with `concurrency` workers (so at most that many in flight)."""
    async def worker() -> None:
        while (job := await feed.next()) is not None:
            await fn(job)

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))


async def plan_rest(feed: JobFeed, quiet: Callable[[], bool], rest: Iterable[Callable[[], Iterable[Any]]],
                    poll_s: float = 0.002) -> None:
    """Plan the rest of a run in the first quiet stretch: once `quiet()` says no answer is expected for a while (the
    first requests are out and their answers not due: `run_writer.Pace.lull`), or as soon as a worker waits for a
    job, build each remaining part (`rest`: callables returning jobs) and queue its jobs; close the feed at the end.
    (Building it while the first requests open their connections would delay them by as much: their callbacks
    wait for the interpreter.)"""
    try:
        while not (quiet() or feed.waiting):
            await asyncio.sleep(poll_s)
        for part in rest:
            feed.add(part())
            if feed.waiting:  # let waiting workers start before the next part is built
                await asyncio.sleep(0)
    finally:
        feed.close()
