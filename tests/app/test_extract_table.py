"""The extraction table: hand-written outputs in every language (id, vi, th, ta and the English prompt) for BHASA
and LINDSEA tasks, each with the answer it must give and why.

Covers the cases measured against SEA-HELM's own extraction (aisingapore/SEA-HELM @ 360c7cc,
`seahelm_tasks/seahelm_metric.py` and the task metric classes): negations, echoed choices, lower-case letters,
several answer tags, unclosed reasoning blocks and decomposed (NFD) text. `None` = unparsed (scored wrong and
counted as an instruction-following failure). The same rules are stated on the Methodology page.
"""
import unicodedata

import pytest

from evaluator.extract import EXTRACTORS
from evaluator.registry import get_task
from evaluator.spec import Item


def nfd(s: str) -> str:
    out = unicodedata.normalize("NFD", s)
    assert out != s, "the NFD row must really be decomposed"
    return out


# (task, item language, model output, expected answer, why)
SENTIMENT = [
    ("id", "Jawaban: Positif", "positive", "plain native tag and label"),
    ("id", "Jawaban: Bukan Positif", None, "negation: 'bukan' negates positif (SEA-HELM: null label too)"),
    ("id", "Jawaban: bukan positif, melainkan negatif", "negative", "the one label not negated"),
    ("id", "jawaban: netral", "neutral", "lower-case tag and label"),
    ("id", "Jawaban: Positif\nJawaban: Negatif", None, "several tags that disagree: unparsed, not first or last"),
    ("id", "Jawaban: Negatif\n\nJawaban: Negatif", "negative", "several tags that agree"),
    ("id", "<think>Kalimatnya memuji. Jawaban: Positif", None, "unclosed <think>: no final answer was given"),
    ("id", "<think>Mungkin positif.</think>\nJawaban: Negatif", "negative", "closed reasoning is split off"),
    ("id", "Jawaban: Positif, Negatif, atau Netral", None, "echoed the choice list"),
    ("vi", "Câu trả lời: Không tích cực", None, "negation: 'không' negates tích cực"),
    ("vi", nfd("Câu trả lời: Tiêu cực"), "negative", "NFD diacritics are composed before matching"),
    ("vi", "câu trả lời: trung lập", "neutral", "lower-case tag"),
    ("vi", "Câu trả lời: Tích cực\nCâu trả lời: Tiêu cực", None, "several tags that disagree"),
    ("vi", "<think>Tích cực", None, "unclosed <think>"),
    ("th", "คำตอบ: ไม่ใช่แง่บวก", None, "negation: 'ไม่ใช่' negates แง่บวก (no space in Thai)"),
    ("th", "คำตอบ: แง่ลบ", "negative", "plain native tag and label"),
    ("th", "คำตอบ: แง่บวก หรือ แง่ลบ", None, "echoed the choices ('หรือ' = or)"),
    ("th", "คำตอบ: เฉยๆ\nคำตอบ: เฉยๆ", "neutral", "several tags that agree"),
    ("th", "<think>แง่บวก", None, "unclosed <think>"),
    ("ta", "பதில்: நேர்மறை அல்ல", None, "negation after the word: 'அல்ல' (SEA-HELM: null)"),
    ("ta", "பதில்: நேர்மறையல்ல", None, "negation fused with a y-glide"),
    ("ta", "பதில்: எதிர்மறை", "negative", "plain native tag and label"),
    ("ta", "பதில்: நேர்மறை அல்லது எதிர்மறை", None, "echoed the choices: 'அல்லது' (or) is not 'அல்ல' (not)"),
    ("ta", "பதில்: நேர்மறை\nபதில்: எதிர்மறை", None, "several tags that disagree"),
    ("ta", "Answer: Not positive", None, "English prompt: 'not' negates positive"),
    ("ta", "Answer: negative", "negative", "English prompt, lower-case"),
    ("id", "The sentiment is not negative; it is positive.", "positive", "English prompt: the label not negated"),
    ("id", "Answer: Positive\nAnswer: Neutral", None, "English prompt, several tags that disagree"),
]

