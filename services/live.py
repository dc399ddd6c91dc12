"""The live sink: answers of a running evaluation into the store, one transaction per group.

`evaluator.run` hands the writer groups of scored answers (by size, or every ≤ 200 ms); each group is one
transaction of one Arrow insert per table (`store.live`), so an interrupted run keeps every committed group and
resumes by asking only what is missing (`StoreSink.stored`).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Collection, Mapping, Sequence

import duckdb

from evaluator.run import Cell
from evaluator.spec import Item, ItemResult
from services import refresh_inputs
from services.ingest import RANKED_ORIGINS, content_hash, refresh_aggregates, run_id, sync_registry
from store import cell_rows, live, writer
from store.db import transaction


FRESH_PAIRS_MAX = 20_000
"""At most this many answers of one cell are kept in memory for its refresh (`StoreSink.refresh`); a bigger cell is
read back from the store instead."""

REGISTRY = ("registry",)
"""The mark in `known` that this process has written the registry's rows."""
MODEL = "model"
"""(MODEL, model_id) in `known`: the model's row is written."""


@dataclass
class LiveGroup:
    """A group of live answers ready to be written (`live_group`): its rows per table, the items and runs this
    process has not written yet."""

    model_id: str
    by_run: dict[str, list]
    new_items: dict[tuple, Item]
    rows_of: dict[bool, tuple[list, list, list]]
    fresh_runs: list[str]

    def written(self) -> set:
        """What `known` holds once the group is committed and it does not hold before: its new items and runs
        and, with new runs, the marks that the registry's and the model's rows are written."""
        marks = {REGISTRY, (MODEL, self.model_id)} if self.fresh_runs else set()
        return {*self.new_items, *self.fresh_runs, *marks}


def live_group(model_id: str, rows: Sequence[tuple[Mapping[str, Any], Item, ItemResult]], known: set,
               unstored: Collection[str] = ()) -> LiveGroup:
    """The rows `write_live` writes for these answers (see `save_live` for `rows`, `known` and `unstored`)."""
    by_run: dict[str, list] = {}
    ids: dict[tuple, str] = {}  # each run's id hashed once per call, not once per answer
    for meta, item, result in rows:
        key = (meta["task"], meta["lang"], meta["prompt_lang"], meta["run_no"], meta.get("source", "evaluated"))
        rid = ids.get(key)
        if rid is None:
            rid = ids[key] = run_id(model_id, *key)
        by_run.setdefault(rid, []).append((meta, item, result))
    new_items = {(i.task, i.lang, i.item_id): i for _, i, _ in rows if (i.task, i.lang, i.item_id) not in known}
    rows_of = {True: ([], [], []), False: ([], [], [])}  # replace? -> (predictions, scores, self_reported)
    for rid, group in by_run.items():
        for table, new_rows in zip(rows_of[rid not in unstored], live.result_rows(rid, [r for _, _, r in group])):
            table += new_rows
    return LiveGroup(model_id, by_run, new_items, rows_of, [rid for rid in by_run if rid not in known])


def write_live(con: duckdb.DuckDBPyConnection, group: LiveGroup, known: set,
               model_info: Mapping[str, Any] | None = None) -> None:
    """Write a `live_group` inside the caller's transaction: the registry's rows, the model's and the new runs'
    when it has new runs (once per process, by `known`), its new items, predictions, scores and self-reported
    values (`known` is read, not changed: the caller adds `LiveGroup.written` once the transaction commits)."""
    model_id, by_run = group.model_id, group.by_run
    if group.fresh_runs and REGISTRY not in known:  # first run of this process: the registry rows
        sync_registry(con)
    if group.fresh_runs and (MODEL, model_id) not in known:
        writer.upsert_model(con, {"model_id": model_id, "origin": "evaluated", **(model_info or {})})
    writer.upsert_runs(con, [{"run_id": rid, "model_id": model_id, "task": meta["task"], "lang": meta["lang"],
                              "prompt_lang": meta["prompt_lang"], "run_no": meta["run_no"],
                              "settings": meta.get("settings"), "source": meta.get("source", "evaluated"),
                              "harness": "tanaw"} for rid in group.fresh_runs for meta in [by_run[rid][0][0]]])
    live.append(con, "items", live.item_rows(list(group.new_items.values()), content_hash))  # both orders: once
    for replace, tables in group.rows_of.items():
        for table, table_rows in zip(("predictions", "scores", "self_reported"), tables):
            live.append(con, table, table_rows, replace=replace)


