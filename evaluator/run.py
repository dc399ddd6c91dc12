"""The model runner: every (task, lang, prompt language, run, item, option order) asked once, concurrently.

Cells come from `registry.select`, items from `datasets.load_items`, prompts from `prompts.render`. At most
`concurrency` (C) requests are in flight; a request's slot is released as soon as its answer arrives and is handed
to one writer (`AnswerWriter`), which scores the answers and stores them in groups: a commit when a group holds
`group_size(C)` = max(8, 4C) answers, 200 ms after its first answer, or earlier in the gap between two bursts of
answers (`run_writer.Pace`), with at most one group's worth of answers waiting uncommitted (back-pressure beyond
that). A killed run therefore loses at most C + max(8, 4C) answers (C in
flight, one group handed over), and a restart asks only for those. The sink is duck-typed (see `Sink`);
`services/run.py` builds one on `services.live`. What to run is a
`runspec.RunSpec`.
"""
from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import math
import sys
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable, Mapping, Sequence

from evaluator import chat, prompts
from evaluator.clients import ClientError, LogprobsUnsupported
from evaluator.datasets import load_items
from evaluator.logprob_choice import ask_by_logprob, continuation  # noqa: F401 - continuation: re-exported
from evaluator.registry import select
from evaluator.run_feed import JobFeed, drain_feed, plan_rest
from evaluator.run_types import Backend, Cell, CellStatus, Job, Sink  # noqa: F401 - re-exported
from evaluator.run_writer import AnswerWriter, Ledger, Pace, group_size  # noqa: F401 - group_size: re-exported
from evaluator.runspec import RunSpec
from evaluator.spec import Item, Prediction, TaskSpec

DOC_FIELDS = ("context", "text")
"""Input fields holding the long document that `TaskSpec.trim_tokens` budgets apply to."""

PLAN_LULL_S = 0.02
"""The rest of a run's plan is built once no answer is expected for this long (`evaluator.run_feed.plan_rest`)."""

APPROX_TOKENIZER = "approx: 1 token per 3 UTF-8 bytes"
"""How documents are measured without the model's tokenizer. The paper counted cl100k_base tokens; for Thai and
Tamil (the only trimmed languages) one token per character, i.e. per 3 UTF-8 bytes, is a close, slightly generous
stand-in."""


async def bounded(jobs: Iterable[Any], fn: Callable[[Any], Awaitable[None]], concurrency: int) -> None:
    """Run `fn(job)` for every job with `concurrency` workers (so at most that many in flight)."""
    it = iter(jobs)

    async def worker() -> None:
        for job in it:
            await fn(job)

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))


def approx_tokens(text: str) -> int:
    """Token count without a tokenizer (see APPROX_TOKENIZER)."""
    return math.ceil(len(text.encode("utf-8")) / 3)


def truncate(text: str, budget: int, count: Callable[[str], int]) -> str:
    """The longest prefix of `text` with at most `budget` tokens (binary search on characters)."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def trim_item(task: TaskSpec, item: Item, count: Callable[[str], int] | None) -> tuple[Item, dict | None]:
    """The item with its document cut to the task's token budget for its language, and what was cut."""
    budget = task.trim_tokens.get(item.lang)
    if not budget:
        return item, None
    count = count or approx_tokens
    inputs, cut = dict(item.inputs), {}
    for name in DOC_FIELDS:
        value = inputs.get(name)
        if isinstance(value, str) and (n := count(value)) > budget:
            inputs[name] = truncate(value, budget, count)
            cut[name] = {"tokens": n, "kept_chars": len(inputs[name]), "chars": len(value)}
    if not cut:
        return item, None
    return dataclasses.replace(item, inputs=inputs), {"budget": budget, "fields": cut}


def settings_for(cell: Cell, opts: RunSpec, tokenizer: str, endpoint: Mapping[str, Any] | None = None) -> dict:
    """The run's recorded settings: generation parameters, endpoint, prompt language, run number."""
    t = cell.task
    gen = {"temperature": t.temperature, "top_p": 1.0, "max_tokens": t.max_tokens, **opts.generation}
    mode = "choice_logprob" if uses_logprobs(t, opts) else t.mode
    compared = {"logprob_of": t.logprob_of} if mode == "choice_logprob" and t.logprob_of != "options" else {}
    return {"mode": mode, **compared, **gen, "prompt_lang": cell.prompt_lang, "run_no": cell.run_no,
            "both_orders": t.both_orders, "system_prompt": opts.system_prompt, "extra_body": dict(opts.request_body),
            "trim_tokens": dict(t.trim_tokens), "token_counter": tokenizer if t.trim_tokens else None,
            **dict(endpoint or {})}


