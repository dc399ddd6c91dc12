"""Leakage signals read from a cell's stored outputs alone (no request to the model), per item, then per cell.

BHASA §3.6.9 found GPT-4 reproducing FLORES-200 references word for word (Table 27) and naming, in an XL-Sum
summary, a person the article never names (Figure 3). Three signals look for that in any cell's stored answers:

* `mt_verbatim` (translation tasks: a chrF++ metric): an answer that equals the reference after normalisation
  (`normalise`: Unicode NFKC, case folded, whitespace collapsed, surrounding quotes and end punctuation stripped),
  or whose sentence chrF++ (sacrebleu `CHRF(word_order=2)`, the task metric's own scorer) against the reference is
  at least `CHRF_VERBATIM` (95). References shorter than `MIN_REFERENCE_CHARS` normalised characters are not
  judged (a short sentence has one natural translation). An answer that copies the source is a copy, not leakage,
  and never counts: equal after normalisation to a source input field, or chrF++ against it at least 95.
* `ngram_overlap` (summaries and QA: free-text answers judged against a text reference): the answer shares with the
  reference a run of at least `NGRAM_CHARS` (50) consecutive normalised characters that occurs nowhere in the
  item's inputs (the article, the context and question). Characters, not words, so one rule serves every script,
  Thai and Burmese included (50 characters are about 8 Latin-script words). An extractive QA answer lies in the
  context, so QA is flagged only when the answer reproduces reference text the context does not hold.
* `unexplained_entities` (summaries): a capitalised span (`entities`: a maximal run of words whose first letter is
  an upper-case letter, at least `MIN_ENTITY_CHARS` letters) found in both the reference and the answer whose
  case-folded form is not a substring of the article's (so "Indonesia" is explained by "Indonesian"). Limits: only
  scripts with letter case have capitals (Latin-script Indonesian, Vietnamese, Filipino, Malay, ...; Thai, Tamil,
  Burmese, Khmer and Lao yield no span, so the signal is silent there); sentence-initial words count as spans (they
  almost always occur in the article too); an entity the model infers from world knowledge (a country from its
  capital) is flagged as well, which is why the items are listed for a reader to judge.

An item is flagged by a signal when any of its answers (runs, option orders) is. A cell's signal: flagged items,
their share of the cell's judged items (`statistic`) with its 95% Wilson interval; flagged when one item is.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from typing import Any, Iterable, Sequence

from evaluator.leakage import LeakSignal
from evaluator.metrics.translation import chrf_sentence
from evaluator.spec import Item, ItemResult, TaskSpec
from evaluator.stats import wilson

CHRF_VERBATIM = 0.95
"""Sentence chrF++ (0-1) from which an answer counts as a near-verbatim reference (95 on 0-100)."""
MIN_REFERENCE_CHARS = 20
"""Normalised references shorter than this are not judged by `mt_verbatim`."""
NGRAM_CHARS = 50
"""Length in normalised characters of a shared run that counts as long n-gram overlap."""
MIN_ENTITY_CHARS = 3
"""Letters a capitalised span needs to count as an entity."""

MT_VERBATIM, NGRAM_OVERLAP, UNEXPLAINED_ENTITIES = "mt_verbatim", "ngram_overlap", "unexplained_entities"
OUTPUT_SIGNALS = (MT_VERBATIM, NGRAM_OVERLAP, UNEXPLAINED_ENTITIES)
"""Every signal this module computes (a cell's rows of these names are replaced when the cell changes)."""
DETAILS = {
    MT_VERBATIM: f"answer equals the reference after normalisation or chrF++ >= {100 * CHRF_VERBATIM:.0f} "
                 "against it; copies of the source excluded",
    NGRAM_OVERLAP: f"answer shares {NGRAM_CHARS}+ consecutive characters with the reference that the inputs do "
                   "not contain",
    UNEXPLAINED_ENTITIES: "capitalised name in the reference and the answer but not in the article",
}
"""One plain-text line per signal: the rule and its threshold, stored with each row."""
APPLIES = {
    MT_VERBATIM: "translation tasks (a chrF++ metric)",
    NGRAM_OVERLAP: "summaries and extractive QA (free-text answers against a text reference)",
    UNEXPLAINED_ENTITIES: "summaries",
}
LIMITS = {
    MT_VERBATIM: f"references under {MIN_REFERENCE_CHARS} characters are not judged; a fluent model can match a "
                 "short, plain sentence word for word without having seen it",
    NGRAM_OVERLAP: "a fixed phrase of the language (a dateline, a formula) can be shared without memorisation; "
                   "QA answers lie in the context, so QA is rarely flagged",
    UNEXPLAINED_ENTITIES: "capitals only: silent for Thai, Tamil, Burmese, Khmer and Lao; sentence-initial words "
                          "count; a name inferred from world knowledge is flagged too",
}
"""What each signal applies to and its known limits, for the Methodology page."""

_SPACE = re.compile(r"\s+")
_EDGE = "\"'“”‘’«»「」.。!?！？,;:…"
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def normalise(text: str | None) -> str:
    """NFKC, case folded, whitespace collapsed to one space, surrounding quotes and end punctuation stripped."""
    t = _SPACE.sub(" ", unicodedata.normalize("NFKC", text or "").casefold()).strip()
    return t.strip(_EDGE + " ")


def signal_kinds(task: TaskSpec) -> tuple[str, ...]:
    """The output signals that apply to a task, from its spec (never its name): translation (a chrF++ metric) →
    mt_verbatim; a free-text summary (`output_tag` summary or the summarisation human protocol) → ngram_overlap and
    unexplained_entities; extractive QA (`qa_span` answers) → ngram_overlap; otherwise none."""
    if task.mode != "generate":
        return ()
    if "chrf++" in task.metrics:
        return (MT_VERBATIM,)
    if task.output_tag == "summary" or task.human_protocol == "summarisation":
        return (NGRAM_OVERLAP, UNEXPLAINED_ENTITIES)
    if task.extractor == "qa_span":
        return (NGRAM_OVERLAP,)
    return ()


def references(gold: Any) -> list[str]:
    """The reference texts of a gold (a string, or a list of acceptable strings; anything else: none)."""
    if isinstance(gold, str):
        return [gold]
    if isinstance(gold, (list, tuple)):
        return [g for g in gold if isinstance(g, str)]
    return []


def _sources(item: Item) -> list[str]:
    return [v for v in item.inputs.values() if isinstance(v, str) and v.strip()]


PREFILTER = 0.9
"""Character-bigram F-score (beta 2, as chrF's) below which chrF++ is not computed: a pair that close in chrF++
(>= 0.95, averaged over character 1-6-grams and word 1-2-grams) shares nearly all its character bigrams, so the
sentence score (milliseconds each) is computed only for the few pairs that could reach it."""


def _bigram_f(a: str, b: str) -> float:
    """F-score (beta 2, recall weighted as in chrF) of a's character bigrams against b's, as multisets."""
    na, nb = len(a) - 1, len(b) - 1
    if na <= 0 or nb <= 0:
        return float(a == b)
    if not 0.87 <= na / nb <= 1.56:  # F <= 5ρ/(4 + ρ) below, 5/(4 + ρ) above (ρ = na/nb): under 0.9 for sure
        return 0.0
    ga, gb = Counter(zip(a, a[1:])), Counter(zip(b, b[1:]))
    common = sum((ga & gb).values())
    p, r = common / na, common / nb
    return 0.0 if not common else 5 * p * r / (4 * p + r)


def _near(answer: str, norm_answer: str, text: str) -> bool:
    """The answer equals `text` after normalisation, or scores chrF++ >= CHRF_VERBATIM against it."""
    norm_text = normalise(text)
    if norm_answer == norm_text:
        return True
    return _bigram_f(norm_answer, norm_text) >= PREFILTER and chrf_sentence(answer, text) >= CHRF_VERBATIM


def mt_verbatim(answer: str | None, item: Item) -> bool:
    """The answer reproduces a reference of the item (not a copy of its source): see the module doc."""
    norm = normalise(answer)
    if not norm:
        return False
    refs = [r for r in references(item.gold) if len(normalise(r)) >= MIN_REFERENCE_CHARS]
    if not refs or any(_near(answer, norm, s) for s in _sources(item)):
        return False
    return any(_near(answer, norm, r) for r in refs)


def shared_runs(answer: str | None, item: Item, n: int = NGRAM_CHARS) -> list[str]:
    """The n-character runs the answer shares with a reference that no input of the item contains (normalised)."""
    norm = normalise(answer)
    if len(norm) < n:
        return []
    sources = [normalise(s) for s in _sources(item)]
    found: set[str] = set()
    for ref in references(item.gold):
        r = normalise(ref)
        grams = {r[i:i + n] for i in range(len(r) - n + 1)}
        found |= {g for g in grams if g in norm and not any(g in s for s in sources)}
    return sorted(found)


def entities(text: str | None) -> set[str]:
    """Capitalised spans of a text, case folded: maximal runs of words whose first letter is upper case, separated
    by white space only (punctuation ends a run)."""
    t = unicodedata.normalize("NFKC", text or "")
    spans: set[str] = set()
    run: list[str] = []
    end = 0
    for m in _WORD.finditer(t):
        if run and (not m.group(0)[0].isupper() or t[end:m.start()].strip()):
            _close(run, spans)
            run = []
        if m.group(0)[0].isupper():
            run.append(m.group(0))
        end = m.end()
    _close(run, spans)
    return spans


def _close(run: list[str], spans: set[str]) -> None:
    span = " ".join(run).casefold()
    if sum(c.isalpha() for c in span) >= MIN_ENTITY_CHARS:
        spans.add(span)


def unexplained_entities(answer: str | None, item: Item) -> list[str]:
    """Entities (capitalised spans) in a reference and in the answer that the article does not contain."""
    ans = entities(answer)
    if not ans:
        return []
    article = " ".join(normalise(s) for s in _sources(item))
    shared = {e for ref in references(item.gold) for e in entities(ref) & ans}
    return sorted(e for e in shared if normalise(e) not in article)


CHECKS = {
    MT_VERBATIM: mt_verbatim,
    NGRAM_OVERLAP: lambda answer, item: bool(shared_runs(answer, item)),
    UNEXPLAINED_ENTITIES: lambda answer, item: bool(unexplained_entities(answer, item)),
}
"""Signal name → per-answer check (answer text, item) → flagged."""


def _answer(result: ItemResult) -> str | None:
    """The text judged: the extracted answer, or the raw output when nothing was extracted."""
    return result.answer if result.answer is not None else result.prediction.output


_SEEN: dict[tuple, bool] = {}
"""Verdicts already reached, by signal and a digest of (answer, gold, inputs): a live run refreshes its cell as answers arrive, and
each refresh judges only the new ones."""


def _verdict(signal: str, answer: str | None, item: Item) -> bool:
    text = repr((answer, item.gold, sorted((str(k), repr(v)) for k, v in item.inputs.items())))
    key = (signal, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
    if key not in _SEEN:
        if len(_SEEN) > 200_000:  # more than a store's translation and summary answers at once; bounds the memory
            _SEEN.clear()
        _SEEN[key] = CHECKS[signal](answer, item)
    return _SEEN[key]


def flagged_items(signal: str, pairs: Iterable[tuple[Item, ItemResult]]) -> tuple[list[str], int]:
    """(sorted ids of the items some answer of which the signal flags, number of distinct items judged)."""
    seen: set[str] = set()
    flagged: set[str] = set()
    done: set[tuple[str, str | None]] = set()
    for item, result in pairs:
        seen.add(item.item_id)
        answer = _answer(result)
        if item.item_id in flagged or (item.item_id, answer) in done:
            continue
        done.add((item.item_id, answer))
        if _verdict(signal, answer, item):
            flagged.add(item.item_id)
    return sorted(flagged), len(seen)


def cell_signals(task: TaskSpec, lang: str, pairs: Sequence[tuple[Item, ItemResult]], model_id: str,
                 prompt_lang: str) -> list[LeakSignal]:
    """Every output signal that applies to the task, on one cell's (item, result) pairs (all its active runs)."""
    out = []
    for signal in signal_kinds(task):
        ids, n = flagged_items(signal, pairs)
        share = len(ids) / n if n else 0.0
        lo, hi = wilson(share, n) if n else (None, None)
        out.append(LeakSignal(model_id=model_id, task=task.name, lang=lang, prompt_lang=prompt_lang, signal=signal,
                              flagged=bool(ids), item_ids=tuple(ids), statistic=share, ci_low=lo, ci_high=hi,
                              n_items=n, detail=DETAILS[signal]))
    return out


def shuffled(pairs: Sequence[tuple[Item, ItemResult]], seed: int = 0, answers: str = "outputs"
             ) -> list[tuple[Item, ItemResult]]:
    """The false-positive check's model that cannot have seen the items: each item gets the answer of another item
    of the cell (`answers` "outputs": the model's own answers; "references": the other item's first reference),
    items taken in a seeded random cycle so that none keeps its own. One answer per item (its first row)."""
    import dataclasses
    import random

    firsts: dict[str, tuple[Item, ItemResult]] = {}
    for item, result in pairs:
        firsts.setdefault(item.item_id, (item, result))
    rows = [firsts[k] for k in sorted(firsts)]
    if len(rows) < 2:
        return []
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    donor = {order[i]: order[(i + 1) % len(order)] for i in range(len(order))}
    out = []
    for i, (item, result) in enumerate(rows):
        other_item, other = rows[donor[i]]
        refs = references(other_item.gold)
        text = _answer(other) if answers == "outputs" else (refs[0] if refs else None)
        out.append((item, dataclasses.replace(result, answer=text)))
    return out
