"""The runner's shared records: the model (`Backend`), where results go (`Sink`), a cell, its status and a job.

`evaluator.run`, its writer (`evaluator.run_writer`) and the log-probability path (`evaluator.logprob_choice`) all
use them; they live here so that none of those modules imports another for its types.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from evaluator.clients import Completion, OptionScore
from evaluator.prompts import Rendered
from evaluator.spec import Item, ItemResult, TaskSpec


class Backend(Protocol):
    """What the runner needs from a model: `ModelClient` (HTTP) or `backends.llamacpp.LlamaCppBackend`."""

    async def chat(self, messages: list[dict], *, temperature: float, top_p: float, max_tokens: int,
                   extra_body: Mapping[str, Any] | None = None) -> Completion: ...

    async def option_logprob(self, prompt: str, option: str) -> OptionScore: ...


class Sink(Protocol):
    """Where results go: the store through `services.ingest`, or a list in tests."""

    def prepare(self, items: Sequence[Item]) -> None:
        """Whatever a commit needs first (e.g. the registry's rows, and the rows of `items`: the items of the jobs
        planned since the last call); runs on the writer thread before the first `save_many`, and again before a
        later one once more of the plan is built (`preparer`)."""

    def stored_many(self, cells: Sequence["Cell"]) -> Mapping[tuple, set[tuple[str, str]]]:
        """(item_id, order) pairs already stored, by cell key (`Cell.key`), for every cell of the plan at once;
        called once per run (a rerun too), on the event loop's thread before the writer's thread starts (so the
        first requests wait for this query alone: ~1 ms), then every other call runs on the writer's threads."""

    def save_many(self, rows: Sequence[tuple["Cell", Mapping[str, Any], Item, ItemResult]]) -> None:
        """Persist scored results (cell, run settings, item, result) in one transaction, committed on return."""

    def refresh(self, cells: Sequence["Cell"]) -> Sequence[Any]:
        """Recompute the aggregates of these (task, lang, prompt language) cells over all their runs; returns one
        headline score (0-100) or None per cell, for the summary.

        Called from a second thread while answers of other cells are still being saved (use a separate cursor).
        A sink may also offer `read_ahead(cells)`: the writer calls it on that thread in the run's last round with
        the (task, lang, prompt language) cells still unfinished, so that their refresh can read less once their last
        answers are in (`services.live.StoreSink.read_ahead`); and `save_refresh(rows, cells)`: `save_many` and
        `refresh` in one transaction, which the writer calls on that thread for the run's last group and the cells
        it finishes (`services.live.StoreSink.save_refresh`; if it raises, nothing of it may be written).
        """


@dataclass(frozen=True)
class Cell:
    """One run of one task in one language and prompt language."""

    task: TaskSpec
    lang: str
    prompt_lang: str
    """"en" or "native"."""
    run_no: int = 1
    """Repeat number, from 1."""

    @property
    def key(self) -> tuple[str, str, str, int]:
        """(task, lang, prompt_lang, run_no)."""
        return self.task.name, self.lang, self.prompt_lang, self.run_no


@dataclass
class CellStatus:
    """Counts for the final summary table."""

    cell: Cell
    total: int = 0
    resumed: int = 0
    asked: int = 0
    failed: int = 0
    error: str | None = None
    score: Any = None


@dataclass(frozen=True)
class Job:
    """One request to make (one item, one option order)."""

    cell: Cell
    item: Item
    order: str
    rendered: Rendered
    truncated: Mapping[str, Any] | None