def uses_logprobs(task: TaskSpec, opts: RunSpec) -> bool:
    """Whether the task is answered by option log-likelihood in this run."""
    return task.mode == "choice_logprob" or (opts.logprob_choices and task.extractor == "letter")


def cells_of(opts: RunSpec) -> list[Cell]:
    """Every cell of a spec in plan order: task, language, prompt language, run."""
    return [Cell(task, lang, prompt_lang, run_no) for task, lang in select(opts.tasks, opts.langs)
            for prompt_lang in opts.prompt_langs for run_no in range(1, opts.runs + 1)]


def plan(opts: RunSpec, count: Callable[[str], int] | None = None
         ) -> tuple[list[CellStatus], dict[tuple, list[Job]]]:
    """Every cell with its jobs; cells without a prompt or data get an error and no jobs. A prompt is rendered once
    per (item, prompt language, order) and shared by the cell's runs."""
    statuses, jobs = [], {}
    for part in plan_parts(opts, count):
        part_statuses, part_jobs = part()
        statuses += part_statuses
        jobs |= part_jobs
    return statuses, jobs


def plan_parts(opts: RunSpec, count: Callable[[str], int] | None = None
               ) -> list[Callable[[], tuple[list[CellStatus], dict[tuple, list[Job]]]]]:
    """`plan` in parts, one per (task, language) in plan order, each built when called (the runner sends the first
    part's requests before it builds the others: `evaluator.run_feed`)."""
    return [functools.partial(_plan_part, list(cells), opts, count)
            for _, cells in itertools.groupby(cells_of(opts), key=lambda c: (c.task.name, c.lang))]


def _plan_part(cells: list[Cell], opts: RunSpec, count: Callable[[str], int] | None
               ) -> tuple[list[CellStatus], dict[tuple, list[Job]]]:
    """The cells (every prompt language and run) of one task and language, with their jobs."""
    statuses, jobs = [], {}
    task, lang = cells[0].task, cells[0].lang
    try:
        items = load_items(task, lang, data_dir=opts.data_dir, limit=opts.limit)
        err = None
    except Exception as exc:  # noqa: BLE001 - a missing dataset skips the cell with its reason
        items, err = [], f"no data: {exc}"
    trimmed = [(item, *trim_item(task, item, count)) for item in items]
    prompts_in: dict[str, tuple[list, str | None]] = {}
    for cell in cells:
        if cell.prompt_lang not in prompts_in:
            prompts_in[cell.prompt_lang] = (chat.render_turns(task, trimmed, cell.prompt_lang) if task.mode == "chat"
                                            else _render_all(task, trimmed, cell.prompt_lang, opts.data_dir))
        rendered, no_prompt = prompts_in[cell.prompt_lang]
        status = CellStatus(cell, error=err or no_prompt)
        statuses.append(status)
        jobs[cell.key] = [Job(cell, item, order, r, cut) for item, order, r, cut in rendered]
        status.total = len(jobs[cell.key])
    return statuses, jobs


def _render_all(task: TaskSpec, trimmed: Sequence[tuple[Item, Item, dict | None]], prompt_lang: str, data_dir: Any
                ) -> tuple[list[tuple[Item, str, prompts.Rendered, dict | None]], str | None]:
    """(item, order, prompt, what was cut) for every item and option order, or ([], the reason) without a prompt."""
    out, seen = [], set()
    for item, short, cut in trimmed:
        if item.item_id in seen:  # a repeated id is asked once (its answers share one key in the store)
            continue
        seen.add(item.item_id)
        for order in (("ab", "ba") if task.both_orders else ("ab",)):
            try:
                out.append((item, order, prompts.render(task, short, prompt_lang, order, data_dir=data_dir), cut))
            except prompts.NoNativePrompt as exc:
                return [], f"no prompt: {exc}"
    return out, None


async def ask(backend: Backend, job: Job, opts: RunSpec, history: Sequence[str] | None = None
              ) -> tuple[Prediction, dict]:
    """Send one job (a conversation's turn with the model's answers to the turns before it, `history`); returns the
    prediction and the extras to keep with it."""
    task, r, cell = job.cell.task, job.rendered, job.cell
    extras: dict[str, Any] = {}
    if job.truncated:
        extras["truncated"] = job.truncated
    base = dict(task=task.name, lang=cell.lang, item_id=job.item.item_id, prompt_lang=cell.prompt_lang,
                run=cell.run_no, order=job.order, prompt=prompts.as_text(r))
    if uses_logprobs(task, opts):
        pred, by_logprob = await ask_by_logprob(backend, task, cell.lang, r, base)
        return pred, {**extras, **by_logprob}
    gen = {"temperature": task.temperature, "top_p": 1.0, "max_tokens": task.max_tokens, **opts.generation}
    sent = (chat.messages(job.item, job.order, history) if history is not None
            else prompts.messages(r, system_supported=opts.system_prompt))
    c = await backend.chat(sent, extra_body=opts.request_body, **gen)
    extras["attempts"] = c.attempts
    return Prediction(**base, output=c.text, reasoning=c.reasoning, tokens_in=c.tokens_in, tokens_out=c.tokens_out,
                      latency_s=c.latency_s, finish_reason=c.finish_reason), extras


