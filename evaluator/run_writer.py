"""The runner's one writer: answers are scored and stored in groups on a thread of their own, behind a bounded queue.

See `AnswerWriter` for the bound on what a kill can lose; `evaluator.run` hands it every answer, and `Ledger`
tells it when a cell is finished.

The run's rhythm (`Pace`): C requests sent together come back together, about one latency later, and the next C go
out as those answers are handled, so answers arrive in bursts with idle gaps between them. Work on the writer's
threads (group commits, aggregate refreshes) takes the interpreter from the event loop while it runs Python code;
during a burst that delays every request sent in it, in a gap it costs the requests nothing. `Pace` predicts the gap.
"""
from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import dataclasses
import itertools
import math
from typing import Any, Callable, Collection, Mapping, Sequence

from evaluator.run_types import CellStatus, Job, Sink
from evaluator.scoring import score_prediction
from evaluator.spec import Prediction


GROUP_WAIT_S = 0.2
"""A group of answers is committed at the latest this long after its first answer arrived."""

GROUP_QUIET_S = 0.002
"""Once no answer has come for this long, the writer asks the run's `Pace` whether the next answer is further away
than a commit takes: then the group is committed at once, in the gap between two bursts of answers (see
`Pace`), if it holds at least `AnswerWriter.lull_group` answers."""

GAP_MIN_S = 0.02
"""The shortest gap a commit is started in, whatever the last one took (the first has no measure)."""

REFRESH_PAUSE = 1.0
"""A finished cell's aggregates are refreshed at once, unless the last refresh ended less than this many times its
own duration ago: then the cells finished meanwhile wait and share the next call (each call recomputes the model's
roll-ups and ranks once). So refreshing takes at most half the time however many small cells finish, the run's
last cell is refreshed in its last commit's transaction (with any cell still waiting), and a run's tail is that
one commit: its last answers, that cell and the roll-ups."""


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


def group_size(concurrency: int) -> int:
    """Answers per group at most, which is also how many answered-but-uncommitted answers may wait: 4 x C, at
    least 8. Groups close earlier, in the gap after each burst of answers (about C answers when C requests go out
    together), or by the 200 ms clock (about C x 0.2 s / L answers); the room beyond that absorbs a slow commit (a
    loaded machine) without stalling the requests."""
    return max(8, 4 * concurrency)


