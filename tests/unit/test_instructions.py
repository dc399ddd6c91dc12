"""SEA-IFEval instruction checkers: every instruction type follows a passing answer and refuses a failing one in a
SEA language; loose variants, the language check and the answer reader as SEA-HELM and IFEval define them."""
from __future__ import annotations

import json

import pytest

from evaluator import instructions as I
from evaluator.extract import extract
from evaluator.metrics.ifeval import INSTRUCTION_LOOSE, INSTRUCTION_STRICT
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item, Prediction

# (instruction id, language, kwargs, an answer that follows it, one that does not) — hand-written answers
CASES = [
    ("length_constraints:number_words", "id", {"relation": "less than", "num_words": 5},
     "Saya suka kopi pagi.", "Saya suka minum kopi hitam setiap pagi."),
    ("length_constraints:number_sentences", "vi", {"relation": "exactly", "num_sentences": 2},
     "Trời hôm nay đẹp. *** Chúng tôi đi dạo.", "Trời hôm nay đẹp. Chúng tôi đi dạo."),
    ("length_constraints:number_paragraphs", "th", {"num_paragraphs": 2},
     "ย่อหน้าแรก\n***\nย่อหน้าที่สอง", "ย่อหน้าเดียวเท่านั้น"),
    ("detectable_content:number_placeholders", "tl", {"num_placeholders": 2},
     "Pumunta si [pangalan] sa [lugar].", "Pumunta si [pangalan] sa [ ]."),
    ("detectable_content:postscript", "th", {"postscript_marker": "ป.ล."},
     "ขอบคุณมาก\nป.ล. พบกันพรุ่งนี้", "ขอบคุณมาก พบกันพรุ่งนี้"),
    ("detectable_format:title", "id", {},
     "<<Kisah Danau Toba>>\nDahulu kala ada seorang petani.", "<< >>\nDahulu kala ada seorang petani."),
    ("detectable_format:number_bullet_lists", "vi", {"num_bullets": 2},
     "* Táo\n* Cam", "* Táo\n*Cam"),
    ("detectable_format:multiple_sections", "id", {"section_title": "Bagian", "num_sections": 2},
     "Bagian 1\nPembuka\nBagian 2\nPenutup", "Bagian1 Pembuka\nBagian2 Penutup"),
    ("detectable_format:number_highlighted_sections", "tl", {"num_highlights": 2},
     "Ang *una* at ang *ikalawa*.", "Ang *una* lamang."),
    ("detectable_format:json_format", "th", {},
     '```json\n{"คำตอบ": "ใช่"}\n```', 'นี่คือคำตอบ {"คำตอบ": "ใช่"}'),
    ("detectable_format:constrained_response", "tl", {},
     "Sa tingin ko, Ang sagot ko ay oo.", "Oo naman, sigurado ako."),
    ("startend:first_word", "id", {"first_word": "Halo"},
     "halo semuanya, apa kabar?", "Selamat pagi, halo semuanya."),
    ("startend:end_checker", "vi", {"end_phrase": "Còn câu hỏi nào khác không?"},
     "Đây là câu trả lời. Còn câu hỏi nào khác không?", "Đây là câu trả lời. Cảm ơn."),
    ("startend:quotation", "th", {}, '"สวัสดีครับ"', "สวัสดีครับ"),
    ("keywords:existence", "id", {"keywords": ["pantai", "ombak"]},
     "Ombak di pantai itu tinggi.", "Ombak di pantaian itu tinggi."),
    ("keywords:forbidden_words", "vi", {"forbidden_words": ["nóng"]},
     "Hôm nay trời mát.", "Hôm nay trời Nóng quá."),
    ("keywords:frequency", "th", {"keyword": "แมว", "relation": "at least", "frequency": 2},
     "แมวดำกับแมวขาว", "แมวดำกับหมาขาว"),
    ("keywords:number_frequency", "tl", {"number": "7", "relation": "exactly", "frequency": 1},
     "May 7 araw sa isang linggo.", "May 7 araw at 7 gabi."),
    ("combination:repeat_prompt", "id", {"prompt_to_repeat": "Apa ibu kota Indonesia?"},
     "Apa ibu kota Indonesia? Ibu kotanya Jakarta.", "Apa ibu kota Indonesia?"),
    ("combination:two_responses", "vi", {},
     "Câu trả lời thứ nhất.\n******\nCâu trả lời thứ hai.", "Chỉ có một câu trả lời."),
    ("language:response_language", "id", {"response_language": "th"},
     "วันนี้อากาศดีมาก พวกเราจะไปเที่ยวทะเลด้วยกัน",
     "Hari ini cuacanya sangat cerah dan kami pergi ke pantai bersama."),
]


