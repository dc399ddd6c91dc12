"""A live refresh whose reads were taken ahead (`services.refresh_inputs`) writes what a refresh that reads writes."""
from __future__ import annotations

import asyncio

import services.ingest
import services.live
from evaluator.clients import ModelClient
from evaluator.run import Cell, run
from evaluator.runspec import RunSpec
from services import refresh_inputs
from services.ingest import refresh_aggregates
from services.live import StoreSink
from tests.helpers.derived_tables import derived
from tests.helpers.standin_server import StandinServer

CELLS = [("causal", "id", "en"), ("causal", "th", "en"), ("sentiment", "id", "en"), ("sentiment", "th", "en")]


def _merges(monkeypatch) -> list:
    """Record every merge of reads taken ahead (the cells each refresh took them for)."""
    calls: list = []
    real = refresh_inputs.merge

    def spy(ahead, *args):
        calls.append(ahead.cells)
        return real(ahead, *args)
    monkeypatch.setattr(refresh_inputs, "merge", spy)
    return calls


def test_the_last_refresh_of_a_run_merges_its_reads_taken_ahead_and_stores_what_a_recompute_gives(
        mem_store, shared_data, monkeypatch):
    """Another model answers the same cells first (paired tests, the field and the ranks then span two models);
    the second model's run reads its last cell's inputs in its last round and merges them: every derived table then
    equals a recompute of its cells from the stored rows, which reads everything. (12 answers a cell at C = 4 and
    0.2 s a request: the cell before the last is refreshed rounds before the last round.)"""
    merged = _merges(monkeypatch)
    together, save_refresh = [], StoreSink.save_refresh

    def spy(self, rows, cells):
        together.append(sorted({c.key[:3] for c in cells}))
        return save_refresh(self, rows, cells)
    monkeypatch.setattr(StoreSink, "save_refresh", spy)
    spec = dict(tasks="sentiment", langs="id,th", prompt_langs=("en",), limit=6, runs=2, concurrency=4,
                data_dir=shared_data)
    with StandinServer(latency=0.2) as server:
        async def ask(model):
            async with ModelClient(server.base_url, "standin", concurrency=4) as client:
                return await run(client, StoreSink(mem_store, model), RunSpec(**spec), progress=False)
        asyncio.run(ask("other"))
        merged.clear()
        together.clear()
        statuses = asyncio.run(ask("m"))
    assert merged == [(("sentiment", "th", "en"),)]  # the run's last refresh
    assert together == [[("sentiment", "th", "en")]]  # in one transaction with the run's last answers
    assert all(s.score is not None for s in statuses)
    assert mem_store.execute("SELECT count(*) FROM pair_tests WHERE model_a = 'm'").fetchone()[0] > 0
    live = derived(mem_store)
    refresh_aggregates(mem_store, "m", [("sentiment", "id", "en"), ("sentiment", "th", "en")])
    assert derived(mem_store) == live