class AnswerWriter:
    """One writer for every answer: scores and stores them in groups on its own thread, behind a bounded queue.

    Each commit first runs the run's `prepare` (the sink's preparation of what was planned since). A request's slot
    is freed as soon as its answer is handed over (`put`); the writer commits a group when it holds `size` answers,
    `GROUP_WAIT_S` after the group's first answer arrived, or earlier in a gap between bursts of answers
    (`GROUP_QUIET_S`, `Pace`). At most `size` answers wait uncommitted (queued or in the commit under
    way): `put` blocks when that many do (back-pressure on the requests), so a killed run loses at most C answers in
    flight plus `size` handed over, and a restart asks only for those.

    The run's last group (every request sent and answered) is committed in one transaction with the refresh of the
    cells it finishes, when the sink offers `save_refresh` and `finishing` names them (`Ledger.finishing`): the
    run's end then waits for one commit, not a commit and then a refresh. `on_commit(jobs)` follows every commit;
    after such a last one `on_commit(jobs, refreshed)` names the cells already refreshed.
    """

    def __init__(self, sink: Sink, settings: Mapping[tuple, Mapping[str, Any]], size: int,
                 on_commit: Callable[..., None], pace: Pace | None = None, lull_group: int = 1,
                 unfinished: Callable[[], list[tuple]] | None = None,
                 finishing: Callable[[Sequence[Job]], list[list[CellStatus]]] | None = None):
        self.sink, self.settings, self.size, self.on_commit = sink, settings, max(1, size), on_commit
        self.unfinished, self.finishing = unfinished, finishing
        self.pace, self.lull_group = pace, max(1, lull_group)
        self.thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tanaw-writer")
        self.refresher = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tanaw-refresh")
        self._pending: list[tuple[Job, Prediction, dict, tuple | None]] = []  # with its row once scored
        self._first_at = 0.0  # when the first of `_pending` arrived
        self._last_at = 0.0  # when the last of `_pending` arrived
        self._want_next = False  # the writer waits for the next answer (quiet, but no gap long enough yet)
        self._last_round = False  # every request is sent: no gap is waited for
        self._commit_s = 0.0  # how long the last commit took
        self._arrived = asyncio.Event()  # set on a group's first answer, when it is full, and on `drain`
        self._draining = False
        self._room = asyncio.Semaphore(self.size)
        self._task: asyncio.Task | None = None
        self.error: BaseException | None = None
        self._ready: list[list] = []
        self._wake = asyncio.Event()
        self._refreshing: asyncio.Task | None = None
        self._prepare: Callable[[], Any] | None = None  # run before every commit
        self._refresh_s = 0.0  # how long the last refresh took
        self._closing = False
        self._last_commit = False  # the run's last group is being committed with its cells' refresh

    def _row(self, job: Job, pred: Prediction, extras: dict) -> tuple:
        """One answer's row for the sink: (cell, settings, item, scored result with the answer's extras)."""
        result = score_prediction(job.cell.task, job.item, pred)
        return job.cell, self.settings[job.cell.key], job.item, dataclasses.replace(
            result, extras={**result.extras, **extras})

    def _scored(self, batch: Sequence[tuple[Job, Prediction, dict, tuple | None]]) -> list[tuple]:
        """The sink's preparation of what was planned since the last commit, then the group's rows (those not
        scored on arrival are scored now)."""
        if self._prepare is not None:
            self._prepare()
        return [row if row is not None else self._row(job, pred, extras) for job, pred, extras, row in batch]

    def _commit(self, batch: Sequence[tuple[Job, Prediction, dict, tuple | None]]) -> None:
        self.sink.save_many(self._scored(batch))

    def _commit_refresh(self, batch: Sequence[tuple[Job, Prediction, dict, tuple | None]],
                        cells: Sequence[Sequence[CellStatus]]) -> list | None:
        """The group and the refresh of `cells` (each its runs' statuses) in one transaction (`save_refresh`), on
        the refresher's thread (after any refresh under way); their values, or None when that failed and the group
        was then committed alone (its cells are refreshed the usual way, which raises the error again if it
        persists; a group that cannot be stored raises here)."""
        rows = self._scored(batch)
        try:
            return list(self.sink.save_refresh(rows, [statuses[0].cell for statuses in cells]))
        except Exception:  # noqa: BLE001 - nothing of it was written: the two steps again, apart
            self.sink.save_many(rows)
            return None

    def _last_cells(self, batch: Sequence[tuple[Job, Prediction, dict, tuple | None]]) -> list[list[CellStatus]]:
        """When `batch` is the run's last group (every request sent and answered) and the sink can store it with a
        refresh: the cells to refresh with it, those it finishes and those waiting for a refresh (taken from the
        queue); else none."""
        if not (self._all_answered() and self.finishing is not None and hasattr(self.sink, "save_refresh")):
            return []
        done = self.finishing([job for job, *_ in batch])
        if not done:
            return []
        cells, self._ready = self._ready + done, []
        return cells

    def start(self, prepare: Callable[[], Any]) -> None:
        """Start the writer; every commit runs `prepare` first, on its thread (so neither beside the run's first
        requests nor beside the first burst of answers, which it would slow); it does nothing when nothing new was
        planned (`evaluator.run.preparer`)."""
        self._prepare = prepare
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def put(self, job: Job, pred: Prediction, extras: dict) -> None:
        """Hand one answer to the writer; waits only while `size` answers are uncommitted (raises a failed commit)."""
        await self._room.acquire()
        if self.error is not None:
            self._room.release()
            raise self.error
        row = None
        if self._last_round:  # every request is sent: scored here, the answer delays no request, and the run's
            try:  # last commit does not wait for its scoring
                row = self._row(job, pred, extras)
            except Exception:  # noqa: BLE001 - scored again by its commit, which raises it there
                row = None
        self._pending.append((job, pred, extras, row))
        self._last_at = asyncio.get_running_loop().time()
        if len(self._pending) == 1:
            self._first_at = self._last_at
            self._arrived.set()
        elif self._want_next or len(self._pending) >= self.size or self._all_answered():
            self._want_next = False
            self._arrived.set()

    def _all_answered(self) -> bool:
        """Every request is sent and none is in flight: the run's last answers are all in."""
        return self._last_round and self.pace is not None and not self.pace.in_flight

    def _in_lull(self, needed: float) -> bool:
        """Whether no answer is expected for at least `needed` seconds: then store work delays no answer."""
        return self.pace is not None and self.pace.lull() >= max(needed, GAP_MIN_S)

    def last_round(self) -> None:
        """Every request is sent: from now on a quiet group of any size is committed in a gap, and the last answers
        as one group the moment the last of them is in (not in pieces while they arrive: each piece's commit would
        slow reading the rest, and the last answer would wait for the piece under way), so the run's end waits for
        that one commit only. From now on each answer is scored as it arrives, on the event loop (no request is
        sent any more that it could delay), so that commit does not score them. The refresher meanwhile takes the
        reads of the refresh that follows (`_read_ahead`), so that it does not read after the last commit."""
        self._last_round = True
        self._arrived.set()
        self._read_ahead()

    def _read_ahead(self) -> None:
        """In the last round, on the refresher's thread after any refresh under way: the sink's reads for the
        unfinished cells' refresh (`read_ahead`, when it has one), taken now while answers are in flight; again
        after each refresh of the last round, for the cells still unfinished (a refresh of other cells than those
        read leaves them unused). Not while finished cells wait for their refresh: it would write what the reads
        see before theirs. A failed read only means that the refresh reads for itself."""
        if self._ready or self._last_commit:
            return
        read_ahead = getattr(self.sink, "read_ahead", None)
        cells = self.unfinished() if read_ahead is not None and self.unfinished is not None else []
        if cells:
            self.refresher.submit(_quietly, read_ahead, cells)

    def _group_ready(self, now: float) -> bool:
        """A group is due: full, `GROUP_WAIT_S` old, draining, or quiet in a gap longer than a commit."""
        if not self._pending:
            return False
        if self._draining or len(self._pending) >= self.size or now >= self._first_at + GROUP_WAIT_S:
            return True
        if self._all_answered():
            return True
        return (self.pace is not None and (self._last_round or len(self._pending) >= self.lull_group)
                and now >= self._last_at + GROUP_QUIET_S and self._in_lull(self._commit_s))

    async def _next_group(self) -> list | None:
        """The next group: once answers wait, when they fill a group, `GROUP_WAIT_S` after the first of them, in a
        gap between bursts of answers (`_group_ready`), or at `drain`; None once drained. (Answers are not woken for
        one by one: only a group's first, a full group, the clocks and, once quiet, the next answer wake the
        writer.)"""
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            if self._group_ready(now):
                group, self._pending = self._pending, []  # never more than `size`: `_room` holds the rest back
                return group
            if self._draining and not self._pending:
                return None
            self._arrived.clear()
            timer = None
            if self._pending:
                wake = self._first_at + GROUP_WAIT_S
                if self.pace is not None:
                    quiet_at = self._last_at + GROUP_QUIET_S
                    if quiet_at > now:
                        wake = min(wake, quiet_at)
                    else:  # quiet, but the next answer is near: look again when it comes
                        self._want_next = True
                timer = loop.call_at(wake, self._arrived.set)
            try:
                await self._arrived.wait()
            finally:
                if timer is not None:
                    timer.cancel()

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        while (group := await self._next_group()) is not None:
            began = loop.time()
            cells = self._last_cells(group)
            values = None
            try:
                if cells:
                    self._last_commit = True
                    values = await loop.run_in_executor(self.refresher, self._commit_refresh, group, cells)
                else:
                    await loop.run_in_executor(self.thread, self._commit, group)
            except BaseException as exc:  # every later put and `drain` raise it
                self.error = exc
                for _ in group:
                    self._room.release()
                return
            finally:
                self._last_commit = False
            self._commit_s = loop.time() - began
            for _ in group:
                self._room.release()
            jobs = [job for job, *_ in group]
            if values is None:
                if cells:  # committed alone: the cells that waited go back to the queue
                    asked = {job.cell.key[:3] for job in jobs}
                    for statuses in cells:
                        if statuses[0].cell.key[:3] not in asked:
                            self.refresh_later(statuses)
                self.on_commit(jobs)
                continue
            for statuses, value in zip(cells, values):
                for status in statuses:
                    status.score = value
            self.on_commit(jobs, {statuses[0].cell.key[:3] for statuses in cells})

    async def drain(self) -> None:
        """Commit every answer handed over, stop the writer and raise what a commit raised."""
        if self._task is not None:
            self._draining = True
            self._arrived.set()
            await self._task
        if self.error is not None:
            raise self.error

    def refresh_later(self, statuses: Sequence["CellStatus"]) -> None:
        """Queue a finished cell (the statuses of its runs) for an aggregate refresh, off the writer thread: at once
        when the refresher is idle and has rested (`REFRESH_PAUSE`), else together with the other cells waiting. (The
        commit that finished the cell usually ran in a gap between bursts of answers: so does the refresh.)"""
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
                self._refresh_s = loop.time() - began
                due = loop.time() + REFRESH_PAUSE * self._refresh_s
                if self._last_round:
                    self._read_ahead()
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


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    """Call `fn`; what it raises is dropped (work done only ahead of time, which the caller does again if need be)."""
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - the refresh that would have used it reads for itself
        pass