def test_every_registered_instruction_type_has_a_case():
    assert sorted(c[0] for c in CASES) == sorted(I.CHECKERS) and len(I.CHECKERS) == 21


@pytest.mark.parametrize("inst_id,lang,kwargs,good,bad", CASES, ids=[c[0] for c in CASES])
def test_checker_follows_the_passing_answer_and_not_the_failing_one(inst_id, lang, kwargs, good, bad):
    inst = I.instruction_of(inst_id, kwargs)
    assert I.is_followed(good, lang, inst) is True
    assert I.is_followed(bad, lang, inst) is False


def test_keywords_are_whole_words_in_spaced_languages_and_substrings_in_thai():
    inst = I.instruction_of("keywords:existence", {"keywords": ["api"]})
    assert I.is_followed("Mereka melihat api.", "id", inst) and not I.is_followed("Mereka kapinya.", "id", inst)
    thai = I.instruction_of("keywords:existence", {"keywords": ["น้ำ"]})
    assert I.is_followed("ดื่มน้ำเย็น", "th", thai)  # no spaces between Thai words: found inside the run


def test_dataset_words_are_matched_literally_never_as_patterns():
    inst = I.instruction_of("keywords:frequency", {"keyword": "a.c", "relation": "exactly", "frequency": 1})
    assert I.is_followed("Nyalakan a.c sekarang.", "id", inst)
    assert not I.is_followed("Nyalakan abc sekarang.", "id", inst)  # "." is a dot, not any character


def test_loose_variants_are_ifeval_s_eight():
    assert I.loose_variants("Tentu!\n**Halo** semua\nSalam") == (
        "Tentu!\n**Halo** semua\nSalam", "Tentu!\nHalo semua\nSalam", "**Halo** semua\nSalam",
        "Tentu!\n**Halo** semua", "**Halo** semua", "Halo semua\nSalam", "Tentu!\nHalo semua", "Halo semua")
    inst = I.instruction_of("startend:first_word", {"first_word": "halo"})
    for response in ("**Halo** semua", "Tentu!\nHalo semua"):
        assert not I.is_followed(response, "id", inst) and I.is_followed(response, "id", inst, loose=True)


def test_language_check_is_seahelm_s():
    assert I.detect_language("Selamat pagi, apa kabar Anda hari ini? Saya baik-baik saja.") == "id"
    assert I.language_matches("ms", "id") and I.language_matches("id", "ms") and not I.language_matches("en", "id")
    outcome = I.follow("Good morning, how are you today? I am fine, thank you.", "id",
                       [I.instruction_of("startend:first_word", {"first_word": "good"})])
    assert outcome.strict == (True,) and outcome.detected == "en" and not outcome.language_ok
    # a language instruction sets the language required
    th = I.follow("วันนี้อากาศดีมาก พวกเราจะไปเที่ยวทะเลด้วยกัน", "id",
                  [I.instruction_of("language:response_language", {"response_language": "th"})])
    assert th.language == "th" and th.language_ok


def test_bad_instructions_are_refused_naming_the_instruction_and_kwarg():
    with pytest.raises(I.InstructionError, match="unknown instruction checker 'keywords:existance'.*existence"):
        I.instruction_of("keywords:existance", {"keywords": ["a"]})
    with pytest.raises(I.InstructionError, match=r"keywords:existence: kwargs\.keyword: not an argument"):
        I.instruction_of("keywords:existence", {"keyword": "a"})
    with pytest.raises(I.InstructionError, match=r"startend:first_word: kwargs\.first_word: missing"):
        I.instruction_of("startend:first_word", {"first_word": None})
    with pytest.raises(I.InstructionError, match="relation 'about' is not one of"):
        I.is_followed("a b", "id", I.instruction_of("length_constraints:number_words",
                                                    {"relation": "about", "num_words": 2}))


def _item(lang: str, gold: list) -> Item:
    return Item(task="sea-ifeval", lang=lang, item_id="1", inputs={"text": "x"}, gold=gold)