def save_live(con: duckdb.DuckDBPyConnection, model_id: str,
              rows: Sequence[tuple[Mapping[str, Any], Item, ItemResult]], *,
              model_info: Mapping[str, Any] | None = None, known: set | None = None,
              unstored: Collection[str] = (), before: Callable[[], Any] | None = None) -> None:
    """Write live results (several answers, one transaction), so an interrupted run can resume.

    Each row is (run_meta, item, result) with run_meta {"task", "lang", "prompt_lang", "run_no", "settings",
    optional "source" (default "evaluated")}. `known` remembers the runs and items this process already wrote,
    so each is written once; pass the same set on every call of a run. `unstored`: run ids that had no stored
    answer when the run began and get each answer once (`StoreSink.stored_many`): their rows are plain INSERTs,
    the others INSERT OR REPLACE (a rerun replaces what it asks again). `before`: called before the transaction
    when it writes run rows (and with them the model's and the registry's), which a refresh's reads see.
    """
    known = known if known is not None else set()
    group = live_group(model_id, rows, known, unstored)
    if group.fresh_runs and before is not None:
        before()
    with transaction(con):
        write_live(con, group, known, model_info)
    known |= group.written()


def prepare_live(con: duckdb.DuckDBPyConnection, known: set, items: Sequence[Item] = (),
                 before: Callable[[], Any] | None = None) -> None:
    """Before a commit of a run, in one transaction: the registry's rows (tasks, metrics) once per process, and the
    rows of the `items` the run planned since the last call that this process has not written (so its groups of
    answers write only predictions and scores); nothing when both are written. `known` as for `save_live`;
    `before`: called before a transaction that writes the registry."""
    new_items = {(i.task, i.lang, i.item_id): i for i in items if (i.task, i.lang, i.item_id) not in known}
    if REGISTRY in known and not new_items:
        return
    if REGISTRY not in known and before is not None:
        before()
    with transaction(con):
        if REGISTRY not in known:
            sync_registry(con)
        live.append(con, "items", live.item_rows(list(new_items.values()), content_hash))
    known.add(REGISTRY)
    known.update(new_items)


def save_result(con: duckdb.DuckDBPyConnection, model_id: str, run_meta: Mapping[str, Any], item: Item,
                result: ItemResult) -> None:
    """Write one live result in its own transaction (see `save_live`)."""
    save_live(con, model_id, [(run_meta, item, result)], model_info=run_meta.get("model"))


