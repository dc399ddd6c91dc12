"""Extractive QA: SQuAD v1.1 F1 and exact match, max over gold answers; Thai also after newmm retokenisation.

Normalisation is the official SQuAD script's (lower-case, drop ASCII punctuation, drop English articles, collapse
whitespace; whitespace tokens) after Unicode NFC, which the official script lacks. Thai has no spaces between words, so whitespace F1 is
nearly sentence-level; `squad_f1_newmm` first segments prediction and gold with PyThaiNLP newmm (BHASA paper
§3.6.2 reports both). An empty gold list marks an unanswerable question (IndicQA): it scores 1 only when the
model gives no answer or says so.
"""
from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from typing import Any

from evaluator.metrics.base import MetricSpec, register

_PUNCT = set(string.punctuation)
NO_ANSWER = {"", "no answer", "unanswerable", "none", "n/a", "tidak ada jawaban", "không có câu trả lời",
             "ไม่มีคำตอบ", "பதில் இல்லை"}
"""Answers read as "there is no answer" for unanswerable questions."""


def normalize_answer(s: str) -> str:
    """SQuAD v1.1 normalisation, after Unicode NFC (composed and decomposed diacritics compare equal)."""
    s = "".join(ch for ch in unicodedata.normalize("NFC", s).lower() if ch not in _PUNCT)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def newmm_split(s: str) -> str:
    """Text re-joined with spaces between PyThaiNLP newmm words (whitespace tokens dropped)."""
    from pythainlp.tokenize import word_tokenize

    return " ".join(word_tokenize(s, engine="newmm", keep_whitespace=False))


def f1_one(prediction: str, gold: str) -> float:
    """Token-overlap F1 of one prediction against one gold answer (SQuAD)."""
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def em_one(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def _golds(gold: Any) -> list[str]:
    return [str(g) for g in (gold if isinstance(gold, (list, tuple)) else (gold,)) if g is not None]


def _best(fn, answer: str | None, gold: Any, retokenize: bool) -> float:
    if answer is None:
        return 0.0
    golds = _golds(gold)
    if not golds:  # unanswerable
        return float(normalize_answer(answer) in {normalize_answer(x) for x in NO_ANSWER})
    if retokenize:
        answer, golds = newmm_split(answer), [newmm_split(g) for g in golds]
    return max(fn(answer, g) for g in golds)


def squad_f1(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """SQuAD F1 on whitespace tokens, max over gold answers."""
    return _best(f1_one, answer, gold, retokenize=False)


def squad_em(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """SQuAD exact match, max over gold answers."""
    return _best(em_one, answer, gold, retokenize=False)


def squad_f1_newmm(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """SQuAD F1 after segmenting prediction and golds with newmm (Thai)."""
    return _best(f1_one, answer, gold, retokenize=True)


SQUAD_F1 = register(MetricSpec(
    name="squad_f1", display="F1", item=squad_f1,
    description="SQuAD token F1 (lower-case, no punctuation or English articles, whitespace tokens), max over "
                "gold answers. Thai text has no spaces between words, so this is close to sentence-level there.",
    reference="SQuAD v1.1 evaluate-v1.1.py; BHASA paper §3.6.2"))
SQUAD_EM = register(MetricSpec(
    name="squad_em", display="Exact match", item=squad_em, binary=True,
    description="Normalised prediction equals a gold answer (SQuAD normalisation).",
    reference="SQuAD v1.1 evaluate-v1.1.py"))
SQUAD_F1_NEWMM = register(MetricSpec(
    name="squad_f1_newmm", display="F1 (newmm)", item=squad_f1_newmm, langs=("th",),
    description="Thai only: SQuAD F1 after segmenting prediction and gold answers into words with PyThaiNLP "
                "newmm (the paper's figures in parentheses).",
    reference="BHASA paper §3.6.2; PyThaiNLP word_tokenize(engine='newmm')"))
