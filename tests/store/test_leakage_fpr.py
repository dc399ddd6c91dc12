"""On the demo store (models that cannot have seen the demo items, written for Tanaw) no leakage signal flags a
cell: the baselines, whose translations copy the source, the Gemma demo run, and the same models with their answers
shuffled or other items' references as answers; the Methodology's stated figures are these."""
from __future__ import annotations

import pytest

from services.demo import BASELINES, DEMO_MODEL, ensure_default_db
from services.leakage import cell_signals, false_positive_figures, stated_false_positives
from store.db import connect


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    con = connect(tmp_path_factory.mktemp("fpr") / "demo.duckdb")
    ensure_default_db(con)
    yield con
    con.close()


def test_the_demo_models_flag_nothing_copy_source_translations_included(demo):
    signals = cell_signals(demo)
    models = {s.model_id for s in signals}
    assert models == {DEMO_MODEL["model_id"], *BASELINES}
    assert {s.task for s in signals} == {"translation-xx-en", "translation-en-xx", "abssum", "qa"}
    assert [s for s in signals if s.flagged] == []
    copies = demo.execute("""
        SELECT count(*) FILTER (WHERE p.output = json_extract_string(i.inputs, '$.text')), count(*)
        FROM predictions p JOIN runs r USING (run_id) JOIN items i ON i.task = r.task AND i.lang = r.lang
             AND i.item_id = p.item_id
        WHERE r.model_id = ? AND r.task LIKE 'translation-%'""", [next(iter(BASELINES))]).fetchone()
    assert copies[0] == copies[1] == 192  # every baseline translation is its source, and none is flagged
    assert sum(s.n_items for s in signals if s.signal == "mt_verbatim") == 576


def test_the_stated_false_positive_figures_are_a_fresh_computation(demo):
    figures = false_positive_figures(demo)
    assert figures == stated_false_positives()
    assert {(r["signal"], r["variant"]): (r["flagged"], r["items"]) for r in figures} == {
        (s, v): (0, n) for s, n in (("mt_verbatim", 576), ("ngram_overlap", 504), ("unexplained_entities", 240))
        for v in ("as stored", "outputs shuffled", "references shuffled")}
    assert [r["upper"] for r in figures if r["variant"] == "as stored"] == \
        pytest.approx([0.006625, 0.007564, 0.015754], abs=1e-6)  # Wilson at 0 of n: 1.96²/(n + 1.96²)