def test_reads_taken_ahead_are_dropped_once_a_write_they_see_begins_or_for_other_cells(
        mem_store, shared_data, monkeypatch):
    """A commit that writes new runs, a refresh in between, or a refresh of other cells than those read: the
    refresh reads for itself (and the store ends as a recompute leaves it)."""
    from evaluator.datasets import load_items
    from evaluator.registry import get_task
    from evaluator.scoring import score_prediction
    from evaluator.spec import Prediction

    merged = _merges(monkeypatch)
    task = get_task("sentiment")
    items = {lang: load_items(task, lang, data_dir=shared_data, limit=3) for lang in ("id", "th")}
    cells = {lang: [Cell(task, lang, "en", r) for r in (1, 2)] for lang in ("id", "th")}
    sink = StoreSink(mem_store, "m")
    sink.stored_many(cells["id"] + cells["th"])
    sink.prepare([it for lang in items for it in items[lang]])

    def answers(lang, runs=(1, 2)):
        return [(Cell(task, lang, "en", r), {"temperature": 0.0}, it,
                 score_prediction(task, it, Prediction("sentiment", lang, it.item_id, "en", "Positive", run=r)))
                for r in runs for it in items[lang]]

    sink.save_many(answers("id"))
    sink.save_many(answers("th", runs=(1,)))
    sink.read_ahead([("sentiment", "id", "en")])
    sink.save_many(answers("th", runs=(2,)))  # a new run's rows: the read ahead is out of date
    sink.refresh(cells["id"])
    assert merged == []

    sink.read_ahead([("sentiment", "id", "en")])
    sink.refresh(cells["th"])  # other cells than those read
    assert merged == []

    sink.read_ahead([("sentiment", "th", "en")])
    sink.refresh(cells["id"])  # a refresh in between
    sink.refresh(cells["th"])
    assert merged == []

    sink.read_ahead([("sentiment", "th", "en")])
    sink.refresh(cells["th"])  # nothing written since: merged
    assert merged == [(("sentiment", "th", "en"),)]
    live = derived(mem_store)
    refresh_aggregates(mem_store, "m", [("sentiment", "id", "en"), ("sentiment", "th", "en")])
    assert derived(mem_store) == live


def test_merged_reads_equal_the_reads_a_refresh_makes_after_its_writes(mem_store, shared_data, monkeypatch):
    """Inside one refresh, what `merge` gives from the reads taken ahead equals what the store's reads give after
    the refresh's own writes (roll-up inputs, runs with their counts, the field's scan, the pair-test state), in a
    store where another model holds the same cells and the model holds both prompt languages of one of them."""
    from evaluator.datasets import load_items
    from evaluator.registry import get_task
    from evaluator.scoring import score_prediction
    from evaluator.spec import Prediction
    from store import pair_tests, page_figures, usage, writer

    compared: list = []
    real_merge = refresh_inputs.merge

    def checked(ahead, computed, drills, counted):
        out = real_merge(ahead, computed, drills, counted)
        compared.append(out)
        return out
    monkeypatch.setattr(refresh_inputs, "merge", checked)
    real_pairs, real_rollups, checks = services.ingest.refresh_pair_tests, services.ingest.refresh_rollups, []

    def after_cell_rows(con, model_id, keys, state=None):  # called right after the cells' rows are written
        if state is not None:
            assert state[0] == pair_tests.pair_state(con, sorted({k[:2] for k in keys}), model_id)[0]
            assert sorted(state[1]) == sorted(pair_tests.pair_state(con, sorted({k[:2] for k in keys}), model_id)[1])
            assert compared[-1].runs == usage.model_runs(con, model_id)
            checks.append("pairs and runs")
        return real_pairs(con, model_id, keys, state)

    def after_aggregates(con, model_ids, cells=None, levels=None, inputs=None):
        if inputs is not None:
            assert inputs.rollups == writer.rollup_inputs(con, model_ids, services.ingest.RANKED_ORIGINS)
            assert sorted(inputs.field, key=repr) == sorted(page_figures.field_scan(con, model_ids, cells), key=repr)
            checks.append("roll-ups and field")
        return real_rollups(con, model_ids, cells, levels, inputs)
    monkeypatch.setattr(services.ingest, "refresh_pair_tests", after_cell_rows)
    monkeypatch.setattr(services.ingest, "refresh_rollups", after_aggregates)

    task = get_task("sentiment")
    items = {lang: load_items(task, lang, data_dir=shared_data, limit=4) for lang in ("id", "th")}

    def answer_all(sink, model, cells):
        sink.stored_many(cells)
        sink.prepare([it for lang in items for it in items[lang]])
        for k, cell in enumerate(cells):
            said = ("Positive", "Negative", "Neutral")
            sink.save_many([(cell, {"temperature": 0.0}, it, score_prediction(task, it, Prediction(
                "sentiment", cell.lang, it.item_id, cell.prompt_lang, said[(i + k + len(model)) % 3],
                run=cell.run_no, tokens_in=10 + i, tokens_out=2, latency_s=0.1 * (i + 1))))
                for i, it in enumerate(items[cell.lang])])

    other = [Cell(task, lang, "en", r) for lang in ("id", "th") for r in (1, 2)]
    sink = StoreSink(mem_store, "other")
    answer_all(sink, "other", other)
    sink.refresh(other[:2])
    sink.refresh(other[2:])
    mine = [Cell(task, lang, prompt, r) for lang, prompt in (("id", "en"), ("th", "native"), ("th", "en"))
            for r in (1, 2)]
    sink = StoreSink(mem_store, "m")
    answer_all(sink, "m", mine)
    sink.refresh(mine[:2])
    sink.refresh(mine[2:4])
    sink.read_ahead([("sentiment", "th", "en")])
    sink.refresh(mine[4:])
    assert len(compared) == 1 and checks == ["pairs and runs", "roll-ups and field"]
    assert compared[0].pairs[0] == {("sentiment", "th"): 3}  # the other model's, the model's native and en cells
    live = derived(mem_store)
    refresh_aggregates(mem_store, "m", [c.key[:3] for c in mine[::2]])
    assert derived(mem_store) == live


