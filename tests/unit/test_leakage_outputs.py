"""The output signals on hand-made items: what counts as a verbatim reference, a copy of the source, a long
unexplained overlap and an unexplained name (BHASA Figure 3), and the declaration matching."""
from __future__ import annotations

from evaluator.leakage.declared import check_declaration, declared_signals, key
from evaluator.leakage.outputs import (NGRAM_CHARS, cell_signals, entities, mt_verbatim, normalise, shared_runs,
                                       signal_kinds, unexplained_entities)
from evaluator.metrics.translation import chrf_sentence
from evaluator.registry import TASKS
from evaluator.spec import Item, ItemResult, Prediction

REF = "The committee approved the new budget for rural schools on Tuesday."
MT = Item("translation-xx-en", "id", "m1", {"text": "Komite menyetujui anggaran baru untuk sekolah desa pada Selasa."},
          REF)


def _pair(item: Item, answer: str | None, run: int = 1):
    pred = Prediction(item.task, item.lang, item.item_id, "en", answer, run=run)
    return item, ItemResult(pred, answer, answer is not None, None, {})


def test_verbatim_after_normalisation_and_near_verbatim_by_chrf():
    assert normalise('  “The Committee  approved the new budget for rural schools on Tuesday”  ') == normalise(REF)
    assert mt_verbatim("the committee approved the new budget for rural schools on tuesday", MT)
    near = "The committee approved the new budget for rural schools on Tuesday!"  # one mark differs
    assert chrf_sentence(near, REF) >= 0.95 and mt_verbatim(near, MT)
    close = "The committee approved a new budget for village schools on Tuesday."
    assert chrf_sentence(close, REF) < 0.95 and not mt_verbatim(close, MT)
    assert not mt_verbatim("", MT) and not mt_verbatim(None, MT)


def test_a_copy_of_the_source_is_not_leakage_even_when_it_equals_the_reference():
    same = Item("translation-xx-en", "ms", "m2", {"text": "Kuala Lumpur International Airport, Sepang"},
                "Kuala Lumpur International Airport, Sepang")
    assert not mt_verbatim(same.inputs["text"], same)
    assert not mt_verbatim(MT.inputs["text"], MT)


def test_short_references_are_not_judged():
    short = Item("translation-xx-en", "id", "m3", {"text": "Terima kasih."}, "Thank you.")
    assert not mt_verbatim("Thank you.", short)


def test_long_overlap_counts_only_what_the_inputs_do_not_explain():
    article = "Polisi mengatakan seorang anak laki-laki ditemukan tewas di sungai dekat rumahnya di Jawa Barat."
    ref = "Jani, bocah berusia 10 tahun, ditemukan tewas di sungai dekat rumahnya, kata polisi Jawa Barat."
    item = Item("abssum", "id", "s1", {"text": article}, ref)
    assert shared_runs("Seorang anak laki-laki ditemukan tewas di sungai dekat rumahnya di Jawa Barat.", item) == []
    runs = shared_runs("Jani, bocah berusia 10 tahun, ditemukan tewas di sungai.", item)
    shared = "jani, bocah berusia 10 tahun, ditemukan tewas di sungai"  # 55 characters: 6 runs of 50
    assert runs == sorted(shared[i:i + NGRAM_CHARS] for i in range(6))


def test_a_name_in_reference_and_summary_but_not_the_article_is_flagged():
    article = "Seorang bocah ditemukan tewas di sungai. Polisi Jawa Barat menyelidiki kasus ini."
    item = Item("abssum", "id", "s2", {"text": article, "title": "Bocah tewas"},
                "Jani, bocah 10 tahun, ditemukan tewas di sungai di Jawa Barat.")
    assert entities("Jani Sule tinggal di Desa Suka Maju. Ia ke Jakarta.") == {"jani sule", "desa suka maju",
                                                                                "jakarta"}
    assert unexplained_entities("Polisi menemukan Jani tewas di sungai Jawa Barat.", item) == ["jani"]
    assert unexplained_entities("Polisi menemukan bocah tewas di sungai Jawa Barat.", item) == []
    assert entities("ในวันอังคาร คณะกรรมการอนุมัติงบประมาณ") == set()  # no letter case: silent


def test_a_cell_is_flagged_with_the_items_any_answer_flags():
    other = Item("translation-xx-en", "id", "m9", {"text": "Hujan turun deras semalam di kota itu."},
                 "It rained heavily last night in that town.")
    pairs = [_pair(MT, "A committee said yes."), _pair(MT, REF, run=2), _pair(other, "Rain fell.")]
    [sig] = cell_signals(TASKS["translation-xx-en"], "id", pairs, "M", "en")
    assert (sig.signal, sig.flagged, sig.item_ids, sig.n_items, sig.statistic) == ("mt_verbatim", True, ("m1",), 2,
                                                                                    0.5)
    assert signal_kinds(TASKS["abssum"]) == ("ngram_overlap", "unexplained_entities")
    assert signal_kinds(TASKS["qa"]) == ("ngram_overlap",) and signal_kinds(TASKS["sentiment"]) == ()


def test_declared_names_match_task_family_or_dataset():
    assert key("XL-Sum (Batayan)") == key("xlsum") == "xlsum"
    cells = [("abssum", "tl", "en"), ("translation-xx-en", "id", "native"), ("sentiment", "id", "en")]
    flags = declared_signals("M", ["xl-sum", "unknown"], cells, TASKS)
    assert [(s.task, s.lang, s.signal, s.flagged) for s in flags] == [("abssum", "tl", "declared", True)]
    assert check_declaration(["FLORES-200", "abssum", "bhasa"], "Common Crawl", TASKS.values()) == []
    assert check_declaration([""], None, TASKS.values()) == ["declared_data[0]: expected a benchmark, task or "
                                                             "dataset name, got ''"]
