"""ROUGE-L F1 as the BHASA paper computed it (§3.5.1): XL-Sum's multilingual scorer, rebuilt on rouge-score.

XL-Sum's `multilingual_rouge_scoring` lower-cases, removes punctuation and control characters (BERT's
BasicTokenizer rules), then segments Thai with PyThaiNLP newmm *keeping its whitespace tokens*, Burmese into
syllables (`burmese_syllables`, for a language entry with `tokenizer: syllables`, as XL-Sum's and SEA-HELM's
scorers do) and every other language with OpenNMT's `aggressive` tokenizer (pyonmttok); no stemming, no stopword
removal. Scores are
aggregated with rouge-score's BootstrapAggregator under numpy seed 4156, and the bootstrap "mid" is the score.
`rougeL_nows` (Thai only) is ROUGE-L on the lower-cased text segmented by newmm without whitespace tokens and
without XL-Sum's punctuation removal (rouge-score with a plain word segmenter), reported as a secondary metric.
rouge-score is imported when a summary is first scored: its tokenizers import NLTK, which imports SciPy's statistics
(about 2 s of a process's start on the 2-core machine, `benchmarks/bench_startup.py`; every CLI command, worker
child and app process that scores no summary would pay it).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from evaluator import languages
from evaluator.metrics.base import MetricSpec, register

if TYPE_CHECKING:
    from rouge_score import rouge_scorer

ROUGE_SEED = 4156
"""numpy seed of the paper's bootstrap aggregation."""


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _sanitize(text: str) -> str:
    """BERT BasicTokenizer as XL-Sum uses it: drop control chars and U+FFFD, split off and drop punctuation."""
    kept = []
    for ch in text:
        if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
            kept.append(" ")
        elif ord(ch) == 0 or ord(ch) == 0xFFFD or unicodedata.category(ch).startswith("C"):
            continue
        else:
            kept.append(" " if _is_punct(ch) else ch)
    return " ".join("".join(kept).split())


ASAT, DOT_BELOW, VIRAMA = "\u103a", "\u1037", "\u1039"
"""Myanmar sign asat (killer), dot below and virama (stacker)."""
MYANMAR_DEPENDENT = frozenset(
    [chr(c) for c in (*range(0x102B, 0x1033), *range(0x1036, 0x1039), *range(0x103B, 0x103F))] + [ASAT])
"""Myanmar vowel signs, medials and tone marks that belong to the character before them."""


def burmese_syllables(text: str) -> list[str]:
    """Burmese text as syllables, the segmentation SEA-HELM's ROUGE-L uses for Burmese (its vendored XL-Sum scorer,
    src/rouge_score/tokenizers.py `BurmeseTokenizer` @ 6844e6c, after Ding et al., ACM TALLIP 2019,
    doi:10.1145/3325885). Spaces are dropped (ZWNJ counts as one); dot-below before asat is put after it; each
    character takes the dependent signs after it; a unit shorter than 4 characters holding an asat joins the one
    before it; units on either side of a virama are glued."""
    text = text.replace("\u200c", " ").replace(DOT_BELOW + ASAT, ASAT + DOT_BELOW)
    units: list[str] = []
    for ch in "".join(text.lower().strip().split()):
        if units and ch in MYANMAR_DEPENDENT:
            units[-1] += ch
        else:
            units.append(ch)
    for i in range(1, len(units)):
        if ASAT in units[i] and len(units[i]) < 4:
            units[i - 1], units[i] = units[i - 1] + units[i], ""
    return " ".join(u for u in units if u).replace(f" {VIRAMA} ", VIRAMA).split()


class XLSumTokenizer:
    """rouge-score tokenizer (any object with `tokenize`, as `RougeScorer` takes it) reproducing XL-Sum's
    `MultiTokenizer` for one language."""

    def __init__(self, lang: str):
        self.lang = lang

    def tokenize(self, text: str) -> list[str]:
        text = _sanitize(text.lower().strip())
        if not text:
            return []
        if self.lang == "th":
            from pythainlp.tokenize import word_tokenize

            tokens = word_tokenize(text, engine="newmm")  # keep_whitespace=True, the default XL-Sum relies on
            if tokens:
                return [t for t in tokens if t]
        entry = languages.get(self.lang)
        if entry is not None and entry.tokenizer == "syllables":
            tokens = burmese_syllables(text)
            if tokens:
                return tokens
        return [t for t in _aggressive()(text) if t]


