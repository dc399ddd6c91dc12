"""The pipeline's live writes: answers stored one by one (or in groups) land once and aggregate like an ingest."""
from evaluator.datasets import load_items
from services.ingest import refresh_aggregates, run_id
from services.live import save_live, save_result
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Prediction
from tests.helpers.derived_tables import derived


def test_answers_saved_one_by_one_land_once_and_aggregate(mem_store, shared_data):
    task = get_task("causal")
    items = load_items(task, "id", data_dir=shared_data, limit=4)
    meta = {"task": "causal", "lang": "id", "prompt_lang": "en", "run_no": 1, "settings": {"temperature": 0}}
    for item in items:  # three answers right in order ab, one wrong
        for order in ("ab", "ba"):
            gold = item.gold if order == "ab" else {"A": "B", "B": "A"}[item.gold]
            out = gold if item is not items[-1] else {"A": "B", "B": "A"}[gold]
            pred = Prediction("causal", "id", item.item_id, "en", out, order=order)
            save_result(mem_store, "m", meta, item, score_prediction(task, item, pred))
    rid = run_id("m", "causal", "id", "en", 1, "evaluated")
    assert mem_store.execute("SELECT count(*) FROM predictions WHERE run_id = ?", [rid]).fetchone()[0] == 8
    assert mem_store.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    head = refresh_aggregates(mem_store, "m", [("causal", "id", "en")])[0]
    assert (head.metric, head.value, head.n) == ("accuracy", 75.0, 4)


def test_a_group_of_answers_is_one_transaction_and_known_runs_are_written_once(mem_store, shared_data):
    task = get_task("sentiment")
    items = load_items(task, "th", data_dir=shared_data, limit=5)
    meta = {"task": "sentiment", "lang": "th", "prompt_lang": "native", "run_no": 2}
    known: set = set()
    rows = [(meta, it, score_prediction(task, it, Prediction("sentiment", "th", it.item_id, "native", "Positive",
                                                             run=2))) for it in items]
    save_live(mem_store, "m", rows[:2], known=known)
    save_live(mem_store, "m", rows[2:], known=known)
    assert mem_store.execute("SELECT count(*), count(DISTINCT run_id) FROM predictions").fetchone() == (5, 1)
    assert mem_store.execute("SELECT count(*) FROM items WHERE task = 'sentiment'").fetchone()[0] == 5


def test_a_live_run_then_a_rerun_on_the_same_sink_replace_answers_and_store_what_a_recompute_gives(mem_store,
                                                                                                  shared_data):
    """New runs' answers are plain INSERTs (their keys cannot be stored yet), a rerun's INSERT OR REPLACE; the
    aggregates the run refreshed as its cells finished equal a recompute from the stored rows."""
    import asyncio

    from evaluator.clients import ModelClient
    from evaluator.run import run
    from evaluator.runspec import RunSpec
    from services.live import StoreSink
    from tests.helpers.standin_server import StandinServer

    sink = StoreSink(mem_store, "m")
    spec = dict(tasks="sentiment", langs="id,th", prompt_langs=("en",), limit=4, runs=2, concurrency=4,
                data_dir=shared_data)

    async def ask(url, **kw):
        async with ModelClient(url, "standin", concurrency=4) as client:
            return await run(client, sink, RunSpec(**spec, **kw), progress=False)

    def stored_numbers():
        return mem_store.execute("SELECT task, lang, prompt_lang, metric, value, ci_low, ci_high, n FROM aggregates "
                                 "ORDER BY ALL").fetchall()

    with StandinServer() as server:
        asyncio.run(ask(server.base_url))
        first = stored_numbers()
        asyncio.run(ask(server.base_url, rerun=True))
        assert server.requests == 32
    assert mem_store.execute("SELECT count(*), count(DISTINCT (run_id, item_id, ord)) FROM predictions"
                             ).fetchone() == (16, 16)
    assert stored_numbers() == first and len(first) > 0
    refresh_aggregates(mem_store, "m", [("sentiment", "id", "en"), ("sentiment", "th", "en")])
    assert stored_numbers() == first


