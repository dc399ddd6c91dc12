"""Burmese as SEA-HELM asks and scores it: hyphen-ended tags (`အဖြေ-`), the letters က/ခ/ဂ/ဃ as options A-D, and
ROUGE-L on syllables (aisingapore/SEA-HELM @ 6844e6c: the `my` blocks of its task configs,
src/metrics/f1_acc_metric.py, which reads the label right after `answer_tag`, and src/rouge_score/tokenizers.py
`BurmeseTokenizer`). Values are worked out by hand; the syllable splitter is also compared with SEA-HELM's own
code when the SEA-HELM mirror is on the machine."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evaluator.extract import EXTRACTORS
from evaluator.metrics.summarization import burmese_syllables, rouge_l
from evaluator.registry import get_task
from evaluator.spec import Item

SEAHELM_MIRROR = Path("/work/.mirror/aisingapore+SEA-HELM/repo")
SEAHELM_COMMIT = "6844e6c"


def read(task_name: str, raw: str, lang: str = "my"):
    task = get_task(task_name)
    item = Item(task=task.name, lang=lang, item_id="1", inputs={}, gold="A")
    ex = EXTRACTORS[task.extractor](raw, task=task, lang=lang, item=item)
    return ex.answer, ex.parsed


@pytest.mark.parametrize("task,raw,expected", [
    ("nli", "အဖြေ- ခ", "B"),                   # SEA-HELM's own format: tag, hyphen, Burmese letter
    ("nli", "အဖြေ-ဂ", "C"),
    ("nli", "အဖြေ- **က**", "A"),
    ("nli", "ခ။", "B"),                        # the letter alone, with the Burmese full stop
    ("nli", "အဖြေ- ဂ- SENTENCE_1 မှန်ကန်သောအခါ", "C"),  # the letter with its option text echoed
    ("nli", "အဖြေ: B", "B"),                   # Latin letters still read
    ("nli", "Answer: C", "C"),
    ("paraphrase", "အဖြေ- က", "A"),
    ("paraphrase", "အဖြေ- ခ", "B"),
])
def test_burmese_letters_are_read_as_option_letters(task, raw, expected):
    assert read(task, raw) == (expected, True)


@pytest.mark.parametrize("raw", [
    "အဖြေ- က သို့မဟုတ် ခ",      # the choice list echoed ("A or B")
    "ကျွန်ုပ် မသိပါ",            # a word starting with the letter က is not the letter
    "အဖြေ- ဃ",                  # D is not an option of a two-way choice
])
def test_burmese_non_answers_stay_unparsed(raw):
    assert read("paraphrase", raw) == (None, False)


def test_hyphen_ended_tags_open_the_answer_region():
    # Before, `အဖြေ-` was not a tag: two tagged drafts were one region holding two labels (unparsed). Now each
    # tag opens a region and the regions agree.
    assert read("sentiment", "အဖြေ- အပျက်သဘော\nအဖြေ- အပျက်သဘော") == ("negative", True)
    # the text before the tag (an explanation naming another label) is not read
    assert read("sentiment", "ကြားနေ မဟုတ်ပါ။\nအဖြေ- အပြုသဘော") == ("positive", True)
    # translation and summary read the text after SEA-HELM's hyphen-ended output tags
    assert read("translation-en-xx", "ဘာသာပြန်ချက်- မင်္ဂလာပါ") == ("မင်္ဂလာပါ", True)
    assert read("abssum", "အကျဉ်းချုပ်- မိုးရွာသည်။") == ("မိုးရွာသည်။", True)
    # a hyphen ends no other language's tag
    assert read("translation-en-xx", "Terjemahan- Halo", lang="id") == ("Terjemahan- Halo", True)


@pytest.mark.parametrize("text,syllables", [
    ("မင်္ဂလာပါ", ["မင်္ဂ", "လာ", "ပါ"]),            # virama (stacked ဂ) glues မင် and ဂ
    ("နောက်မှ ပြန်လာ", ["နောက်", "မှ", "ပြန်", "လာ"]),  # spaces dropped, asat units join the unit before
    ("ခဲ့ မယ် ။", ["ခဲ့", "မယ်", "။"]),
    # units ကျွ, န်ု, ပ်: န်ု joins ကျွ; ပ် would join the unit just emptied, so it stays apart (SEA-HELM's rule)
    ("ကျွန်ုပ်", ["ကျွန်ု", "ပ်"]),
    ("", []),
])
def test_burmese_syllables_by_hand(text, syllables):
    assert burmese_syllables(text) == syllables


def test_burmese_rouge_l_on_syllables_by_hand():
    """Prediction syllables နောက် မှ ပြန် လာ ခဲ့ မယ် (6), reference နောက် မှ ပဲ ပြန် လာ ခဲ့ ပါ (7): LCS 5,
    P 5/6, R 5/7, F1 = 2PR/(P+R) = 10/13. On whitespace words (the old reading) only ခဲ့ matched."""
    pred, ref = "နောက်မှ ပြန်လာ ခဲ့ မယ်", "နောက် မှ ပဲ ပြန် လာ ခဲ့ ပါ"
    assert rouge_l(pred, ref, lang="my") == pytest.approx(10 / 13)
    assert rouge_l(pred, ref, lang="ms") == pytest.approx(2 * (1 / 4) * (1 / 7) / (1 / 4 + 1 / 7))


def _git_show(path: str) -> str:
    return subprocess.run(["git", "-C", str(SEAHELM_MIRROR), "show", f"{SEAHELM_COMMIT}:{path}"],
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(not SEAHELM_MIRROR.is_dir(), reason="no SEA-HELM mirror on this machine to compare with")
def test_burmese_syllables_equal_seahelms_tokenizer_on_real_sentences():
    """SEA-HELM's `BurmeseTokenizer` (src/rouge_score/tokenizers.py @ 6844e6c), run from the mirror in this test
    only, on the 800 sentences of its Burmese paraphrase file (seahelm_tasks/nlu/paraphrase_identification/data/
    my_myparaphrase.jsonl @ 6844e6c)."""
    source = _git_show("src/rouge_score/tokenizers.py")
    namespace: dict = {}
    exec(source[source.index("class BurmeseTokenizer"):source.index("LANG2TOKENIZER")], namespace)  # noqa: S102
    reference = namespace["BurmeseTokenizer"]()
    rows = [json.loads(line) for line in _git_show(
        "seahelm_tasks/nlu/paraphrase_identification/data/my_myparaphrase.jsonl").splitlines() if line.strip()]
    sentences = [s for r in rows for s in r["prompts"][0].values()]
    assert len(sentences) == 800
    assert [burmese_syllables(s) for s in sentences] == [reference(s) for s in sentences]
