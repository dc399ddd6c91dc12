"""Answer extraction on hand-written outputs in every language (reasoning blocks, tags, label words, letters)."""
import unicodedata

import pytest
import yaml

from evaluator.extract import EXTRACTORS, split_reasoning
from evaluator.languages import LANGUAGES
from evaluator.registry import get_task
from evaluator.spec import Item, Prediction
from tests.helpers.samples import SAMPLES

DATA = SAMPLES


def run(task_name, lang, raw, gold="x", options=None, pred=None):
    task = get_task(task_name)
    item = Item(task=task.name, lang=lang, item_id="1", inputs={}, gold=gold, options=options)
    return EXTRACTORS[task.extractor](raw, task=task, lang=lang, item=item, pred=pred)


def test_every_registry_extractor_exists():
    from evaluator.registry import TASKS
    assert {t.extractor for t in TASKS.values()} <= set(EXTRACTORS)


def test_think_and_reflection_are_split_off_and_kept():
    text, reasoning = split_reasoning("<think>hmm, maybe B</think>\n<reflection>sure</reflection>\nJawaban: A")
    assert text == "Jawaban: A"
    assert reasoning == "hmm, maybe B\n\nsure"
    # opening tag in the prompt, only the closing one in the output (DeepSeek-R1 style)
    assert split_reasoning("thinking...</think>Positive") == ("Positive", "thinking...")
    assert split_reasoning(None) == ("", None)


@pytest.mark.parametrize("lang,raw,expected", [
    ("id", "Jawaban: Positif", "positive"),
    ("id", "**Negatif**", "negative"),
    ("id", "Sentimen kalimat ini netral.", "neutral"),
    ("vi", "Câu trả lời: Tích cực", "positive"),
    ("vi", "tiêu cực", "negative"),
    ("vi", "Câu trả lời: Trung lập.", "neutral"),
    ("th", "คำตอบ: แง่ลบ", "negative"),
    ("th", "เฉยๆ", "neutral"),
    ("ta", "பதில்: நேர்மறை", "positive"),
    ("ta", "எதிர்மறை", "negative"),
    ("ta", "Answer: Negative", "negative"),
    ("id", "<think>Positif atau negatif?</think>Jawaban: Negatif", "negative"),
    ("vi", unicodedata.normalize("NFD", "Câu trả lời: Tiêu cực"), "negative"),  # decomposed diacritics
    ("th", "ประโยคนี้มีความรู้สึกเชิงบวก", "positive"),
    ("ta", "இந்த வாக்கியம் எதிர்மறை உணர்வை வெளிப்படுத்துகிறது.", "negative"),  # label word inside a sentence
])
def test_sentiment_label_words(lang, raw, expected):
    ex = run("sentiment", lang, raw)
    assert (ex.answer, ex.parsed) == (expected, True)


@pytest.mark.parametrize("lang,raw,expected", [
    ("id", "Jawaban: Bersih", "clean"),
    ("id", "Kasar", "abusive"),
    ("vi", "Câu trả lời: Công kích", "offensive"),
    ("vi", "Thù ghét", "hate"),
    ("th", "คำตอบ: Y", "toxic"),
    ("th", "N", "non-toxic"),
    ("th", "Non-toxic", "non-toxic"),
    ("th", "This tweet is not toxic.", "non-toxic"),
])
def test_toxicity_label_words(lang, raw, expected):
    ex = run("toxicity", lang, raw)
    assert (ex.answer, ex.parsed) == (expected, True)


@pytest.mark.parametrize("raw", ["", None, "I cannot answer that.", "Positive or negative, hard to say",
                                 "Neutral"])
def test_unparseable_sentiment_is_flagged(raw):
    ex = run("sentiment", "ta", raw)  # Tamil sentiment has no neutral class
    assert ex.parsed is False and ex.answer is None and ex.extras["failure"]


@pytest.mark.parametrize("raw,expected", [
    ("A", "A"), ("B.", "B"), ("(C)", "C"), ("**B**", "B"), ("Jawaban: C", "C"), ("Answer: B\nBecause ...", "B"),
    ("Option A", "A"), ("The answer is B", "B"), ("<answer>C</answer>", "C"), ("பதில்: A", "A"),
])
def test_letters(raw, expected):
    ex = run("nli", "id", raw)
    assert (ex.answer, ex.parsed) == (expected, True)


@pytest.mark.parametrize("raw", ["A or B", "D", "I think it is entailment", ""])
def test_letter_failures(raw):
    assert run("nli", "id", raw).parsed is False


@pytest.mark.parametrize("lang,raw,gold,expected", [
    ("id", "Benar", "True", "true"), ("id", "Salah.", "True", "false"), ("ta", "உண்மை", "False", "true"),
    ("ta", "பதில்: பொய்", "False", "false"), ("id", "Ya", "Yes", "yes"), ("id", "True", "Yes", "yes"),
    ("id", "Tidak", "No", "no"), ("id", "Jawaban: **FALSE**", "True", "false"),
    ("ta", "இந்த கூற்று பொய்.", "True", "false"), ("id", "Pernyataan itu benar.", "False", "true"),
])
def test_true_false(lang, raw, gold, expected):
    ex = run("lindsea-pragmatic-single", lang, raw, gold=gold)
    assert (ex.answer, ex.parsed) == (expected, True)