class Ledger:
    """What is left of each (task, lang, prompt language) cell: once every job of all its runs is stored or failed,
    the cell goes to the writer for an aggregate refresh (`AnswerWriter.refresh_later`)."""

    def __init__(self):
        self.by_key: dict[tuple, CellStatus] = {}
        self.runs_of: dict[tuple, list[CellStatus]] = {}  # (task, lang, prompt language) -> its runs' statuses
        self.remaining: dict[tuple, int] = {}
        self.writer: AnswerWriter | None = None
        self._new: list[tuple] = []  # the (task, lang, prompt language) cells `track` last took

    def track(self, statuses: Sequence[CellStatus], jobs: Mapping[tuple, list[Job]], stored: Mapping[tuple, set]
              ) -> list[Job]:
        """The jobs not stored yet of these cells (the whole plan, or one part of it: every run of a (task, lang,
        prompt language) cell in the same call), cell by cell (so cells finish one after another) and, within a
        cell, its runs' jobs in turn (so every run has answers in the cell's first commit, which writes all its run
        rows at once); counts what was resumed. `start` then counts them in."""
        self.by_key.update({s.cell.key: s for s in statuses})
        new: dict[tuple, list[CellStatus]] = {}
        for s in statuses:
            new.setdefault(s.cell.key[:3], []).append(s)
        self.runs_of.update(new)
        self._new = list(new)
        todo: list[Job] = []
        for runs in new.values():
            per_run = []
            for s in runs:
                cell_jobs = jobs.get(s.cell.key, [])
                if done := stored.get(s.cell.key):
                    kept = [j for j in cell_jobs if (j.item.item_id, j.order) not in done]
                    s.resumed = len(cell_jobs) - len(kept)
                    cell_jobs = kept
                per_run.append(cell_jobs)
            todo.extend(j for turn in itertools.zip_longest(*per_run) for j in turn if j is not None)
        return todo

    def start(self) -> None:
        """Count the jobs of each cell `track` last took; a cell resumed in full is refreshed now (its aggregates
        may predate a kill)."""
        for agg in self._new:
            runs = self.runs_of[agg]
            self.remaining[agg] = sum(s.total - s.resumed for s in runs)
            if self.remaining[agg] == 0 and any(s.resumed for s in runs):
                self.writer.refresh_later(runs)
        self._new = []

    def settle(self, key: tuple, refresh: bool = True) -> None:
        """A job of a cell is done (stored or failed); once every run of its aggregate cell is done, refresh it
        (unless `refresh` is off: its commit refreshed it)."""
        self.remaining[key[:3]] -= 1
        if refresh and self.remaining[key[:3]] == 0 and any(s.asked for s in self.runs_of[key[:3]]):
            self.writer.refresh_later(self.runs_of[key[:3]])

    def unfinished(self) -> list[tuple]:
        """The (task, lang, prompt language) cells with jobs neither stored nor failed yet, sorted."""
        return sorted(agg for agg, left in self.remaining.items() if left > 0)

    def finishing(self, jobs: Sequence[Job]) -> list[list[CellStatus]]:
        """The runs' statuses of each (task, lang, prompt language) cell whose last unsettled jobs these are."""
        counts = collections.Counter(job.cell.key[:3] for job in jobs)
        return [self.runs_of[agg] for agg, n in counts.items() if self.remaining[agg] == n]

    def committed(self, done: Sequence[Job], refreshed: Collection[tuple] = ()) -> None:
        """A group of answers is committed (`refreshed`: the cells its commit also refreshed)."""
        for job in done:
            self.by_key[job.cell.key].asked += 1
            self.settle(job.cell.key, refresh=job.cell.key[:3] not in refreshed)