async def run(backend: Backend, sink: Sink, opts: RunSpec, *, endpoint: Mapping[str, Any] | None = None,
              progress: bool = True, count_tokens: Callable[[str], int] | None = None,
              tokenizer: str = APPROX_TOKENIZER, group: int | None = None) -> list[CellStatus]:
    """Ask everything not yet stored, store the scored answers in groups, refresh each finished cell's aggregates.

    At most `opts.concurrency` (C) requests are in flight and at most `group` (default `group_size(C)`) answers wait
    uncommitted, so a kill loses at most C + group answers; a restart asks only for those. `opts` is the run's spec
    as built by its source (command line, YAML, queue request), used unchanged; `endpoint` is recorded in every
    run's settings (base URL, backend kind, model file).
    """
    settings: dict[tuple, dict] = {}  # filled once planned, before the first answer
    ledger = Ledger()
    pace = Pace(asyncio.get_running_loop().time, window=opts.concurrency)
    book = _turn_book(sink, opts)
    committed = ledger.committed if book is None else _both(ledger.committed, book.committed)
    writer = ledger.writer = AnswerWriter(sink, settings, group or group_size(opts.concurrency), committed,
                                          pace, lull_group=max(1, opts.concurrency // 2), unfinished=ledger.unfinished,
                                          finishing=ledger.finishing)
    if book is not None:
        book.broken = lambda: writer.error
    bars: dict = {}
    early: dict[str, int] = {}  # jobs done per task before the progress bars exist

    async def one(job: Job) -> None:
        status = ledger.by_key[job.cell.key]
        if status.error:  # the cell failed for good (e.g. no log-probabilities): skip the rest quietly
            status.failed += 1
            ledger.settle(job.cell.key)
            return
        try:  # a conversation's turn waits for the turns before it to be stored, before it takes a request slot
            history = await book.history(job) if book is not None else None
        except ClientError as exc:
            status.failed += 1
            status.error = status.error or str(exc)
            book.failed(job, str(exc))
            ledger.settle(job.cell.key)
            return
        token = pace.sent()
        try:
            pred, extras = await ask(backend, job, opts, history)
        except LogprobsUnsupported as exc:
            pace.answered(token, ok=False)
            status.error, status.failed = f"log-probabilities unavailable: {exc}", status.failed + 1
            ledger.settle(job.cell.key)
        except ClientError as exc:
            pace.answered(token, ok=False)
            status.failed += 1
            status.error = status.error or str(exc)
            if book is not None:
                book.failed(job, str(exc))
            ledger.settle(job.cell.key)
        except BaseException:
            pace.answered(token, ok=False)
            raise
        else:
            pace.answered(token)
            if book is not None:
                book.answered(job, pred.output)
            await writer.put(job, pred, extras)  # the slot is free once the writer has the answer
        if job.cell.task.name in bars:
            bars[job.cell.task.name].update(1)
        else:  # done before the bars exist (they come once the whole plan is built)
            early[job.cell.task.name] = early.get(job.cell.task.name, 0) + 1

    try:
        parts = plan_parts(opts, count_tokens)
        # what is already stored: one query, before the first part is planned (nothing else runs yet)
        stored = sink.stored_many(cells_of(opts))
        first = parts[0]() if parts else ([], {})
        stored = {} if opts.rerun else stored  # a rerun asks everything again
        counted = tokenizer if count_tokens else APPROX_TOKENIZER
        planned = _Planned(ledger, stored, settings,
                           lambda cell: settings_for(cell, opts, counted, endpoint))
        statuses = planned.statuses

        def progress_bars() -> list:
            bars.update(_progress(statuses, progress, early))
            return []

        feed = JobFeed(writer.last_round)
        writer.start(preparer(sink, planned))
        feed.add(planned.add(first))
        rest = [functools.partial(lambda p: planned.add(p()), p) for p in parts[1:]] + [progress_bars]
        planner = asyncio.ensure_future(plan_rest(feed, lambda: bool(pace.in_flight) and pace.lull() >= PLAN_LULL_S,
                                                  rest))
        try:
            await drain_feed(feed, one, opts.concurrency)
        finally:
            if not planner.done():
                planner.cancel()
        await planner
        await writer.drain()
        await writer.refreshed()
    finally:
        for bar in bars.values():
            bar.close()
        writer.close()
    return statuses


def _turn_book(sink: Sink, opts: RunSpec) -> chat.TurnBook | None:
    """For a run with conversation tasks: the book of their turns, holding the turns already stored (unless the run
    asks everything again); None otherwise."""
    cells = [c for c in cells_of(opts) if c.task.mode == "chat"]
    if not cells:
        return None
    stored = {} if opts.rerun or not hasattr(sink, "stored_turns") else sink.stored_turns(cells)
    return chat.TurnBook(stored)


def _both(first: Callable[..., None], then: Callable[[Sequence[Job]], None]) -> Callable[..., None]:
    """An `on_commit` calling `first` with everything, then `then` with the committed jobs."""
    def on_commit(jobs: Sequence[Job], *rest: Any) -> None:
        first(jobs, *rest)
        then(jobs)
    return on_commit


@dataclass
class _Planned:
    """The part of a run's plan built so far: its cells' statuses in plan order and the jobs to ask, each cell's
    settings recorded and its jobs counted by the ledger."""

    ledger: Ledger
    stored: Mapping[tuple, set]
    settings: dict[tuple, dict]
    settings_of: Callable[[Cell], dict]
    statuses: list[CellStatus] = dataclasses.field(default_factory=list)
    jobs: list[Job] = dataclasses.field(default_factory=list)

    def add(self, part: tuple[list[CellStatus], dict[tuple, list[Job]]]) -> list[Job]:
        """Take one part of the plan (`plan_parts`); its jobs not stored yet, in the order to ask them."""
        part_statuses, part_jobs = part
        self.statuses.extend(part_statuses)
        self.settings.update({s.cell.key: self.settings_of(s.cell) for s in part_statuses})
        todo = self.ledger.track(part_statuses, part_jobs, self.stored)
        self.jobs.extend(todo)
        self.ledger.start()
        return todo


def preparer(sink: Sink, planned: "_Planned") -> Callable[[], None]:
    """What the writer runs before each commit, on its thread: the sink's `prepare` of the items of the jobs planned
    since its last call (the first call always: the registry's rows), nothing when no job was planned since. So the
    rest of a plan built after the first commit (`run_feed.plan_rest`, in a quiet stretch that may come later) has its
    item rows written by the next commit in one append, not item by item in the groups that answer them (the last
    group's commit, which the run's end waits for, among them)."""
    done: int | None = None  # jobs prepared so far (None: never called)

    def prepare() -> None:
        nonlocal done
        n = len(planned.jobs)  # appended on the event loop's thread; a slice up to n is what was planned by now
        if done == n:
            return
        sink.prepare(_items_of(planned.jobs[done or 0:n]))
        done = n
    return prepare


def _items_of(jobs: Sequence[Job]) -> list[Item]:
    """The distinct items of these jobs, in order."""
    return list({(j.item.task, j.item.lang, j.item.item_id): j.item for j in jobs}.values())


def _progress(statuses: Sequence[CellStatus], enabled: bool, done: Mapping[str, int]) -> dict:
    """One tqdm bar per task on stderr (disabled when stderr is not a terminal), starting from the jobs `done`."""
    if not enabled:
        return {}
    from tqdm import tqdm

    totals: dict[str, int] = {}
    for s in statuses:
        totals[s.cell.task.name] = totals.get(s.cell.task.name, 0) + s.total - s.resumed
    return {name: tqdm(total=n, initial=done.get(name, 0), desc=name, position=i, file=sys.stderr, leave=True,
                       disable=None, dynamic_ncols=True)
            for i, (name, n) in enumerate(totals.items()) if n}


def summary_table(statuses: Sequence[CellStatus]) -> str:
    """The final table: one line per cell with counts, headline score and any error."""
    head = f"{'task':<28}{'lang':<5}{'prompt':<7}{'run':>4}{'items':>7}{'resumed':>8}{'asked':>7}{'failed':>7}" \
           f"{'score':>8}  note"
    lines = [head, "-" * len(head)]
    for s in statuses:
        score = f"{s.score:.1f}" if isinstance(s.score, (int, float)) else "–"
        lines.append(f"{s.cell.task.name:<28}{s.cell.lang:<5}{s.cell.prompt_lang:<7}{s.cell.run_no:>4}{s.total:>7}"
                     f"{s.resumed:>8}{s.asked:>7}{s.failed:>7}{score:>8}  {s.error or ''}")
    return "\n".join(lines)
