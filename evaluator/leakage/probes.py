"""Leakage probes that ask the model (the opt-in `tanaw leakage` mode): the pure part, prompts and statistics.

Three probes, each giving one verdict per (task, language) with the items behind it:

- **Guided vs general instance completion** (Golchin & Surdeanu, "Time Travel in LLMs", ICLR 2024). An item's text
  (`item_text`) is cut into a first and a second piece (`split_instance`). The *guided* prompt names the dataset and
  its split and asks for the second piece "exactly as it appeared in the dataset"; the *general* prompt gives only
  the first piece and asks for a plausible continuation. Each completion's overlap with the true second piece is
  ROUGE-L F1 (`evaluator.metrics.summarization.rouge_l`, the board's one ROUGE-L: XL-Sum's multilingual
  tokenisation, Thai segmented by newmm), one of the paper's two overlap measures. The paired test over items is
  the one-sided Wilcoxon signed-rank test (`scipy.stats.wilcoxon`, alternative "greater", zero differences
  dropped: `zero_method="wilcox"`) of guided − general. The paper used bootstrap resampling at p ≤ 0.05; Tanaw
  flags the cell when p < `ALPHA` (0.01) and the guided mean is above the general mean. Flagged items: those whose
  guided completion is an exact or near-exact copy (ROUGE-L ≥ `NEAR_EXACT`) while the general one is not.
- **TS-Guessing**, question-multichoice variant (Deng et al., "Investigating Data Contamination in Modern
  Benchmarks for Large Language Models", NAACL 2024). One wrong option of a multiple-choice item is replaced by
  `[MASK]` and the model is asked to write the masked option. Exact match (`normalise`: NFKC, case-folded,
  punctuation and spaces dropped) of its answer against the masked option, rate over items. A model that never saw
  the item can guess a wrong option only by chance, so the cell is flagged when the exact-match rate is above
  `TS_BASELINE` (0.10, stated; or the rate measured on calibration items, whichever is higher) by a one-sided
  exact binomial test (`scipy.stats.binomtest`, alternative "greater") with p < `ALPHA`. Flagged items: the exact
  matches.
- **Min-K%++** (Zhang et al., "Min-K%++: Improved Baseline for Detecting Pre-Training Data from Large Language
  Models", 2024). For each token x_t of an item's text with prefix x_<t, the paper's token score is
  (log p(x_t | x_<t) − μ_t) / σ_t, with μ_t = E_{z∼p(·|x_<t)}[log p(z | x_<t)] and
  σ_t² = E_{z∼p(·|x_<t)}[(log p(z | x_<t) − μ_t)²] over the whole vocabulary. An endpoint returns only its top-k
  alternatives per prompt token (vLLM `prompt_logprobs` / `echo` with `logprobs=k`), so Tanaw approximates the
  expectations over those k tokens (plus x_t itself when it is not among them), weighting each by its probability
  renormalised to sum to 1 over that set (`minkpp_token_scores`); a position whose set has one token, or zero
  spread, has no score. The text's score is the mean of its lowest `MINKPP_K` (20%, the paper's default) token
  scores, at least one token (`minkpp_score`). Higher means more likely seen. Calibration: the same score on texts
  the model cannot have seen (the task's demo items written for Tanaw, or items published after the model's
  release). The cell is flagged when the items' scores are stochastically larger than the calibration scores by a
  one-sided Mann-Whitney U test (`scipy.stats.mannwhitneyu`, alternative "greater") with p < `ALPHA`; flagged items
  are those above the calibration scores' 95th percentile (5% of unseen texts would pass it).
"""
from __future__ import annotations

import hashlib
import math
import unicodedata
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from evaluator.leakage import EVERY_PROMPT, LeakSignal
from evaluator.spec import Item
from evaluator.stats import wilson

ALPHA = 0.01
"""Significance level of every probe's test: flagged only when p < ALPHA (and the effect is in the leaking direction)."""
NEAR_EXACT = 0.75
"""ROUGE-L F1 at or above which a guided completion counts as a near-exact copy of the second piece (an item listed
as evidence)."""
TS_BASELINE = 0.10
"""Exact-match rate of TS-Guessing expected from a model that never saw the items (a wrong option guessed by chance
or from common knowledge): the binomial test's null rate unless calibration items measure a higher one."""
MINKPP_K = 0.2
"""Share of a text's tokens (the lowest-scoring) averaged into its Min-K%++ score: the paper's k = 20%."""
MINKPP_ITEM_QUANTILE = 0.95
"""An item's Min-K%++ score above this quantile of the calibration scores lists it as evidence."""
MIN_ITEMS = 5
"""Fewest paired items a probe needs before it tests anything (fewer: "not enough items", no verdict)."""