def test_reader_and_metrics_score_prompt_and_instruction_level():
    task = get_task("sea-ifeval")
    gold = [{"id": "startend:first_word", "kwargs": {"first_word": "Halo"}},
            {"id": "keywords:existence", "kwargs": {"keywords": ["pantai"]}}]
    item = _item("id", gold)
    # the first instruction is followed only loosely (bold), the second strictly: prompt strict 0, loose 1
    pred = Prediction("sea-ifeval", "id", "1", "native", "**Halo** teman-teman, mari kita pergi ke pantai besok pagi.")
    result = score_prediction(task, item, pred)
    assert result.extras["strict"] == [False, True] and result.extras["loose"] == [True, True]
    assert result.scores == {"ifeval_prompt_strict": 0.0, "ifeval_prompt_loose": 1.0, "ifeval_language": 1.0}
    assert result.answer == "followed 1/2 strict, 2/2 loose; language id (as required)"
    rows = [(result.answer, gold, result.extras)]
    assert INSTRUCTION_STRICT.corpus(rows) == 0.5 and INSTRUCTION_LOOSE.corpus(rows) == 1.0
    # an English answer follows nothing, whatever it obeys
    english = score_prediction(task, item, Prediction("sea-ifeval", "id", "1", "native",
                                                      "Halo friends, let us go to the pantai tomorrow morning."))
    assert english.scores["ifeval_prompt_loose"] == 0.0 and english.scores["ifeval_language"] == 0.0
    assert INSTRUCTION_LOOSE.corpus([(english.answer, gold, english.extras)]) == 0.0


def test_reader_splits_reasoning_and_refuses_empty_or_unclosed():
    task = get_task("sea-ifeval")
    item = _item("id", [{"id": "startend:first_word", "kwargs": {"first_word": "Halo"}}])
    think = extract(task, item, Prediction("sea-ifeval", "id", "1", "native",
                                           "<think>mulai dengan sapaan</think>Halo semua, selamat datang di sini."))
    assert think.parsed and think.reasoning == "mulai dengan sapaan" and think.extras["strict"] == [True]
    unclosed = extract(task, item, Prediction("sea-ifeval", "id", "1", "native", "<think>Halo semua"))
    assert not unclosed.parsed and unclosed.answer is None
    empty = score_prediction(task, item, Prediction("sea-ifeval", "id", "1", "native", "   "))
    assert not empty.parsed and empty.scores["ifeval_prompt_loose"] == 0.0


def test_drill_down_rows_list_failed_instructions_first_and_ignore_other_extras():
    from services.compare import instruction_outcomes

    extras = {"instructions": ["startend:first_word", "keywords:existence"], "strict": [True, False],
              "loose": [True, True], "language": "id", "detected_language": "ms", "language_ok": True}
    rows = instruction_outcomes(json.dumps(extras))
    assert rows.values.tolist() == [["keywords:existence", "FAILED", "followed"],
                                    ["startend:first_word", "followed", "followed"],
                                    ["response language id (detected ms)", "followed", "followed"]]
    assert instruction_outcomes('{"via": "answer_tag"}') is None and instruction_outcomes("not json") is None
    assert instruction_outcomes(None) is None


def test_hostile_answers_get_an_answer_not_a_hang_or_a_crash():
    # each of these made SEA-HELM's pattern backtrack quadratically (minutes at this size) or crash
    n = 200_000
    assert not I.CHECKERS["detectable_content:postscript"](" " * n + "x", "id", postscript_marker="P.S.")
    assert I.CHECKERS["detectable_content:postscript"](" " * n + "P. S. x", "id", postscript_marker="P.S.")
    assert I.CHECKERS["detectable_format:number_bullet_lists"]("\n" * n + "* a", "id", num_bullets=1)
    assert not I.CHECKERS["detectable_format:title"]("<" * n, "id")
    assert I.CHECKERS["detectable_format:title"]("<" * n + "x>>", "id")
    assert not I.CHECKERS["detectable_content:number_placeholders"]("[" * n, "id", num_placeholders=1)
    assert I.CHECKERS["detectable_content:number_placeholders"]("[" * n + "x]", "id", num_placeholders=1)
    assert not I.CHECKERS["detectable_format:json_format"]("[" * n + "]" * n, "id")  # deeper than Python's stack
