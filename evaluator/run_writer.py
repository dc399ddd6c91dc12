"""The runner's one writer: answers are scored and stored in groups on a thread of their own, behind a bounded queue.

See `AnswerWriter` for the bound on what a kill can lose; `evaluator.run` hands it every answer.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from evaluator.scoring import score_prediction
from evaluator.spec import Prediction

if TYPE_CHECKING:
    from evaluator.run import CellStatus, Job, Sink

GROUP_WAIT_S = 0.2
"""A group of answers is committed at the latest this long after its first answer arrived."""

REFRESH_PAUSE = 1.0
"""A finished cell's aggregates are refreshed at once, unless the last refresh ended less than this many times its
own duration ago: then the cells finished meanwhile wait and share the next call (each call recomputes the model's
roll-ups and ranks once). So refreshing takes at most half the time however many small cells finish, the run's
last cell is refreshed right after its last commit, and a run's tail is that one cell plus the roll-ups."""


def group_size(concurrency: int) -> int:
    """Answers per group at most, which is also how many answered-but-uncommitted answers may wait: 4 x C, at
    least 8. At full speed the 200 ms clock closes groups of about C x 0.2 s / L answers; the room beyond that
    absorbs a slow commit (a loaded machine) without stalling the requests."""
    return max(8, 4 * concurrency)


class AnswerWriter:
    """One writer for every answer: scores and stores them in groups on its own thread, behind a bounded queue.

    The writer first runs the sink's `prepare` on its thread, once the first answer is in. A request's slot is
    freed as soon as its answer is handed over (`put`); the writer commits a group when it holds
    `size` answers or `GROUP_WAIT_S` after the group's first answer arrived. At most `size` answers wait uncommitted
    (queued or in the commit under way): `put` blocks when that many do (back-pressure on the requests), so a killed
    run loses at most C answers in flight plus `size` handed over, and a restart asks only for those.
    """

    def __init__(self, sink: Sink, settings: Mapping[tuple, Mapping[str, Any]], size: int,
                 on_commit: Callable[[Sequence[Job]], None]):
        self.sink, self.settings, self.size, self.on_commit = sink, settings, max(1, size), on_commit
        self.thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tanaw-writer")
        self.refresher = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tanaw-refresh")
        self._pending: list[tuple[Job, Prediction, dict]] = []
        self._first_at = 0.0  # when the first of `_pending` arrived
        self._arrived = asyncio.Event()  # set on a group's first answer, when it is full, and on `drain`
        self._draining = False
        self._room = asyncio.Semaphore(self.size)
        self._task: asyncio.Task | None = None
        self.error: BaseException | None = None
        self._ready: list[list] = []
        self._wake = asyncio.Event()
        self._refreshing: asyncio.Task | None = None
        self._closing = False

    def _commit(self, batch: Sequence[tuple[Job, Prediction, dict]]) -> None:
        rows = []
        for job, pred, extras in batch:
            result = score_prediction(job.cell.task, job.item, pred)
            result = dataclasses.replace(result, extras={**result.extras, **extras})
            rows.append((job.cell, self.settings[job.cell.key], job.item, result))
        self.sink.save_many(rows)

    def start(self, prepare: Callable[[], Any]) -> None:
        """Start the writer; it runs `prepare` on its thread when the first answer arrives (so not beside the run's
        first requests, which it would slow), before the first commit."""
        self._task = asyncio.get_running_loop().create_task(self._loop(prepare))

    async def put(self, job: Job, pred: Prediction, extras: dict) -> None:
        """Hand one answer to the writer; waits only while `size` answers are uncommitted (raises a failed commit)."""
        await self._room.acquire()
        if self.error is not None:
            self._room.release()
            raise self.error
        self._pending.append((job, pred, extras))
        if len(self._pending) == 1:
            self._first_at = asyncio.get_running_loop().time()
            self._arrived.set()
        elif len(self._pending) >= self.size:
            self._arrived.set()

    async def _next_group(self) -> list | None:
        """The next group: once answers wait, when they fill a group, `GROUP_WAIT_S` after the first of them, or
        at `drain`; None once drained. (Answers are not woken for one by one: only a group's first, a full group and
        the clock wake the writer.)"""
        loop = asyncio.get_running_loop()
        while True:
            ready = self._pending and (self._draining or len(self._pending) >= self.size
                                       or loop.time() >= self._first_at + GROUP_WAIT_S)
            if ready:
                group, self._pending = self._pending, []  # never more than `size`: `_room` holds the rest back
                return group
            if self._draining and not self._pending:
                return None
            self._arrived.clear()
            timer = loop.call_at(self._first_at + GROUP_WAIT_S, self._arrived.set) if self._pending else None
            try:
                await self._arrived.wait()
            finally:
                if timer is not None:
                    timer.cancel()

    async def _loop(self, prepare: Callable[[], Any]) -> None:
        loop = asyncio.get_running_loop()
        await self._arrived.wait()  # the first answer, or `drain`
        try:
            await loop.run_in_executor(self.thread, prepare)
        except BaseException as exc:  # every later put and `drain` raise it
            self.error = exc
            self._room.release()  # wakes one waiting put, which wakes the next (each releases before raising)
            return
        while (group := await self._next_group()) is not None:
            try:
                await loop.run_in_executor(self.thread, self._commit, group)
            except BaseException as exc:  # every later put and `drain` raise it
                self.error = exc
                for _ in group:
                    self._room.release()
                return
            for _ in group:
                self._room.release()
            self.on_commit([job for job, _, _ in group])

    async def drain(self) -> None:
        """Commit every answer handed over, stop the writer and raise what a commit raised."""
        if self._task is not None:
            self._draining = True
            self._arrived.set()
            await self._task
        if self.error is not None:
            raise self.error

    async def call(self, fn: Callable, *args: Any) -> Any:
        """Run a sink call on the writer thread (the sink's connection is used from that thread only)."""
        return await asyncio.get_running_loop().run_in_executor(self.thread, fn, *args)

    def refresh_later(self, statuses: Sequence["CellStatus"]) -> None:
        """Queue a finished cell (the statuses of its runs) for an aggregate refresh, off the writer thread: at once
        when the refresher is idle and has rested (`REFRESH_PAUSE`), else together with the other cells waiting."""
        self._ready.append(list(statuses))
        self._wake.set()
        if self._refreshing is None:
            self._refreshing = asyncio.get_running_loop().create_task(self._refresh_loop())

    async def _refresh_loop(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:  # the state is checked before every wait (no await in between), so no wake-up is missed
            if self._ready and (self._closing or loop.time() >= due):
                batch, self._ready = self._ready, []
                began = loop.time()
                scores = await loop.run_in_executor(self.refresher, self.sink.refresh, [b[0].cell for b in batch])
                for statuses, score in zip(batch, scores):
                    for status in statuses:
                        status.score = score
                due = loop.time() + REFRESH_PAUSE * (loop.time() - began)
                continue
            if self._closing:
                return
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), max(0.0, due - loop.time()) if self._ready else None)
            except TimeoutError:
                pass

    async def refreshed(self) -> None:
        """Wait for every queued refresh (raises what a refresh raised)."""
        self._closing = True
        self._wake.set()
        if self._refreshing is not None:
            await self._refreshing

    def close(self) -> None:
        """Stop the writer task (if a failure left it running) and wait for the writer and refresher threads."""
        for task in (self._task, self._refreshing):
            if task is not None and not task.done():
                task.cancel()
        self.thread.shutdown(wait=True)
        self.refresher.shutdown(wait=True)
