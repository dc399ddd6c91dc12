"""Every number a page shows is the evaluator's: the leaderboard, LINDSEA, PACUTE, Model and Compare pages
(AppTest, on the fixture store built through the wiring) against `evaluator.aggregate`, `evaluator.rollup` and
`evaluator.ranking` run directly on the same items and answers. Also: which metrics the store treats as 0/1 is
`MetricSpec.binary`."""
from __future__ import annotations

import statistics

import pytest

from evaluator.aggregate import aggregate_cell
from tests.helpers.breakdown import breakdown
from evaluator.stats import wilson
from evaluator.pair_tests import paired_test
from evaluator.metrics import METRICS
from evaluator.ranking import rank_ranges
from evaluator.registry import TASKS
from evaluator.rollup import rollup
from pages._ui import md_escape
from tests.helpers.fixtures_store import CELLS, cell_pairs, MODELS, app_test, frame_with, predictions


pairs = cell_pairs


def headline(model: str, task: str, lang: str, prompt_lang: str):
    return next(c for c in aggregate_cell(TASKS[task], lang, pairs(model, task, lang, prompt_lang)) if c.is_headline)


@pytest.mark.parametrize("score", ["Raw", "Normalized"])
def test_leaderboard_cells_and_overall_are_the_evaluators(db, score):
    at = app_test("leaderboard", bench="BHASA", prompt="English", score=score)
    assert not at.exception
    board = at.dataframe[0].value.set_index("model")
    col = "value" if score == "Raw" else "normalized"
    for model in ("SeaLion-9B-it", "Gemma-2B", "Closed-XL"):
        cell = headline(model, "sentiment", "th", "en")
        assert board.loc[model, "sentiment · th"] == pytest.approx(getattr(cell, col))
        want = rollup({("sentiment", "th"): getattr(cell, col)}, {"sentiment": "NLU"})
        assert board.loc[model, "overall"] == pytest.approx(want["overall"])
        assert board.loc[model, "NLU"] == pytest.approx(want["competency_mean"]["NLU"])


def test_lindsea_cells_are_the_evaluators(db):
    at = app_test("lindsea", model="SeaLion-9B-it", lang="id", prompt="en")
    assert not at.exception
    cells = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["branch", "task"])
    cells = cells.set_index(["task", "prompt_lang"])
    for task in ("lindsea-mp", "lindsea-pragmatic-pair"):
        for prompt_lang in ("en", "native"):
            want = headline("SeaLion-9B-it", task, "id", prompt_lang)
            got = cells.loc[(task, prompt_lang)]
            assert (got["value"], got["ci_low"], got["ci_high"]) == pytest.approx(
                (want.value, want.ci_low, want.ci_high))
            assert got["n"] == want.n


def test_pacute_levels_are_the_evaluators(db):
    at = app_test("pacute", models=["SeaLion-9B-it", "Gemma-2B", "Closed-XL"], fmt="MCQ", prompt="en")
    assert not at.exception
    levels = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["model_id", "level"])
    levels = levels.set_index(["model_id", "level"])
    for model in ("SeaLion-9B-it", "Gemma-2B", "Closed-XL"):
        for row in breakdown(pairs(model, "pacute-hierarchical-mcq", "tl", "en"), "mcq_acc", ("level",)):
            got = levels.loc[(model, row["level"])]
            low, high = wilson(row["micro"] / 100, row["n"])
            assert (got["value"], got["n"]) == (pytest.approx(row["micro"]), row["n"])
            assert (got["ci_low"], got["ci_high"]) == pytest.approx((100 * low, 100 * high))
    means = next(d.value for d in at.dataframe if list(d.value.columns[:3]) == ["model_id", "micro", "macro"])
    means = means.set_index("model_id")
    for model in ("SeaLion-9B-it", "Gemma-2B", "Closed-XL"):
        cell = pairs(model, "pacute-hierarchical-mcq", "tl", "en")
        per_level = breakdown(cell, "mcq_acc", ("level",))
        pooled = breakdown(cell, "mcq_acc", ())[0]
        assert (means.loc[model, "micro"], means.loc[model, "n"]) == (pytest.approx(pooled["micro"]), pooled["n"])
        assert means.loc[model, "macro"] == pytest.approx(statistics.mean(r["micro"] for r in per_level))
        assert means.loc[model, "n_levels"] == len(per_level)