TOXICITY = [
    ("id", "Jawaban: Tidak Kasar", None, "negation: 'tidak' negates kasar (never read as abusive)"),
    ("id", "Jawaban: Bersih", "clean", "plain native label"),
    ("id", "jawaban: benci", "hate", "lower-case tag and label"),
    ("vi", "Câu trả lời: Không phải thù ghét", None, "negation: 'không phải' negates thù ghét"),
    ("vi", nfd("Câu trả lời: Công kích"), "offensive", "NFD text"),
    ("th", "คำตอบ: n", "non-toxic", "Thai's one-letter labels (Y/N), lower-case"),
    ("th", "คำตอบ: Y\nคำตอบ: N", None, "several tags that disagree"),
    ("id", "Answer: Not hate", None, "English prompt: 'not' negates hate"),
    ("th", "Answer: not toxic", "non-toxic", "English prompt: 'not toxic' is the name of the label, not a negation"),
    ("id", "<think>Ada kata kasar", None, "unclosed <think>"),
]

NLI = [
    ("id", "jawaban: c", "C", "lower-case letter after the tag (SEA-HELM reads C too)"),
    ("vi", "câu trả lời: c", "C", "lower-case letter after a lower-case tag"),
    ("vi", nfd("Câu trả lời: A"), "A", "NFD: the decomposed 'C' of 'Câu' is not a lone letter C"),
    ("th", "คำตอบ: b", "B", "lower-case letter"),
    ("ta", "பதில்: (a)", "A", "lower-case letter in brackets"),
    ("id", "Jawaban: Bukan A, tetapi C", "C", "a negated letter is not the answer"),
    ("id", "Answer: B\nAnswer: C", None, "English prompt, several tags that disagree"),
    ("vi", "Answer: B\n\nFinal answer: B", "B", "English prompt, several tags that agree"),
    ("th", "<think>A หรือ C", None, "unclosed <think>"),
    ("ta", "a cat sat on the mat", None, "the article 'a' inside a sentence is not the letter A"),
    ("my", "အဖြေ- ခ", "B", "Burmese letter after SEA-HELM's hyphen-ended tag (SEA-HELM reads ခ too)"),
    ("my", "အဖြေ- က သို့မဟုတ် ခ", None, "echoed the choices in Burmese letters ('သို့မဟုတ်' = or)"),
]

CAUSAL = [
    ("id", "Jawaban: b", "B", "lower-case letter"),
    ("th", "คำตอบ: A\nคำตอบ: B", None, "several tags that disagree"),
    ("ta", "<think>A என்று நினைக்கிறேன்</think>பதில்: B", "B", "closed reasoning split off"),
    ("vi", "<think>A", None, "unclosed <think>"),
]

MINIMAL_PAIRS = [
    ("id", "a", "A", "a lone lower-case letter (205 such LINDSEA rows were unparsed before)"),
    ("id", "jawaban: b", "B", "lower-case letter after a lower-case tag"),
    ("ta", "பதில்: b", "B", "lower-case letter after the Tamil tag"),
    ("ta", "Answer: (b)", "B", "English prompt, lower-case letter in brackets"),
    ("id", "Jawaban: A\nJawaban: B", None, "several tags that disagree"),
    ("ta", "<think>A", None, "unclosed <think>"),
]

PRAGMATIC = [  # (lang, output, gold, expected, why)
    ("id", "Benar atau Salah", "True", None, "echoed choices are unparsed, not true (33 of 33 were read as true)"),
    ("id", "Jawaban: Benar atau Salah", "True", None, "echoed choices after the tag"),
    ("ta", "உண்மை அல்லது பொய்", "True", None, "echoed choices: 'அல்லது' = or"),
    ("ta", "உண்மை அல்ல", "False", None, "'not true' is never read as true (11 of 11 were)"),
    ("ta", "பதில்: பொய்", "False", "false", "plain native tag and word"),
    ("ta", nfd("பதில்: பொய்"), "False", "false", "NFD Tamil: ொ decomposed into ெ + ா"),
    ("id", "Tidak benar", "True", None, "negation: 'tidak' negates benar (and is not read as 'no')"),
    ("id", "Tidak", "No", "no", "'tidak' alone is the answer no"),
    ("id", "Ya atau Tidak", "Yes", None, "echoed yes/no choices"),
    ("id", "jawaban: salah", "False", "false", "lower-case tag and word"),
    ("id", "Salah. Pernyataan itu tidak benar.", "False", "false", "answer first, then an explanation"),
    ("id", "Jawaban: Benar\nJawaban: Salah", "True", None, "several tags that disagree"),
    ("ta", "<think>உண்மை", "True", None, "unclosed <think>"),
    ("id", "True or False", "True", None, "English prompt: echoed choices"),
    ("ta", "Answer: False", "True", "false", "English prompt and word"),
    ("id", "Answer: not true", "False", None, "English prompt: 'not' negates true"),
]