def test_the_last_answers_and_their_cells_refresh_in_one_transaction_all_or_nothing(mem_store, shared_data,
                                                                                      monkeypatch):
    """`save_refresh`: the last group of a cell with the cell's refresh, merging the reads taken ahead, stores what
    `save_many` and `refresh` store apart (every derived table equals a recompute). If the refresh fails, nothing
    of the call is written (no answer of the group, no derived row) and the sink still holds the cell's pairs, so
    the two steps apart then store the same; a last group that writes a new run drops the reads taken ahead."""
    from evaluator.datasets import load_items
    from evaluator.registry import get_task
    from evaluator.scoring import score_prediction
    from evaluator.spec import Prediction

    merged = _merges(monkeypatch)
    task = get_task("sentiment")
    items = {lang: load_items(task, lang, data_dir=shared_data, limit=4) for lang in ("id", "th")}
    cells = {lang: [Cell(task, lang, "en", r) for r in (1, 2)] for lang in ("id", "th")}

    def answers(lang, runs=(1, 2), said="Positive"):
        return [(Cell(task, lang, "en", r), {"temperature": 0.0}, it,
                 score_prediction(task, it, Prediction("sentiment", lang, it.item_id, "en", said if i % 2 else "Neutral",
                                                       run=r, tokens_in=5 + i, tokens_out=1, latency_s=0.1)))
                for r in runs for i, it in enumerate(items[lang])]

    def stored():
        return mem_store.execute("SELECT count(*) FROM predictions").fetchone()[0], derived(mem_store)

    sink = StoreSink(mem_store, "m")
    sink.stored_many(cells["id"] + cells["th"])
    sink.prepare([it for lang in items for it in items[lang]])
    sink.save_many(answers("id"))
    sink.refresh(cells["id"])
    first, last = answers("th")[:5], answers("th")[5:]
    sink.save_many(first)
    sink.read_ahead([("sentiment", "th", "en")])
    before, known = stored(), set(sink._known)
    real = services.live.refresh_aggregates

    def failing(*args, **kwargs):
        real(*args, **kwargs)
        raise RuntimeError("the refresh failed after its writes")
    monkeypatch.setattr(services.live, "refresh_aggregates", failing)
    try:
        sink.save_refresh(last, cells["th"])
        raise AssertionError("save_refresh did not raise")
    except RuntimeError:
        pass
    monkeypatch.setattr(services.live, "refresh_aggregates", real)
    assert stored() == before and sink._known == known
    sink.save_many(last)  # the two steps apart, as the runner's writer does then
    assert sink.refresh(cells["th"])[0] is not None
    apart = derived(mem_store)
    refresh_aggregates(mem_store, "m", [("sentiment", "id", "en"), ("sentiment", "th", "en")])
    assert derived(mem_store) == apart

    other = StoreSink(mem_store, "n")  # the same in one transaction, with the reads taken ahead
    other.stored_many(cells["id"] + cells["th"])
    other.save_many(answers("th")[:5])
    other.read_ahead([("sentiment", "th", "en")])
    merged.clear()
    values = other.save_refresh(answers("th")[5:], cells["th"])
    assert merged == [(("sentiment", "th", "en"),)] and values[0] is not None
    together = derived(mem_store)
    refresh_aggregates(mem_store, "n", [("sentiment", "th", "en")])
    assert derived(mem_store) == together
    assert values == sink.refresh(cells["th"])  # the same answers: the same headline value

    third = StoreSink(mem_store, "o")  # a last group that writes a run's first answers: the reads are out of date
    third.stored_many(cells["th"])
    third.save_many(answers("th", runs=(1,)))
    third.read_ahead([("sentiment", "th", "en")])
    merged.clear()
    third.save_refresh(answers("th", runs=(2,)), cells["th"])
    assert merged == []
    together = derived(mem_store)
    refresh_aggregates(mem_store, "o", [("sentiment", "th", "en")])
    assert derived(mem_store) == together


