"""Translation metrics: chrF++ (sacrebleu `CHRF(word_order=2)`) and COMET-22 when its checkpoint is local.

chrF++ is a corpus metric: the cell value is sacrebleu's corpus score (statistics summed over sentences, not
a mean of sentence scores), with sacrebleu's own bootstrap interval; the per-item value is its sentence score.
COMET-22 needs the optional `unbabel-comet` package (requirements-comet.txt) and a checkpoint file given by
`$TANAW_COMET_PATH`; otherwise the cell says "COMET-22 unavailable: <reason>".
"""
from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from sacrebleu.metrics import CHRF

from evaluator.metrics.base import MetricSpec, register
from evaluator.stats import bootstrap_draws, percentile_interval

N_BOOTSTRAP = 1000


@lru_cache(maxsize=1)
def _chrf() -> CHRF:
    return CHRF(word_order=2)


def reference_text(gold: Any) -> str:
    """The reference translation (the first when the gold holds several)."""
    return str(gold[0] if isinstance(gold, (list, tuple)) else gold)


def chrf_sentence(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """Sentence-level chrF++ (0-1); an unparseable (empty) answer scores as an empty hypothesis."""
    return _chrf().sentence_score(answer or "", [reference_text(gold)]).score / 100


def chrf_corpus(rows: Sequence[tuple]) -> float:
    """Corpus chrF++ (0-1) over (answer, gold, extras) rows; unparseable answers are empty hypotheses."""
    hyps = [a or "" for a, _g, _e in rows]
    return _chrf().corpus_score(hyps, [[reference_text(g) for _a, g, _e in rows]]).score / 100


def chrf_interval(rows: Sequence[tuple]) -> tuple[float, float, float]:
    """Corpus chrF++ (0-1) ± sacrebleu's bootstrap 95% half-width (its fixed seed, `SACREBLEU_SEED`)."""
    hyps = [a or "" for a, _g, _e in rows]
    refs = [[reference_text(g) for _a, g, _e in rows]]
    if len(hyps) < 2:
        value = _chrf().corpus_score(hyps, refs).score
        return (value / 100, value / 100, value / 100)
    metric = CHRF(word_order=2)
    try:
        score = metric.corpus_score(hyps, refs, n_bootstrap=N_BOOTSTRAP)
        value, half = score.score, score._ci  # the point estimate is the plain corpus score
    except TypeError:
        # sacrebleu 2.6 mixes float and float32 resample scores (a resample with no match scores a Python 0.0)
        # and statistics.mean refuses the mix; rerun its own resampling (same seed) and take its 95% half-width.
        from sacrebleu.significance import _bootstrap_resample

        value = metric.corpus_score(hyps, refs).score
        _, resampled = _bootstrap_resample(metric._extract_corpus_statistics(hyps, refs), metric, N_BOOTSTRAP)
        raw = sorted(float(x.score) for x in resampled)
        lower = len(raw) // 40
        half = 0.5 * (raw[len(raw) - lower - 1] - raw[lower])
    return (value / 100, max(0.0, (value - half) / 100), min(1.0, (value + half) / 100))


def missing_extra(modules: Mapping[str, str], requirements: str, then: str = "") -> str | None:
    """Why an optional extra cannot run: its packages (import name → distribution name) that are not installed,
    with the install command and what to do next; None when all are present."""
    missing = [dist for module, dist in modules.items() if importlib.util.find_spec(module) is None]
    if not missing:
        return None
    what = f"the {missing[0]} package is" if len(missing) == 1 else f"the {', '.join(missing)} packages are"
    return f"{what} not installed (pip install -r {requirements}{then})"


def missing_checkpoint(env: str, what: str, *, directory: bool = False) -> str | None:
    """Why no local checkpoint is named by `$env` (unset, or no such file/directory), or None when it is there."""
    path = os.environ.get(env)
    if not path:
        return f"{env} is not set (path to {what})"
    if not (Path(path).is_dir() if directory else Path(path).is_file()):
        return f"no checkpoint {'directory' if directory else 'file'} at {env}={path}"
    return None


def segment_interval(segments: Sequence[float]) -> tuple[float, float, float]:
    """Mean of a neural metric's segment scores with a percentile bootstrap over them (numpy seed 4156)."""
    import numpy as np

    seg = np.asarray(segments, dtype=float)
    lo, hi = percentile_interval(seg[bootstrap_draws(4156, N_BOOTSTRAP, len(seg))].mean(axis=1))
    return (float(seg.mean()), lo, hi)


def source_text(extras: dict) -> str:
    """The source sentence of a translation row (the item's `text` input)."""
    return str((extras.get("inputs") or {}).get("text", ""))


def comet_unavailable() -> str | None:
    """Why COMET-22 cannot run here, or None when package and local checkpoint are both present."""
    return (missing_extra({"comet": "unbabel-comet"}, "requirements-comet.txt")
            or missing_checkpoint("TANAW_COMET_PATH", "a local wmt22-comet-da checkpoint"))


def comet_corpus(rows: Sequence[tuple], *, batch_size: int = 16) -> float:
    """COMET-22 system score (mean of segment scores, 0-1 scale as the model outputs it)."""
    model = _comet_model(os.environ["TANAW_COMET_PATH"])
    data = [{"src": source_text(e), "mt": a or "", "ref": reference_text(g)} for a, g, e in rows]
    return float(model.predict(data, batch_size=batch_size, gpus=0, progress_bar=False).system_score)


def comet_interval(rows: Sequence[tuple]) -> tuple[float, float, float]:
    """COMET-22 system score with a percentile bootstrap over its segment scores (numpy seed 4156)."""
    model = _comet_model(os.environ["TANAW_COMET_PATH"])
    data = [{"src": source_text(e), "mt": a or "", "ref": reference_text(g)} for a, g, e in rows]
    return segment_interval(model.predict(data, batch_size=16, gpus=0, progress_bar=False).scores)


@lru_cache(maxsize=1)
def _comet_model(path: str):
    from comet import load_from_checkpoint

    return load_from_checkpoint(path)


CHRF_PP = register(MetricSpec(
    name="chrf++", display="ChrF++", item=chrf_sentence, corpus=chrf_corpus, interval=chrf_interval,
    description="Character n-gram F-score with word bigrams (chrF++), corpus level; per item the sentence "
                "score. Interval: sacrebleu's paired bootstrap (1000 samples, its fixed seed).",
    reference="sacrebleu CHRF(word_order=2) = `sacrebleu -m chrf --chrf-word-order 2`"))
COMET22 = register(MetricSpec(
    name="comet22", display="COMET-22", item=None, corpus=comet_corpus, interval=comet_interval,
    unavailable=comet_unavailable,
    chance="none",
    description="Neural MT metric (Unbabel wmt22-comet-da) from source, translation and reference; computed only "
                "when the optional package and a local checkpoint ($TANAW_COMET_PATH) are present.",
    reference="unbabel-comet 2.2.7, Unbabel/wmt22-comet-da"))