class NewmmWordTokenizer:
    """rouge-score tokenizer: lower-cased text segmented by newmm without whitespace tokens (punctuation kept as
    tokens)."""

    def tokenize(self, text: str) -> list[str]:
        from pythainlp.tokenize import word_tokenize

        return word_tokenize(text.lower(), engine="newmm", keep_whitespace=False)


@lru_cache(maxsize=1)
def _aggressive():
    import pyonmttok

    tok = pyonmttok.Tokenizer("aggressive")
    return lambda text: " ".join(tok.tokenize(text)[0]).split()


@lru_cache(maxsize=16)
def _scorer(lang: str, variant: str) -> rouge_scorer.RougeScorer:
    from rouge_score import rouge_scorer

    tokenizer = NewmmWordTokenizer() if variant == "nows" else XLSumTokenizer(lang)
    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False, tokenizer=tokenizer)


def rouge_l(prediction: str, reference: str, *, lang: str, variant: str = "xlsum") -> float:
    """ROUGE-L F1 (0-1) of one summary against its reference: "xlsum" (paper) or "nows" (newmm words only)."""
    return _scorer(lang, variant).score(reference, prediction)["rougeL"].fmeasure


def _item(variant: str):
    def item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
        if answer is None:
            return 0.0
        golds = gold if isinstance(gold, (list, tuple)) else (gold,)
        return max(rouge_l(answer, str(g), lang=lang, variant=variant) for g in golds)
    return item


def bootstrap_mid(values: Sequence[float], *, seed: int = ROUGE_SEED, n_samples: int = 1000) -> tuple[float, float, float]:
    """(mid, low, high) of rouge-score's BootstrapAggregator over per-item F1, numpy seeded as in the paper.

    The global numpy random state is restored afterwards.
    """
    from rouge_score import scoring

    state = np.random.get_state()
    try:
        np.random.seed(seed)
        agg = scoring.BootstrapAggregator(confidence_interval=0.95, n_samples=n_samples)
        for v in values:
            agg.add_scores({"rougeL": scoring.Score(precision=0.0, recall=0.0, fmeasure=float(v))})
        res = agg.aggregate()["rougeL"]
    finally:
        np.random.set_state(state)
    return (res.mid.fmeasure, res.low.fmeasure, res.high.fmeasure)


def _interval(name: str):
    def interval(rows: Sequence[tuple]) -> tuple[float, float, float]:
        return bootstrap_mid([extras.get("scores", {}).get(name, 0.0) for _a, _g, extras in rows])
    return interval


ROUGE_L = register(MetricSpec(
    name="rougeL", display="ROUGE-L", item=_item("xlsum"), interval=_interval("rougeL"),
    description="ROUGE-L F1 with XL-Sum's multilingual scorer: lower-cased, punctuation removed, Thai segmented "
                "by PyThaiNLP newmm with its whitespace tokens kept (as that package calls it), other languages "
                "by OpenNMT's aggressive tokenizer; no stemming or stopword removal. Cell score = mid of a "
                "1000-sample bootstrap with numpy seed 4156 (the paper's setting).",
    reference="BHASA paper §3.5.1; csebuetnlp/xl-sum multilingual_rouge_scoring on rouge-score RougeScorer"))
ROUGE_L_NOWS = register(MetricSpec(
    name="rougeL_nows", display="ROUGE-L (Thai, no whitespace tokens)", item=_item("nows"),
    interval=_interval("rougeL_nows"), langs=("th",),
    description="Thai only: ROUGE-L on lower-cased text segmented by newmm without whitespace tokens (and "
                "without XL-Sum's punctuation removal). XL-Sum's scorer keeps newmm's whitespace tokens, which "
                "match each other, so the paper-compatible headline is higher (title-as-summary sample: 25.42 "
                "vs 21.83).",
    reference="rouge-score RougeScorer with PyThaiNLP newmm (keep_whitespace=False)"))