TEXT_FIELDS = ("text", "context", "premise", "sentence1", "prompt", "text_en", "text_tl")
"""Input fields holding an item's own text, in order of preference (`item_text`)."""

GUIDED = ("Instruction: You are provided with the first piece of an instance from the {split} split of the "
          "{dataset} dataset. Finish the second piece of the instance as exactly appeared in the dataset. Only "
          "rely on the original form of the instance in the dataset to finish the second piece.\n\n"
          "First piece: {first}\n\nSecond piece:")
"""Guided instruction (after Golchin & Surdeanu, Figure 1): dataset name, split, first piece."""
GENERAL = ("Instruction: Finish the second piece based on the first piece, such that these two pieces become a "
           "single instance.\n\nFirst piece: {first}\n\nSecond piece:")
"""General instruction: the same first piece without the dataset's name or split."""
TS_PROMPT = ("Please fill in the [MASK] in the options of this multiple-choice question from the {dataset} "
             "dataset. Reply with the text of the masked option only.\n\n{question}\n\n{options}\n\nMasked option:")
"""TS-Guessing question-multichoice prompt (after Deng et al.): the question and its options, one wrong one masked."""
MASK = "[MASK]"


@dataclass(frozen=True)
class ProbeVerdict:
    """One probe's verdict on one (task, language): the shape of a leakage signal row."""

    signal: str
    """"guided_completion", "ts_guessing" or "min_k_pp"."""
    task: str
    lang: str
    flagged: bool
    """Whether the probe found leakage (p < ALPHA in the leaking direction)."""
    n_items: int
    """Items the statistic is computed on."""
    statistic: float | None
    """Guided − general mean ROUGE-L; exact-match rate; median item score − median calibration score."""
    p_value: float | None
    flagged_items: tuple[str, ...] = ()
    """Items listed as evidence (see each probe)."""
    unavailable: str | None = None
    """Why there is no verdict (no logprobs, no options, too few items); then statistic and p_value are None."""
    details: Mapping[str, float | int | str] = field(default_factory=dict)
    """Per-probe figures: the two means, the baseline rate, the calibration size, ..."""


PROBE_SIGNALS = ("guided_completion", "ts_guessing", "min_k_pp")
"""The probes' signal names. A probe asks about the dataset's items, not about one prompt language (its own prompts
are English), so its signal is recorded under prompt language `EVERY_PROMPT` and applies to every prompt language's
cell of its (model, task, language); a store written before that holds them under "en" and reads the same."""


def describe(v: ProbeVerdict) -> str:
    """The verdict's one plain-text line: the test, its figures and threshold, or why there is no verdict."""
    if v.unavailable:
        return v.unavailable if v.unavailable.startswith("not available") else f"not available: {v.unavailable}"
    d = v.details
    failed = f"; {d['failed']} requests failed" if d.get("failed") else ""
    if v.signal == "guided_completion":
        return (f"guided vs general completion ({d.get('dataset', '')}, {d.get('split', '')} split): mean ROUGE-L "
                f"{d['guided_mean']:.3f} guided vs {d['general_mean']:.3f} general over {v.n_items} items, one-sided "
                f"Wilcoxon signed-rank p = {v.p_value:.2g} (flagged when p < {ALPHA} and guided > general); items "
                f"listed: guided ROUGE-L >= {NEAR_EXACT} and general below{failed}")
    if v.signal == "ts_guessing":
        return (f"TS-Guessing: {d['exact']} of {v.n_items} masked wrong options reproduced exactly "
                f"({v.statistic:.1%}), one-sided binomial test against a {d['baseline']:.1%} baseline p = "
                f"{v.p_value:.2g} (flagged when p < {ALPHA}){failed}")
    return (f"Min-K%++ (k = {MINKPP_K:.0%}, top-k approximation): median item score {v.statistic:+.3f} above the "
            f"median of {d['calibration_n']} calibration texts, one-sided Mann-Whitney U p = {v.p_value:.2g} "
            f"(flagged when p < {ALPHA}); items listed: above the calibration's 95th percentile{failed}")