def test_pacute_answer_block_and_first_line():
    ex = run("pacute-affixation-gen", "tl", "<reflection>the prefix is um-</reflection>\n<answer>uminom</answer>")
    assert (ex.answer, ex.reasoning, ex.extras["via"]) == ("uminom", "the prefix is um-", "answer_block")
    assert run("pacute-affixation-gen", "tl", "uminom\nbecause...").answer == "uminom"
    assert run("pacute-affixation-gen", "tl", "  ").parsed is False


def test_option_logprob_argmax_ties_first_and_text_fallback():
    opts = ("kumain", "kinain", "kakain")
    p = Prediction(task="pacute-affixation-mcq", lang="tl", item_id="1", prompt_lang="en", output=None,
                   option_logprobs=(-3.0, -1.5, -1.5))
    ex = run("pacute-affixation-mcq", "tl", None, gold="kinain", options=opts, pred=p)
    assert (ex.answer, ex.extras["choice"], ex.extras["via"]) == ("kinain", 1, "logprob")
    ex = run("pacute-affixation-mcq", "tl", "C", gold="kinain", options=opts)
    assert (ex.answer, ex.extras["via"]) == ("kakain", "text_letter")
    bad = Prediction(task="pacute-affixation-mcq", lang="tl", item_id="1", prompt_lang="en", output=None,
                     option_logprobs=(-1.0,))
    assert run("pacute-affixation-mcq", "tl", None, options=opts, pred=bad).parsed is False


@pytest.mark.needs_samples
def test_answer_tags_match_seahelm_fewshot_labels():
    for path in (DATA / "seahelm-configs").glob("nlu_*.yaml"):
        for task in yaml.safe_load(path.read_text(encoding="utf-8")).values():
            for lang, conf in task["languages"].items():
                label = conf["prompt_template"].get("fewshot_label", "")
                if lang in LANGUAGES and label:
                    assert label.split(":")[0] == LANGUAGES[lang].answer_tag, (path.name, lang, label)


@pytest.mark.parametrize("task,lang,raw,expected", [
    ("translation-en-xx", "id", "Terjemahan: Saya makan nasi.", "Saya makan nasi."),
    ("translation-xx-en", "th", "Translation: I eat rice.", "I eat rice."),
    ("translation-en-xx", "ta", "மொழிபெயர்ப்பு: நான் சாப்பிடுகிறேன்", "நான் சாப்பிடுகிறேன்"),
    ("abssum", "vi", "Bản tóm tắt: Giá gạo tăng.", "Giá gạo tăng."),
    ("abssum", "id", "<think>ringkas</think>\nRangkuman:\nHarga beras naik.", "Harga beras naik."),
    ("abssum", "th", "ราคาข้าวสูงขึ้น", "ราคาข้าวสูงขึ้น"),
])
def test_generation_output_tags(task, lang, raw, expected):
    ex = run(task, lang, raw)
    assert (ex.answer, ex.parsed) == (expected, True)


@pytest.mark.needs_samples
@pytest.mark.parametrize("family,config", [("translation", "nlg_translation.yaml"),
                                          ("summary", "nlg_abstractive_summarization.yaml")])
def test_output_tags_match_seahelm_fewshot_labels(family, config):
    doc = yaml.safe_load((DATA / "seahelm-configs" / config).read_text(encoding="utf-8"))
    for task in doc.values():
        for lang, conf in task["languages"].items():
            label = conf["prompt_template"].get("fewshot_label", "")
            if lang in LANGUAGES and label:
                assert label.split(":")[0] == LANGUAGES[lang].output_tags[family], (config, lang, label)


def test_letter_from_repeated_option_text_respects_order():
    opts = ("Dia pergi ke dokter.", "Dia makan siang.")
    assert run("causal", "id", "Dia makan siang.", gold="B", options=opts).answer == "B"
    ba = Prediction(task="causal", lang="id", item_id="1", prompt_lang="en", output=None, order="ba")
    ex = run("causal", "id", "dia makan siang", gold="B", options=opts, pred=ba)
    assert (ex.answer, ex.extras["via"]) == ("A", "whole+option_text")  # shown first when swapped
    assert run("causal", "id", "Dia tidur.", gold="B", options=opts).parsed is False


def test_free_text_is_passed_on_unchanged_for_reference_metrics():
    """chrF++/ROUGE must see the model's own code points (a non-NFC reference stays comparable)."""
    decomposed = unicodedata.normalize("NFD", "Tổ bay trên một chuyến bay")
    assert run("abssum", "vi", decomposed).answer == decomposed