QA = [
    ("id", "Jawaban: Jakarta\nJawaban: Bandung", None, "several tags with different spans"),
    ("id", "Jawaban: Jakarta\n\nJawaban: jakarta", "Jakarta", "several tags with the same span"),
    ("th", "<think>กรุงเทพ", None, "unclosed <think>"),
    ("vi", nfd("Câu trả lời: Hà Nội"), "Hà Nội", "NFD span composed, so F1 compares it with the NFC gold"),
]


def extract(task_name, lang, raw, gold="x", options=None):
    task = get_task(task_name)
    item = Item(task=task.name, lang=lang, item_id="1", inputs={}, gold=gold, options=options)
    return EXTRACTORS[task.extractor](raw, task=task, lang=lang, item=item)


def check(task_name, lang, raw, expected, why, gold="x"):
    ex = extract(task_name, lang, raw, gold)
    assert ex.answer == expected, f"{task_name}/{lang} {raw!r}: {why}; got {ex.answer!r} {dict(ex.extras)}"
    assert ex.parsed is (expected is not None), why
    if expected is None:
        assert ex.extras["failure"], "an unparsed answer says why"


def _ids(rows):
    return [f"{r[0]}-{r[-1]}" for r in rows]


@pytest.mark.parametrize("lang,raw,expected,why", SENTIMENT, ids=_ids(SENTIMENT))
def test_sentiment(lang, raw, expected, why):
    check("sentiment", lang, raw, expected, why)


@pytest.mark.parametrize("lang,raw,expected,why", TOXICITY, ids=_ids(TOXICITY))
def test_toxicity(lang, raw, expected, why):
    check("toxicity", lang, raw, expected, why)


@pytest.mark.parametrize("lang,raw,expected,why", NLI, ids=_ids(NLI))
def test_nli(lang, raw, expected, why):
    check("nli", lang, raw, expected, why)


@pytest.mark.parametrize("lang,raw,expected,why", CAUSAL, ids=_ids(CAUSAL))
def test_causal(lang, raw, expected, why):
    check("causal", lang, raw, expected, why)


@pytest.mark.parametrize("lang,raw,expected,why", MINIMAL_PAIRS, ids=_ids(MINIMAL_PAIRS))
def test_lindsea_minimal_pairs(lang, raw, expected, why):
    check("lindsea-mp", lang, raw, expected, why)


@pytest.mark.parametrize("lang,raw,gold,expected,why", PRAGMATIC, ids=_ids(PRAGMATIC))
def test_lindsea_pragmatics(lang, raw, gold, expected, why):
    check("lindsea-pragmatic-single", lang, raw, expected, why, gold=gold)
    if gold in ("True", "False"):
        check("lindsea-pragmatic-pair", lang, raw, expected, why, gold=gold)


@pytest.mark.parametrize("lang,raw,expected,why", QA, ids=_ids(QA))
def test_qa_span(lang, raw, expected, why):
    check("qa", lang, raw, expected, why)


def test_table_covers_every_language_and_case():
    """Every language (and the English prompt) has rows for each hard case, across BHASA and LINDSEA tasks."""
    rows = [(r[0], r[1], r[-1]) for table in (SENTIMENT, TOXICITY, NLI, CAUSAL, MINIMAL_PAIRS, PRAGMATIC, QA)
            for r in table]
    for lang in ("id", "vi", "th", "ta"):
        whys = " ".join(w for lg, _, w in rows if lg == lang)
        for case in ("negat", "several tags", "unclosed", "lower-case"):
            assert case in whys or (lang == "th" and case == "negat" and "ไม่ใช่" in whys), (lang, case)
    whys = " ".join(w for _, _, w in rows)
    assert "echoed" in whys and "NFD" in whys and "English prompt" in whys


def test_methodology_page_states_the_rules():
    """The rules these rows pin are the ones the Methodology page states."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from evaluator.extract import RULES

    page = str(Path(__file__).resolve().parents[2] / "pages" / "methodology.py")
    at = AppTest.from_file(page, default_timeout=60)
    at.query_params["section"] = "Answer extraction"
    at.run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    for name, rule in RULES:
        assert f"**{name}**: {rule}" in text
    for phrase in ("Several answer tags", "never closes", "Bukan Positif", "Benar atau Salah", "`jawaban: b`"):
        assert phrase in text
    words = at.dataframe[0].value
    assert {"negator (before)", "negator (after)"} <= set(words["kind"])