def test_cells_a_live_run_wrote_in_full_are_aggregated_from_its_own_pairs_with_the_numbers_a_recompute_gives(
        mem_store, shared_data):
    """The live sink refreshes a cell whose every run it wrote from the pairs it stored (no read-back): every
    derived table equals a recompute from the stored rows afterwards, and a resumed cell takes the store's path."""
    import asyncio

    import services.live
    from evaluator.clients import ModelClient
    from evaluator.run import run
    from evaluator.runspec import RunSpec
    from services.live import StoreSink
    from tests.helpers.standin_server import StandinServer

    written = []
    real = services.live.refresh_aggregates

    def spy(con, model_id, keys, written=None, **kw):  # records which cells took the in-memory path
        spy.calls.append(sorted(written or {}))
        return real(con, model_id, keys, written=written, **kw)
    spy.calls = written
    services.live.refresh_aggregates = spy
    spec = dict(tasks="sentiment,causal", langs="id,th", prompt_langs=("en",), limit=4, runs=2, concurrency=4,
                data_dir=shared_data)
    try:
        with StandinServer() as server:
            async def ask(limit):
                async with ModelClient(server.base_url, "standin", concurrency=4) as client:
                    return await run(client, StoreSink(mem_store, "m"), RunSpec(**{**spec, "limit": limit}),
                                     progress=False)
            asyncio.run(ask(2))  # every run new: in-memory pairs
            first_calls = list(written)
            written.clear()
            asyncio.run(ask(4))  # the same runs, two more items each: the store's path
    finally:
        services.live.refresh_aggregates = real
    assert sorted(k for call in first_calls for k in call) == [("causal", "id", "en"), ("causal", "th", "en"),
                                                               ("sentiment", "id", "en"), ("sentiment", "th", "en")]
    assert written and all(call == [] for call in written)
    live = derived(mem_store)
    assert all(live[t] for t in ("aggregates", "rollups", "drill_cells", "item_outcomes", "model_usage"))
    refresh_aggregates(mem_store, "m", [("causal", "id", "en"), ("causal", "th", "en"), ("sentiment", "id", "en"),
                                        ("sentiment", "th", "en")])
    again = derived(mem_store)
    assert again == live  # roll-ups too, bit for bit: `store.writer.rollup_inputs` gives the cells in one order


def test_a_cell_too_big_to_hold_is_read_back_from_the_store(mem_store, shared_data, monkeypatch):
    import asyncio

    import services.live
    from evaluator.clients import ModelClient
    from evaluator.run import run
    from evaluator.runspec import RunSpec
    from services.live import StoreSink
    from tests.helpers.standin_server import StandinServer

    monkeypatch.setattr(services.live, "FRESH_PAIRS_MAX", 3)
    calls = []
    real = services.live.refresh_aggregates
    monkeypatch.setattr(services.live, "refresh_aggregates",
                        lambda con, m, keys, written=None, **kw: calls.append(sorted(written or {})) or real(
                            con, m, keys, written=written, **kw))
    with StandinServer() as server:
        async def ask():
            async with ModelClient(server.base_url, "standin", concurrency=2) as client:
                return await run(client, StoreSink(mem_store, "m"), RunSpec(
                    tasks="sentiment", langs="id", prompt_langs=("en",), limit=4, concurrency=2,
                    data_dir=shared_data), progress=False)
        statuses = asyncio.run(ask())
    assert calls == [[]] and statuses[0].asked == 4 and statuses[0].score is not None