def test_binary_metrics_in_the_store_are_metricspec_binary(db):
    from pages._cached import connection
    from store.queries.explore import binary_metrics

    stored = set(binary_metrics(connection().cursor()))
    assert stored == {m.name for m in METRICS.values() if m.binary}
    assert "squad_em" in stored and "mcq_norm_acc" not in stored


def _cells_of(model: str) -> list[tuple[str, str, str]]:
    """(task, lang, prompt_lang) of every cell the model answered with a scored headline metric."""
    keys = dict.fromkeys((p.task, p.lang, p.prompt_lang) for p in predictions(model))
    return [k for k in keys if TASKS[k[0]].mode != "open"]


def test_model_page_cells_ranks_and_medians_are_the_evaluators(db):
    """Every cell of the Model page: value, interval, n, unparsed share (`aggregate_cell`), rank range
    (`ranking.rank_ranges` over the three models' intervals), field median and delta, and the extremes."""
    model = "Gemma-2B"
    at = app_test("model", model=model)
    assert not at.exception
    cells = next(d.value for d in at.dataframe if "rank_best" in d.value.columns)
    cells = cells.set_index(["task", "lang", "prompt_lang"])
    assert len(cells) == len(_cells_of(model)) == 16
    medians = {}
    for key in _cells_of(model):
        field = {m: headline(m, *key) for m in MODELS}
        want, got = field[model], cells.loc[key]
        assert (got["value"], got["ci_low"], got["ci_high"]) == pytest.approx((want.value, want.ci_low, want.ci_high))
        assert got["n"] == want.n and got["metric"] == want.metric
        assert got["parse_fail_pct"] == pytest.approx(100 * want.parse_fail_rate)
        ranks = rank_ranges({m: (c.ci_low, c.ci_high) for m, c in field.items()})
        assert (got["rank_best"], got["rank_worst"], got["n_models"]) == (*ranks[model], 3)
        medians[key] = statistics.median(c.value for c in field.values())
        assert got["field_median"] == pytest.approx(medians[key])
        assert got["delta"] == pytest.approx(want.value - medians[key])
    weakest = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["cell", "value"]).iloc[0]
    key = min(medians, key=lambda k: cells.loc[k, "value"] - medians[k])
    assert weakest["cell"] == " · ".join(key)
    assert weakest["delta"] == pytest.approx(headline(model, *key).value - medians[key])


def test_model_page_parse_failures_are_the_evaluators(db):
    """Unparsed answers per language and prompt language: counted from `score_prediction` on the same answers."""
    model = "Gemma-2B"
    at = app_test("model", model=model)
    fails = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["lang", "prompt_lang"])
    want: dict = {}
    for task, lang, prompt_lang in _cells_of(model):
        for _, result in pairs(model, task, lang, prompt_lang):
            answers, unparsed = want.get((lang, prompt_lang), (0, 0))
            want[(lang, prompt_lang)] = (answers + 1, unparsed + (not result.parsed))
    got = {(r.lang, r.prompt_lang): (r.answers, r.unparsed, r.fail_pct) for r in fails.itertuples()}
    assert got == {k: (a, u, pytest.approx(100 * u / a)) for k, (a, u) in want.items()}
    assert any(u for _, u in want.values())


def _item_scores(model: str, task: str, lang: str, prompt_lang: str, metric: str) -> dict[str, float]:
    """Per-item score as Compare shows it: the mean over option orders and runs of the evaluator's item score."""
    by_item: dict[str, list[float]] = {}
    for item, result in pairs(model, task, lang, prompt_lang):
        by_item.setdefault(item.item_id, []).append(result.scores[metric])
    return {k: sum(v) / len(v) for k, v in by_item.items()}