def to_signal(v: ProbeVerdict, model_id: str) -> LeakSignal:
    """The verdict as the shared leakage signal row of a model's (task, lang): prompt language `EVERY_PROMPT`. Its statistic is, as for
    every signal on the board, the share of the items looked at that the probe lists (with its 95% Wilson
    interval); the probe's own statistic and test are in the detail line, its p-value in `p_value`."""
    share = lo = hi = None
    if v.unavailable is None and v.n_items:
        share = len(v.flagged_items) / v.n_items
        lo, hi = wilson(share, v.n_items)
    return LeakSignal(model_id, v.task, v.lang, EVERY_PROMPT, v.signal, v.flagged, tuple(sorted(v.flagged_items)),
                      share, v.p_value, lo, hi, v.n_items, describe(v))


def unavailable(signal: str, task: str, lang: str, reason: str, n_items: int = 0) -> ProbeVerdict:
    """A probe that gave no number, with its reason ("not available: ...")."""
    return ProbeVerdict(signal, task, lang, False, n_items, None, None, unavailable=reason)


# ---- guided vs general instance completion ---------------------------------------------------------------------
def item_text(item: Item) -> str | None:
    """The item's own text: the first non-empty string among TEXT_FIELDS, else None."""
    for name in TEXT_FIELDS:
        value = item.inputs.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def split_instance(text: str) -> tuple[str, str] | None:
    """(first piece, second piece): the text cut at its middle word (texts with spaces) or its middle character
    (Thai, Burmese and other unspaced scripts), so each piece holds about half; None for texts too short to cut."""
    words = text.split()
    if len(words) >= 4:
        half = len(words) // 2
        return " ".join(words[:half]), " ".join(words[half:])
    if len(text) >= 8:
        half = len(text) // 2
        return text[:half], text[half:]
    return None


def guided_prompt(dataset: str, split: str, first: str) -> str:
    return GUIDED.format(dataset=dataset, split=split, first=first)


def general_prompt(first: str) -> str:
    return GENERAL.format(first=first)


def guided_vs_general(task: str, lang: str, item_ids: Sequence[str], guided: Sequence[float],
                      general: Sequence[float]) -> ProbeVerdict:
    """The paired verdict from each item's ROUGE-L of the guided and of the general completion."""
    from scipy.stats import wilcoxon

    n = len(item_ids)
    if n < MIN_ITEMS:
        return unavailable("guided_completion", task, lang, f"not enough items ({n} < {MIN_ITEMS})", n)
    diffs = [g - h for g, h in zip(guided, general)]
    mean_g, mean_h = sum(guided) / n, sum(general) / n
    if all(d == 0 for d in diffs):
        p = 1.0
    else:
        p = float(wilcoxon(guided, general, zero_method="wilcox", alternative="greater").pvalue)
    items = tuple(i for i, g, h in zip(item_ids, guided, general) if g >= NEAR_EXACT > h)
    return ProbeVerdict("guided_completion", task, lang, p < ALPHA and mean_g > mean_h, n, mean_g - mean_h, p,
                        items, details={"guided_mean": mean_g, "general_mean": mean_h, "test": "wilcoxon"})


# ---- TS-Guessing -------------------------------------------------------------------------------------------------
def gold_index(item: Item) -> int | None:
    """Index of the correct option: the gold letter (A, B, ...) or the gold option text; None when unknown."""
    options = item.options or ()
    gold = item.gold
    if isinstance(gold, str):
        if gold in options:
            return options.index(gold)
        if len(gold) == 1 and "A" <= gold <= "Z" and ord(gold) - 65 < len(options):
            return ord(gold) - 65
    if isinstance(gold, int) and not isinstance(gold, bool) and 0 <= gold < len(options):
        return gold
    return None


def masked_option(item: Item) -> int | None:
    """The wrong option to mask: picked by a hash of the item's id among the wrong options (the same on every run);
    None for items without a known gold or with fewer than three options (a binary item's only wrong option is
    the whole answer space)."""
    options = item.options or ()
    gold = gold_index(item)
    if gold is None or len(options) < 3:
        return None
    wrong = [i for i in range(len(options)) if i != gold and normalise(options[i])]
    if not wrong:
        return None
    h = int.from_bytes(hashlib.sha256(f"{item.task}/{item.lang}/{item.item_id}".encode()).digest()[:4], "big")
    return wrong[h % len(wrong)]


def ts_prompt(item: Item, dataset: str, masked: int) -> str:
    """The TS-Guessing prompt of an item with option `masked` replaced by [MASK]."""
    question = item_text(item) or ""
    options = "\n".join(f"{chr(65 + i)}: {MASK if i == masked else o}" for i, o in enumerate(item.options or ()))
    return TS_PROMPT.format(dataset=dataset, question=question, options=options)