def test_a_clean_cell_is_refreshed_with_the_state_a_read_would_give(mem_store, shared_data, monkeypatch):
    """The live sink reads what the store holds of its fresh cells once (`store.cell_rows.plan_state`); a refresh of
    cells that held nothing then takes its state without a read. In a store with another model's drill-down cells and
    an uploaded cell of the same model (which the run supersedes: it takes the read), every such state equals what
    `refresh_state` reads, and every derived table equals a recompute afterwards."""
    import asyncio

    from evaluator.clients import ModelClient
    from evaluator.run import run
    from evaluator.runspec import RunSpec
    from services.live import StoreSink
    from store import cell_rows
    from tests.helpers.standin_server import StandinServer

    spec = dict(tasks="sentiment,causal", langs="id,th", prompt_langs=("en",), limit=3, runs=2, concurrency=4,
                data_dir=shared_data)
    task = get_task("causal")
    items = load_items(task, "th", data_dir=shared_data, limit=3)
    upload = {"task": "causal", "lang": "th", "prompt_lang": "en", "run_no": 1, "source": "upload"}
    save_live(mem_store, "m", [(upload, it, score_prediction(task, it, Prediction("causal", "th", it.item_id, "en",
                                                                                   "A"))) for it in items])
    refresh_aggregates(mem_store, "m", [("causal", "th", "en")])
    compared, read = [], []
    clean, refresh_in = StoreSink._clean_state, StoreSink._refresh_in
    inside: list = []  # the cursor of the refresh's transaction (the run's last one also holds its last answers)

    def checked(self, cells, written):
        state = clean(self, cells, written)
        if state is None:
            read.append(list(cells))
        else:
            compared.append((state, cell_rows.refresh_state(inside[-1], self.model_id, cells)))
        return state

    def within(self, cur, *args, **kwargs):
        inside.append(cur)
        return refresh_in(self, cur, *args, **kwargs)
    monkeypatch.setattr(StoreSink, "_clean_state", checked)
    monkeypatch.setattr(StoreSink, "_refresh_in", within)
    with StandinServer() as server:
        async def ask(model):
            async with ModelClient(server.base_url, "standin", concurrency=4) as client:
                return await run(client, StoreSink(mem_store, model), RunSpec(**spec), progress=False)
        asyncio.run(ask("other"))  # drill-down cells of another model first: the numbering goes on from theirs
        compared.clear()
        read.clear()
        asyncio.run(ask("m"))
    assert compared and all(fast == stored for fast, stored in compared)
    fast_cells = {r[:3] for fast, _ in compared for r in fast.runs}
    assert ("causal", "th", "en") not in fast_cells  # held an uploaded run and its aggregates when the run began
    assert any(("causal", "th", "en") in cells for cells in read)
    assert fast_cells | {c for cells in read for c in cells} == {
        ("causal", "id", "en"), ("causal", "th", "en"), ("sentiment", "id", "en"), ("sentiment", "th", "en")}
    assert mem_store.execute("SELECT count(DISTINCT cell_no) = count(*) FROM drill_cells").fetchone()[0]
    live = derived(mem_store)
    refresh_aggregates(mem_store, "m", [("causal", "id", "en"), ("causal", "th", "en"), ("sentiment", "id", "en"),
                                        ("sentiment", "th", "en")])
    assert derived(mem_store) == live

    # one sink for two runs (as a test or a caller may keep it): the second run reads its own cells again, so a cell
    # that an upload filled between the runs takes the read
    compared.clear()
    read.clear()
    sink = StoreSink(mem_store, "n")
    one = {**spec, "tasks": "sentiment", "langs": "id"}
    with StandinServer() as server:
        async def ask_n(**kw):
            async with ModelClient(server.base_url, "standin", concurrency=4) as client:
                return await run(client, sink, RunSpec(**{**one, **kw}), progress=False)
        asyncio.run(ask_n())
        sentiment = get_task("sentiment")
        th = load_items(sentiment, "th", data_dir=shared_data, limit=3)
        up = {"task": "sentiment", "lang": "th", "prompt_lang": "en", "run_no": 3, "source": "upload"}
        save_live(mem_store, "n", [(up, it, score_prediction(sentiment, it, Prediction(
            "sentiment", "th", it.item_id, "en", "Positive", run=3))) for it in th])
        refresh_aggregates(mem_store, "n", [("sentiment", "th", "en")])
        asyncio.run(ask_n(langs="th"))
    assert compared and all(fast == stored for fast, stored in compared)
    assert [("sentiment", "th", "en")] in read