def test_compare_page_item_scores_and_paired_test_are_the_evaluators(db):
    """Compare on LINDSEA minimal pairs (both option orders, so item scores of 0, 0.5 and 1): every per-item
    score, the paired test (`pair_tests.paired_test` on the same items in the page's order) and each answer's score."""
    systems = ["SeaLion-9B-it|en", "Gemma-2B|en"]
    at = app_test("compare", task="lindsea-mp", lang="id", metric="accuracy")
    at.multiselect[0].set_value(systems).run()
    assert not at.exception
    items = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["item_id", "score_A"])
    a = _item_scores("SeaLion-9B-it", "lindsea-mp", "id", "en", "accuracy")
    b = _item_scores("Gemma-2B", "lindsea-mp", "id", "en", "accuracy")
    assert len(items) == len(a) == 40
    assert items["score_A"].tolist() == pytest.approx([a[i] for i in items["item_id"]])
    assert items["score_B"].tolist() == pytest.approx([b[i] for i in items["item_id"]])
    assert {0.5} <= set(items["score_B"])  # right in one order only
    test = paired_test([a[i] for i in items["item_id"]], [b[i] for i in items["item_id"]])
    p_text = "p < 0.001" if test.p_value < 0.001 else f"p = {test.p_value:.3f}"
    shown = next(m.value for m in at.markdown if m.value.startswith("**Paired test"))
    assert (f"({md_escape(test.method)}): A − B = {test.diff:+.1f} points "
            f"(95% CI {test.ci_low:+.1f} to {test.ci_high:+.1f}), "
            f"{p_text}") in shown
    item_id = at.selectbox(key="item").value
    answers = [m.value for m in at.markdown if m.value.startswith("order ")]
    want = sorted(f"order {r.prediction.order} · score {r.scores['accuracy']:.2f}"
                  for model in ("SeaLion-9B-it", "Gemma-2B")
                  for item, r in pairs(model, "lindsea-mp", "id", "en") if item.item_id == item_id)
    assert sorted(f"{m.split(' · ')[0]} · {m.split(' · ')[3]}" for m in answers) == want


def test_compare_page_pair_tests_are_paired_test_on_the_whole_cell(db):
    """Three systems: the stored test of every chosen pair (the page's table; A vs B also as its sentence) equals
    `pair_tests.paired_test` on all the items both answered, whatever the slice narrows the item table to."""
    systems = ["Closed-XL|native", "SeaLion-9B-it|en", "Gemma-2B|native"]
    at = app_test("compare", task="lindsea-mp", lang="id", metric="accuracy", slice="a_right_b_wrong")
    at.multiselect[0].set_value(systems).run()
    assert not at.exception
    assert len(frame_with(at, "item_id", "score_A")) < 40
    shown = frame_with(at, "pair", "system_a").set_index("pair")
    assert list(shown.index) == ["A vs B", "A vs C", "B vs C"]
    scores = {s: _item_scores(s.split("|")[0], "lindsea-mp", "id", s.split("|")[1], "accuracy") for s in systems}
    for pair, row in shown.iterrows():
        a, b = (systems["ABC".index(x)] for x in pair.split(" vs "))
        want = paired_test(scores[a], scores[b])
        assert (row["system_a"], row["system_b"]) == (a, b)
        assert (row["diff"], row["ci_low"], row["ci_high"]) == pytest.approx((want.diff, want.ci_low, want.ci_high),
                                                                             abs=1e-9, rel=0)
        assert (row["n"], row["p_value"], row["method"]) == (want.n, want.p_value, want.method)
    ab = shown.loc["A vs B"]
    sentence = next(m.value for m in at.markdown if m.value.startswith("**Paired test"))
    assert (f"on all {ab['n']} items of the cell both answered** ({md_escape(ab['method'])}): "
            f"A − B = {ab['diff']:+.1f}") in sentence