def test_cells_held_in_memory_are_aggregated_on_their_own_thread_beside_the_drill_down_writes(mem_store, shared_data,
                                                                                           monkeypatch):
    """A refresh of cells whose rows it holds computes their aggregates on the aggregator thread while it writes
    their drill-downs, and stores what a recompute (which reads the rows back and aggregates on its own thread)
    stores; when the drill-down write fails, the refresh raises it once the aggregates are done, and writes nothing."""
    import threading

    import evaluator.aggregate
    from evaluator.datasets import load_items
    from evaluator.registry import get_task
    from evaluator.scoring import score_prediction
    from evaluator.spec import Prediction

    threads: list[str] = []
    real_aggregate = evaluator.aggregate.aggregate_cell

    def spy(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real_aggregate(*args, **kwargs)
    monkeypatch.setattr(evaluator.aggregate, "aggregate_cell", spy)
    task = get_task("sentiment")
    items = load_items(task, "id", data_dir=shared_data, limit=5)
    cells = [Cell(task, "id", "en", r) for r in (1, 2)]
    sink = StoreSink(mem_store, "m")
    sink.stored_many(cells)
    sink.prepare(items)
    sink.save_many([(cell, {}, it, score_prediction(task, it, Prediction("sentiment", "id", it.item_id, "en",
                                                                          ("Positive", "Negative")[i % 2], run=r)))
                    for r, cell in enumerate(cells, 1) for i, it in enumerate(items)])
    before = derived(mem_store)
    real_drills = services.ingest.save_drilldowns

    def failing(*args, **kwargs):
        raise RuntimeError("the drill-down write failed")
    monkeypatch.setattr(services.ingest, "save_drilldowns", failing)
    try:
        sink.refresh(cells)
        raise AssertionError("the refresh did not raise")
    except RuntimeError as exc:
        assert "drill-down" in str(exc)
    assert threads == ["tanaw-aggregate_0"] and derived(mem_store) == before
    monkeypatch.setattr(services.ingest, "save_drilldowns", real_drills)
    threads.clear()
    refresh_aggregates(mem_store, "m", [("sentiment", "id", "en")])  # read back from the store: on this thread
    assert threads == [threading.current_thread().name]
    threads.clear()
    other = StoreSink(mem_store, "n")  # the same answers of another model, held in memory by its sink
    other.stored_many(cells)
    other.save_many([(cell, {}, it, score_prediction(task, it, Prediction("sentiment", "id", it.item_id, "en",
                                                                           ("Positive", "Negative")[i % 2], run=r)))
                     for r, cell in enumerate(cells, 1) for i, it in enumerate(items)])
    other.refresh(cells)
    assert threads == ["tanaw-aggregate_0"]
    held = derived(mem_store)
    refresh_aggregates(mem_store, "n", [("sentiment", "id", "en")])  # read back: aggregated on this thread
    assert derived(mem_store) == held