class StoreSink:
    """The runner's sink (`evaluator.run.Sink`) on a DuckDB connection: groups of answers through `save_live`."""

    def __init__(self, con: duckdb.DuckDBPyConnection, model_id: str, model_info: Mapping[str, Any] | None = None):
        self.con, self.model_id, self.model_info = con, model_id, dict(model_info or {})
        self._known: set = set()
        self._unstored: set[str] = set()  # runs the plan's lookup found without answers
        # (task, lang, prompt language) cells whose every run had no answer stored when the run began: their run
        # ids, and every pair this sink stores for them keyed (run, item, order), for their refresh (`refresh`)
        self._fresh_runs: dict[tuple, set[str]] = {}
        self._fresh: dict[tuple, dict[tuple, tuple[Item, ItemResult]]] = {}
        self._run_key: dict[str, tuple] = {}  # run id -> (task, lang, prompt language, run number) of the plan
        # what `prepare` read of the fresh cells (`store.cell_rows.plan_state`), and the drill cell number the next
        # refresh gives: a clean cell's refresh then needs no state read (`refresh`)
        self._plan: cell_rows.PlanState | None = None
        self._next_cell: int | None = None
        # changes whenever a write that a refresh's reads see begins or ends (runs, the model's row, the registry; a
        # refresh), and the reads `read_ahead` took at some value of it
        self._counter = itertools.count(1)
        self._epoch = 0
        self._ahead: tuple[int, refresh_inputs.Ahead] | None = None

    def _run_id(self, cell: Cell) -> str:
        return run_id(self.model_id, cell.task.name, cell.lang, cell.prompt_lang, cell.run_no, "evaluated")

    def prepare(self, items: Sequence[Item] = ()) -> None:
        """The registry's rows and the items of the jobs planned since the last call, written before a commit (on
        the writer thread); the first time, also what the store holds of the fresh cells
        (`store.cell_rows.plan_state`, one read)."""
        epoch = self._epoch
        prepare_live(self.con, self._known, items, before=self._bump)
        if self._epoch != epoch:  # it wrote the registry: reads taken while it ran are out of date too
            self._bump()
        if self._plan is None and self._fresh_runs:
            runs = {rid: key[:3] for key, rids in self._fresh_runs.items() for rid in rids}
            self._plan = cell_rows.plan_state(self.con, self.model_id, sorted(self._fresh_runs), runs)
            self._next_cell = self._plan.next_cell

    def stored_many(self, cells: Sequence[Cell]) -> dict[tuple, set[tuple[str, str]]]:
        """What is stored for every cell of a plan, in one query: cell key -> (item_id, order) already stored."""
        ids = {self._run_id(c): c.key for c in cells}
        self._run_key = dict(ids)
        self._plan = self._next_cell = None  # a new run: `prepare` reads its cells again
        self._ahead = None
        stored = live.stored_keys(self.con, list(ids))
        self._unstored = set(ids) - set(stored)
        runs_of: dict[tuple, set[str]] = {}
        for rid, key in ids.items():
            runs_of.setdefault(key[:3], set()).add(rid)
        self._fresh_runs = {cell: rids for cell, rids in runs_of.items() if rids <= self._unstored}
        self._fresh = {cell: {} for cell in self._fresh_runs}
        return {ids[rid]: keys for rid, keys in stored.items()}

    def stored_turns(self, cells: Sequence[Cell]) -> dict[tuple, dict[tuple[str, str], Any]]:
        """The stored answers of these conversation cells' turns: cell key -> {(item_id, order): output}."""
        ids = {self._run_id(c): c.key for c in cells}
        return {ids[rid]: rows for rid, rows in live.stored_turns(self.con, list(ids)).items()}

    def save_many(self, rows: Sequence[tuple[Cell, Mapping[str, Any], Item, ItemResult]]) -> None:
        """Store scored answers (cell, settings, item, result) in one transaction (committed on return)."""
        epoch = self._epoch
        save_live(self.con, self.model_id, _metas(rows), model_info=self.model_info, known=self._known,
                  unstored=self._unstored, before=self._bump)
        if self._epoch != epoch:  # it wrote runs: reads taken while it ran are out of date too
            self._bump()
        self._hold(rows)

    def _hold(self, rows: Sequence[tuple[Cell, Mapping[str, Any], Item, ItemResult]]) -> None:
        """Keep the pairs of the fresh cells' answers for their refresh (a cell past `FRESH_PAIRS_MAX` is dropped:
        its refresh reads the store)."""
        for cell, _, item, result in rows:
            key = (cell.task.name, cell.lang, cell.prompt_lang)
            if (fresh := self._fresh.get(key)) is not None:
                fresh[(cell.run_no, item.item_id, result.prediction.order)] = (item, result)
                if len(fresh) > FRESH_PAIRS_MAX:  # too big to hold: its refresh reads the store
                    del self._fresh[key]

    def refresh(self, cells: Sequence[Cell]) -> list[float | None]:
        """Recompute the cells' aggregates (and the model's roll-ups, once) in one transaction, so the board never
        shows a cell's new numbers beside old roll-ups (and one commit is cheaper than one per statement); the
        headline value (0-100) per cell.

        A cell whose every run this sink wrote in full (none had an answer stored when the run began) is
        aggregated from the pairs it stored, as an ingest does (`refresh_aggregates(written=...)`), instead of
        reading its rows back: the same rows in the store's order, so the same numbers
        (tests/store/test_pipeline.py compares every derived table with a recompute from the store). The reads
        `read_ahead` took of exactly these cells are used when no write they see has begun since (the run's last
        refresh, whose reads were taken in its last round)."""
        keys = [(c.task.name, c.lang, c.prompt_lang) for c in cells]
        written = self._written(keys, pop=True)
        taken, self._ahead = self._ahead, None
        cur = self.con.cursor()  # its own connection: runs on the refresh thread beside the writer
        try:
            with transaction(cur):
                summaries, next_cell = self._refresh_in(cur, keys, written, taken, opened=False)
            self._next_cell = next_cell
        finally:
            self._bump()
            cur.close()
        return _values(keys, summaries)

    def save_refresh(self, rows: Sequence[tuple[Cell, Mapping[str, Any], Item, ItemResult]],
                     cells: Sequence[Cell]) -> list[float | None]:
        """`save_many` of the rows and `refresh` of the cells in one transaction: the runner's last group of
        answers with the refresh of the cells it finishes (the run's end waits for that commit alone, and it is
        one commit instead of two). The values as `refresh` gives them. If it raises, nothing of it is written,
        and the sink holds what it held before and this group's pairs: `save_many` and then `refresh` do the
        same in two steps."""
        group = live_group(self.model_id, _metas(rows), self._known, self._unstored)
        if group.fresh_runs:
            self._bump()  # it writes runs, which reads taken before did not see
        self._hold(rows)
        keys = [(c.task.name, c.lang, c.prompt_lang) for c in cells]
        written = self._written(keys, pop=False)  # taken from the sink once committed
        added = group.written() - self._known
        taken, self._ahead = self._ahead, None
        cur = self.con.cursor()
        try:
            try:
                with transaction(cur):
                    write_live(cur, group, self._known, self.model_info)
                    self._known |= added  # a clean cell's state lists the runs the sink has written
                    summaries, next_cell = self._refresh_in(cur, keys, written, taken, opened=True)
            except BaseException:
                self._known -= added
                raise
            self._next_cell = next_cell
            for key in keys:
                self._fresh.pop(key, None)
        finally:
            self._bump()
            cur.close()
        return _values(keys, summaries)

    def _written(self, keys: Sequence[tuple[str, str, str]], *, pop: bool) -> dict[tuple, tuple[list, set[str]]]:
        """The pairs held of these cells in the store's order, with their run ids (`refresh_aggregates`'
        `written`), taken from the sink (`pop`) or left in it."""
        written = {}
        for key in keys:
            if (fresh := self._fresh.pop(key, None) if pop else self._fresh.get(key)) is not None:
                written[key] = ([fresh[k] for k in sorted(fresh)], self._fresh_runs[key])
        return written

    def _refresh_in(self, cur: duckdb.DuckDBPyConnection, keys: Sequence[tuple[str, str, str]],
                    written: Mapping[tuple, tuple[list, set[str]]],
                    taken: tuple[int, refresh_inputs.Ahead] | None, *, opened: bool) -> tuple[list, int]:
        """`refresh_aggregates` of these cells inside `cur`'s transaction, with the reads `taken` ahead when no
        write they see began since (checked once the transaction's snapshot is taken: by its first statement, run
        here unless `opened`); its summaries and the drill cell number the next refresh gives once it commits."""
        cells_sorted = sorted(set(keys))
        ahead = None
        if taken is not None:  # a write that begins after the snapshot is not in what it sees either
            if not opened:
                cur.execute("SELECT 1 FROM models LIMIT 0")
            ahead = taken[1] if taken[0] == self._epoch else None
        state = self._clean_state(cells_sorted, written)
        if state is None:
            state = cell_rows.refresh_state(cur, self.model_id, cells_sorted)
        summaries = refresh_aggregates(cur, self.model_id, keys, written=written, state=state, ahead=ahead)
        return summaries, state.next_cell + len(cells_sorted)  # every cell's drill rows are renumbered from it

    def read_ahead(self, cells: Sequence[tuple[str, str, str]]) -> None:
        """Take the reads of the next refresh of these (task, lang, prompt_lang) cells now, on a cursor of its own
        (`services.refresh_inputs.read_ahead`): the runner's refresher does it in the last round, while the last
        answers are in flight, so the run's last refresh does not read after its last commit. `refresh` uses them
        only if it refreshes exactly these cells and no write its reads see has begun since."""
        epoch = self._epoch
        cur = self.con.cursor()
        try:
            self._ahead = (epoch, refresh_inputs.read_ahead(cur, self.model_id, cells, RANKED_ORIGINS))
        finally:
            cur.close()

    def _bump(self) -> None:
        """A write the refreshes' reads see begins or ends (or a refresh ended): reads taken before are out of date
        (a new value from one counter: threads may bump at once)."""
        self._epoch = next(self._counter)

    def _clean_state(self, cells: Sequence[tuple], written: Mapping[tuple, Any]) -> cell_rows.RefreshState | None:
        """The cells' `RefreshState` without a read, when every one is clean: held in full by this sink (`written`)
        and holding nothing else when the run began (`prepare`'s read); else None (the refresh reads it). This
        process is the store's only writer while it runs (DuckDB's file lock), and only this sink's refreshes write
        drill-down cells, so their active runs are the runs this sink wrote and the next cell number is the one the
        last refresh left."""
        plan, next_cell = self._plan, self._next_cell
        if plan is None or next_cell is None or not cells or any(c not in written or c in plan.busy for c in cells):
            return None
        runs = [(*self._run_key[rid], rid) for c in cells for rid in self._fresh_runs[c] if rid in self._known]
        return cell_rows.clean_state(plan, cells, runs, next_cell)


def _metas(rows: Sequence[tuple[Cell, Mapping[str, Any], Item, ItemResult]]) -> list[tuple[dict, Item, ItemResult]]:
    """The runner's (cell, settings, item, result) rows as `save_live` takes them (run meta, item, result)."""
    return [({"task": cell.task.name, "lang": cell.lang, "prompt_lang": cell.prompt_lang, "run_no": cell.run_no,
              "settings": dict(settings)}, item, result) for cell, settings, item, result in rows]


def _values(keys: Sequence[tuple[str, str, str]], summaries: Sequence[Any]) -> list[float | None]:
    """The headline value of each cell key (None for a cell without one)."""
    value = {(c.task, c.lang, c.prompt_lang): c.value for c in summaries}
    return [value.get(k) for k in keys]