def test_bootstrap_intervals_do_not_depend_on_row_order():
    """The same answers in another order give the same stored interval (before, the resampling followed the order
    the rows arrived in, so the store's interval and the evaluator's on the file's order differed by ~1 point)."""
    cell = pairs("Gemma-2B", "sentiment", "th", "en")
    forward, backward = (next(c for c in aggregate_cell(TASKS["sentiment"], "th", p) if c.is_headline)
                         for p in (cell, cell[::-1]))
    assert "bootstrap" in forward.note and forward == backward


def test_leaderboard_usage_is_the_evaluators(db):
    """Cost and speed per model: `evaluator.usage.usage_summary` over the fixture's own answers of the benchmark."""
    from evaluator.usage import usage_summary

    at = app_test("leaderboard", bench="BHASA", prompt="English")
    assert not at.exception
    usage = next(d.value for d in at.dataframe if "tokens_out" in d.value.columns).set_index("model")
    for model in ("SeaLion-9B-it", "Gemma-2B", "Closed-XL"):
        answers = [p for p in predictions(model) if p.prompt_lang == "en" and TASKS[p.task].family == "bhasa"]
        want = usage_summary([{"requests": len(answers), "tokens_in": sum(p.tokens_in or 0 for p in answers),
                               "tokens_out": sum(p.tokens_out or 0 for p in answers),
                               "latency_sum": sum(p.latency_s or 0 for p in answers),
                               "latency_n": sum(p.latency_s is not None for p in answers),
                               "price_in": None, "price_out": None}])
        got = usage.loc[model]
        assert want["requests"] > 0
        assert got["requests"] == want["requests"]
        for k in ("tokens_in", "tokens_out"):  # a sum of 0 means the answers reported none: a dash, not 0
            assert got[k] == want[k] if want[k] else not got[k] > float("-inf")
        for k in ("mean_latency_s", "cost"):  # a missing figure is shown as a dash (stored NULL, -inf on display)
            assert not got[k] > float("-inf") if want[k] is None else got[k] == pytest.approx(want[k])


def _lindsea_items(model: str, lang: str, prompt_lang: str) -> list[tuple[str, str, float]]:
    """(branch, phenomenon, item score 0-1) of every LINDSEA item the model answered on a 0/1 metric, the score being
    the mean over its answers (runs and option orders), scored here by the evaluator."""
    branch = {"lindsea-mp": "syntax"}
    out = []
    for task in (t for t in TASKS if t.startswith("lindsea-")):
        binary = [m for m in TASKS[task].metrics if METRICS[m].binary]
        rows: dict[str, list] = {}
        for item, res in pairs(model, task, lang, prompt_lang):
            for m in binary:
                rows.setdefault((item.item_id, m), [item, []])[1].append(res.scores.get(m, 0.0))
        for item, scores in rows.values():
            out.append((branch.get(task, "pragmatics" if task.startswith("lindsea-pragmatic") else "semantics"),
                        item.metadata.get("phenomenon") or "translation", statistics.mean(scores)))
    return out


def _pooled(scores: list[float]) -> tuple[int, float, float, float]:
    n, k = len(scores), sum(scores)
    low, high = wilson(k / n, n)
    return n, 100 * k / n, 100 * low, 100 * high


