"""Extractive QA: SQuAD v1.1 F1 and exact match, max over gold answers; Thai also after newmm retokenisation.

Normalisation is SEA-HELM's (`src/metrics/question_answering.py`): the official SQuAD script's lower-casing,
ASCII-punctuation removal and whitespace collapsing, but the English articles a/an/the are removed only in English
("articles only apply to English"), after Unicode NFC, which neither script does. Thai has no spaces between words,
so whitespace F1 is nearly sentence-level; `squad_f1_newmm` first segments prediction and gold with PyThaiNLP newmm
and is the Thai headline (as SEA-HELM scores Thai; BHASA paper §3.6.2 prints both, whitespace first). An empty
gold list marks an unanswerable question (IndicQA): it scores 1 only when the model gives no answer or says so.
"""
from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from typing import Any

from evaluator.languages import LANGUAGES
from evaluator.metrics.base import MetricSpec, register

_PUNCT = set(string.punctuation)
NO_ANSWER = {"", *(phrase for lang in LANGUAGES.values() for phrase in lang.no_answer)}
"""Answers read as "there is no answer" for unanswerable questions (each language entry's `no_answer`)."""


ARTICLE_LANGS = ("en",)
"""Languages whose articles (a/an/the) are dropped before comparing: English only, as in SEA-HELM."""


def normalize_answer(s: str, lang: str = "") -> str:
    """SQuAD v1.1 normalisation after Unicode NFC; English articles are removed only when `lang` is English."""
    s = "".join(ch for ch in unicodedata.normalize("NFC", s).lower() if ch not in _PUNCT)
    if lang in ARTICLE_LANGS:
        s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def newmm_split(s: str) -> str:
    """Text re-joined with spaces between PyThaiNLP newmm words (whitespace tokens dropped)."""
    from pythainlp.tokenize import word_tokenize

    return " ".join(word_tokenize(s, engine="newmm", keep_whitespace=False))


def f1_one(prediction: str, gold: str, lang: str = "") -> float:
    """Token-overlap F1 of one prediction against one gold answer (SQuAD)."""
    pred, ref = normalize_answer(prediction, lang).split(), normalize_answer(gold, lang).split()
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def em_one(prediction: str, gold: str, lang: str = "") -> float:
    """1.0 when the normalised strings are equal."""
    return float(normalize_answer(prediction, lang) == normalize_answer(gold, lang))


def _golds(gold: Any) -> list[str]:
    return [str(g) for g in (gold if isinstance(gold, (list, tuple)) else (gold,)) if g is not None]


def _best(fn, answer: str | None, gold: Any, retokenize: bool, lang: str) -> float:
    if answer is None:
        return 0.0
    golds = _golds(gold)
    if not golds:  # unanswerable
        return float(normalize_answer(answer, lang) in {normalize_answer(x, lang) for x in NO_ANSWER})
    if retokenize:
        answer, golds = newmm_split(answer), [newmm_split(g) for g in golds]
    return max(fn(answer, g, lang) for g in golds)


def squad_f1(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """SQuAD F1 on whitespace tokens, max over gold answers."""
    return _best(f1_one, answer, gold, retokenize=False, lang=lang)


def squad_em(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """SQuAD exact match, max over gold answers."""
    return _best(em_one, answer, gold, retokenize=False, lang=lang)


def squad_f1_newmm(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """SQuAD F1 after segmenting prediction and golds with newmm (Thai)."""
    return _best(f1_one, answer, gold, retokenize=True, lang=lang)


SQUAD_F1 = register(MetricSpec(
    name="squad_f1", display="F1", item=squad_f1,
    description="SQuAD token F1 (lower-case, no punctuation, whitespace tokens; English articles dropped in "
                "English only, as SEA-HELM does), max over gold answers. Thai text has no spaces between words, so "
                "this is close to sentence-level there and is Thai's secondary metric.",
    reference="SQuAD v1.1 evaluate-v1.1.py; SEA-HELM src/metrics/question_answering.py; BHASA paper §3.6.2"))
SQUAD_EM = register(MetricSpec(
    name="squad_em", display="Exact match", item=squad_em, binary=True,
    description="Normalised prediction equals a gold answer (SQuAD normalisation; articles dropped in English only).",
    reference="SQuAD v1.1 evaluate-v1.1.py; SEA-HELM src/metrics/question_answering.py"))
SQUAD_F1_NEWMM = register(MetricSpec(
    name="squad_f1_newmm", display="F1 (newmm)", item=squad_f1_newmm, langs=("th",),
    description="Thai only, and Thai's headline: SQuAD F1 after segmenting prediction and gold answers into words "
                "with PyThaiNLP newmm, as SEA-HELM scores Thai (the BHASA paper's figures in parentheses, which it "
                "calls the fairer evaluation).",
    reference="BHASA paper §3.6.2; SEA-HELM QuestionAnsweringMetric; PyThaiNLP word_tokenize(engine='newmm')"))