def normalise(text: str) -> str:
    """NFKC, case-folded, without punctuation, symbols or spaces: what an exact match compares."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PZSC")


def ts_answer(reply: str) -> str:
    """The guessed option from a reply: its first non-empty line, a leading "A:"/"A." letter label dropped."""
    line = next((x.strip() for x in reply.splitlines() if x.strip()), "")
    if len(line) > 2 and "A" <= line[0] <= "Z" and line[1] in ":.)" and line[2] == " ":
        line = line[3:]
    return line


def ts_exact(reply: str, masked_text: str) -> bool:
    """Whether a reply reproduces the masked option exactly (after `normalise`)."""
    guess = normalise(ts_answer(reply))
    return bool(guess) and guess == normalise(masked_text)


def ts_guessing(task: str, lang: str, item_ids: Sequence[str], exact: Sequence[bool],
                baseline: float | None = None) -> ProbeVerdict:
    """The verdict from each item's exact match; `baseline` is the rate measured on calibration items, if any."""
    from scipy.stats import binomtest

    n = len(item_ids)
    if n < MIN_ITEMS:
        return unavailable("ts_guessing", task, lang, f"not enough multiple-choice items ({n} < {MIN_ITEMS})", n)
    k = sum(bool(x) for x in exact)
    null = max(TS_BASELINE, baseline or 0.0)
    p = float(binomtest(k, n, null, alternative="greater").pvalue) if null < 1 else 1.0
    rate = k / n
    return ProbeVerdict("ts_guessing", task, lang, p < ALPHA and rate > null, n, rate, p,
                        tuple(i for i, x in zip(item_ids, exact) if x),
                        details={"baseline": null, "exact": k, "test": "binomial"})


# ---- Min-K%++ ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PromptToken:
    """One prompt token as an endpoint scored it."""

    token: str
    logprob: float | None
    """log p(token | prefix); None for the first token (no prefix)."""
    top: Mapping[str, float]
    """The endpoint's top-k alternatives at this position: token → log-probability."""


def minkpp_token_score(logprob: float, top: Mapping[str, float], token: str) -> float | None:
    """(log p(x_t) − μ_t) / σ_t with μ_t, σ_t over the top-k set (plus x_t), probabilities renormalised over it."""
    support = dict(top)
    support.setdefault(token, logprob)
    if len(support) < 2:
        return None
    lps = list(support.values())
    peak = max(lps)
    weights = [math.exp(lp - peak) for lp in lps]
    total = sum(weights)
    mu = sum(w * lp for w, lp in zip(weights, lps)) / total
    var = sum(w * (lp - mu) ** 2 for w, lp in zip(weights, lps)) / total
    if var <= 0:
        return None
    return (logprob - mu) / math.sqrt(var)


def minkpp_token_scores(tokens: Sequence[PromptToken]) -> list[float]:
    """Every scorable token's Min-K%++ score, in text order (the first token and zero-spread positions skipped)."""
    out = []
    for t in tokens:
        if t.logprob is None or not t.top:
            continue
        s = minkpp_token_score(t.logprob, t.top, t.token)
        if s is not None:
            out.append(s)
    return out


def minkpp_score(token_scores: Sequence[float], k: float = MINKPP_K) -> float | None:
    """Mean of the lowest k share of the token scores (int(n·k) of them, at least one); None without tokens."""
    if not token_scores:
        return None
    m = max(1, int(len(token_scores) * k))
    return sum(sorted(token_scores)[:m]) / m


def min_k_pp(task: str, lang: str, item_ids: Sequence[str], scores: Sequence[float],
             calibration: Sequence[float]) -> ProbeVerdict:
    """The verdict from the items' Min-K%++ scores against the calibration texts' scores."""
    import numpy as np
    from scipy.stats import mannwhitneyu

    n = len(item_ids)
    if n < MIN_ITEMS:
        return unavailable("min_k_pp", task, lang, f"not enough items ({n} < {MIN_ITEMS})", n)
    if len(calibration) < MIN_ITEMS:
        return unavailable("min_k_pp", task, lang,
                           f"not enough calibration texts ({len(calibration)} < {MIN_ITEMS})", n)
    p = float(mannwhitneyu(scores, calibration, alternative="greater").pvalue)
    cut = float(np.quantile(calibration, MINKPP_ITEM_QUANTILE))
    shift = float(np.median(scores) - np.median(calibration))
    return ProbeVerdict("min_k_pp", task, lang, p < ALPHA and shift > 0, n, shift, p,
                        tuple(i for i, s in zip(item_ids, scores) if s > cut),
                        details={"calibration_n": len(calibration), "calibration_q95": cut, "k": MINKPP_K,
                                 "test": "mann-whitney"})