def test_lindsea_tree_and_branches_are_the_evaluators(db):
    """The treemap's nodes (items, accuracy) and the branch bars (accuracy with its 95% Wilson interval) against the
    evaluator's item scores pooled by hand."""
    import base64
    import json

    import numpy as np

    def arr(v):  # Plotly's JSON writes numeric arrays as {"dtype", "bdata": base64}
        return np.frombuffer(base64.b64decode(v["bdata"]), v["dtype"]).tolist() if isinstance(v, dict) else v

    at = app_test("lindsea", model="SeaLion-9B-it", lang="id", prompt="en")
    assert not at.exception
    charts = [json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")]
    tree = next(d[0] for d in charts if d[0]["type"] == "treemap")
    nodes = {i: (n, v) for i, n, v in zip(tree["ids"], arr(tree["values"]), arr(tree["customdata"]))}
    bars = next(d for d in charts if d[0]["type"] == "bar")
    items = _lindsea_items("SeaLion-9B-it", "id", "en")
    want_root = _pooled([s for _, _, s in items])
    assert nodes["LINDSEA"] == (want_root[0], pytest.approx(want_root[1]))
    for b, ph in {(b, ph) for b, ph, _ in items}:
        n, v, _, _ = _pooled([s for b2, p2, s in items if (b2, p2) == (b, ph)])
        assert nodes[f"LINDSEA/{b}/{ph}"] == (n, pytest.approx(v))
    en = next(t for t in bars if t["name"] == "en")
    assert len(en["y"]) == len({b for b, _, _ in items})
    for label, x, plus, minus in zip(en["y"], arr(en["x"]), arr(en["error_x"]["array"]),
                                     arr(en["error_x"]["arrayminus"])):
        branch = label.split(" (n=")[0]
        n, v, low, high = _pooled([s for b, _, s in items if b == branch])
        assert (x, x - minus, x + plus) == pytest.approx((v, low, high))
    # the hover names the interval and n (customdata n, ci_low, ci_high), not Plotly's raw error arms
    assert "95% CI %{customdata[1]:.1f}-%{customdata[2]:.1f}, n=%{customdata[0]}" in en["hovertemplate"]
    assert "%{x}" not in en["hovertemplate"]
    custom = en["customdata"]
    if isinstance(custom, dict):  # a 2-D array as Plotly's JSON writes it: dtype, bdata, shape "rows, columns"
        custom = np.frombuffer(base64.b64decode(custom["bdata"]), custom["dtype"]).reshape(
            [int(k) for k in str(custom["shape"]).split(",")]).tolist()
    for label, (n, low, high), x, plus, minus in zip(en["y"], custom, arr(en["x"]), arr(en["error_x"]["array"]),
                                                     arr(en["error_x"]["arrayminus"])):
        assert (n, low, high) == (int(label.split(" (n=")[1].rstrip(")")), pytest.approx(x - minus),
                                  pytest.approx(x + plus))


def test_pacute_ceiling_is_the_evaluators(db):
    """The stars beside the PACUTE levels: each model's mean over the control tasks (English prompt) of the
    evaluator's cell scores on the chosen metric."""
    import json

    from evaluator.rollup import CONTROLS

    chosen = ["SeaLion-9B-it", "Gemma-2B", "Closed-XL"]
    at = app_test("pacute", models=chosen, fmt="MCQ", prompt="en")
    assert not at.exception
    spec = json.loads(next(c for c in at.get("plotly_chart") if "controls (ceiling)" in c.proto.spec).proto.spec)
    stars = {t["name"]: t["y"][0] for t in spec["data"] if t.get("x") == ["controls (ceiling)"]}
    lines = [t for t in spec["data"] if t.get("mode") == "lines+markers"]
    assert lines and all("95% CI %{customdata[2]:.1f}-%{customdata[3]:.1f}, n=%{customdata[1]}" in t["hovertemplate"]
                         and "%{y}" not in t["hovertemplate"] for t in lines)  # the interval, not the error arms
    controls = sorted({task for task, *_ in CELLS if task in CONTROLS})  # the fixture's control cells
    assert controls == ["pacute-langgame-mcq", "pacute-mda-mcq"]
    for model in chosen:
        values = [next(c.value for c in aggregate_cell(TASKS[t], "tl", pairs(model, t, "tl", "en"))
                       if c.metric == "mcq_acc") for t in controls]
        assert stars[model] == pytest.approx(statistics.mean(values))

