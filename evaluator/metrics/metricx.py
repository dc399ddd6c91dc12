"""MetricX-24 (Google's learned MT metric, SEA-HELM's translation headline) when its checkpoint is local.

MetricX-24 reads "source: <src> candidate: <translation> reference: <ref>" and predicts an error score from 0 (no
errors) to 25 (worst): lower is better. Tanaw shows SEA-HELM's conversion of it, a 0-100 score where higher is
better: each item's error e becomes `max((e − 25) / (0 − 25), 0)` (SEA-HELM 6844e6c,
`seahelm_tasks/nlg/translation/translation_metric.py`: `normalize_score(x, METRICX_MIN_SCORE=25,
METRICX_MAX_SCORE=0) * 100`, with `normalize_score` in `src/metrics/seahelm_metric.py`), and the cell is the mean
of those item scores (SEA-HELM's `normalized_metricx_wmt24_scores`).

The model is run with the `transformers` library: a MetricX-24 checkpoint is an mT5 encoder-decoder whose
prediction is the first decoder step's logit of token 250089 (`<extra_id_10>`), clipped to [0, 25] (Google's
`MT5ForRegression`, vendored by SEA-HELM in `src/serving/offline/metricx_models.py`); the mT5 tokenizer's
end-of-sequence token is dropped from each input, inputs are cut at 1536 tokens. SEA-HELM runs
google/metricx-24-hybrid-xxl-v2p6-bfloat16 with the google/mt5-xl tokenizer; any MetricX-24 size works here.

Optional: needs `pip install -r requirements-metricx.txt` (torch, transformers, sentencepiece) and a local checkpoint
directory in `$TANAW_METRICX_CHECKPOINT` (its mT5 tokenizer files beside it, or in `$TANAW_METRICX_TOKENIZER`);
nothing is downloaded. Otherwise the cell says "MetricX-24 unavailable: <reason>", as COMET-22's does.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from statistics import fmean
from typing import Sequence

from evaluator.metrics.base import MetricSpec, register
from evaluator.metrics.translation import (
    missing_checkpoint, missing_extra, reference_text, segment_interval, source_text)

CHECKPOINT_VAR = "TANAW_METRICX_CHECKPOINT"
TOKENIZER_VAR = "TANAW_METRICX_TOKENIZER"
METRICX_WORST, METRICX_BEST = 25.0, 0.0
"""MetricX-24's error range (SEA-HELM's METRICX_MIN_SCORE, METRICX_MAX_SCORE: the worst score is its "min")."""
SCORE_TOKEN = 250089
"""The mT5 vocabulary id whose first-step logit is MetricX's prediction (`<extra_id_10>`)."""
MAX_TOKENS = 1536
BATCH_SIZE = 8


def metricx_score(error: float) -> float:
    """SEA-HELM's normalised MetricX score on 0-1 (shown ×100): `max((e − 25) / (0 − 25), 0)`, 1 = no errors."""
    return max((error - METRICX_WORST) / (METRICX_BEST - METRICX_WORST), 0.0)


def metricx_input(source: str, candidate: str, reference: str) -> str:
    """The reference-based MetricX-24 input, SEA-HELM's `judge_prompts` for translation."""
    return f"source: {source} candidate: {candidate} reference: {reference}"


def _tokenizer_dir() -> str:
    return os.environ.get(TOKENIZER_VAR) or os.environ.get(CHECKPOINT_VAR, "")


def metricx_unavailable() -> str | None:
    """Why MetricX-24 cannot run here (packages, checkpoint or tokenizer missing), or None when it can."""
    reason = (missing_extra({"torch": "torch", "transformers": "transformers", "sentencepiece": "sentencepiece"},
                            "requirements-metricx.txt", f", then set {CHECKPOINT_VAR}")
              or missing_checkpoint(CHECKPOINT_VAR, "a local MetricX-24 checkpoint directory, e.g. "
                                    "google/metricx-24-hybrid-large-v2p6", directory=True))
    if reason:
        return reason
    if not (Path(_tokenizer_dir()) / "spiece.model").is_file():
        return (f"no mT5 tokenizer (spiece.model) in {_tokenizer_dir()}: put google/mt5-xl's tokenizer files there "
                f"or set {TOKENIZER_VAR}")
    return None


def metricx_item_scores(rows: Sequence[tuple]) -> list[float]:
    """Each row's normalised MetricX-24 score (0-1) from (answer, gold, extras) rows; an unparsed answer is an empty
    candidate."""
    model = _metricx_model(os.environ[CHECKPOINT_VAR], _tokenizer_dir())
    texts = [metricx_input(source_text(e), a or "", reference_text(g)) for a, g, e in rows]
    return [metricx_score(float(x)) for x in model.errors(texts)]


def metricx_corpus(rows: Sequence[tuple]) -> float:
    """The cell's MetricX-24 score (0-1): the mean of its item scores."""
    return fmean(metricx_item_scores(rows))


def metricx_interval(rows: Sequence[tuple]) -> tuple[float, float, float]:
    """Mean normalised MetricX-24 with a percentile bootstrap over its item scores (COMET-22's, numpy seed 4156)."""
    return segment_interval(metricx_item_scores(rows))


class _MetricX:
    """A loaded MetricX-24 checkpoint and its tokenizer: `errors(texts)` gives each input's error score (0-25)."""

    def __init__(self, checkpoint: str, tokenizer: str) -> None:
        from transformers import AutoTokenizer, MT5ForConditionalGeneration

        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer, local_files_only=True)
        self.model = MT5ForConditionalGeneration.from_pretrained(checkpoint, local_files_only=True).eval()

    def errors(self, texts: Sequence[str]) -> list[float]:
        import torch

        out: list[float] = []
        for start in range(0, len(texts), BATCH_SIZE):
            ids = [{"input_ids": t[:-1], "attention_mask": [1] * (len(t) - 1)}  # the end-of-sequence token dropped
                   for t in self.tokenizer(list(texts[start:start + BATCH_SIZE]), truncation=True,
                                           max_length=MAX_TOKENS)["input_ids"]]
            batch = self.tokenizer.pad(ids, return_tensors="pt")
            start_ids = torch.zeros((len(ids), 1), dtype=torch.long)
            with torch.no_grad():
                logits = self.model(**batch, decoder_input_ids=start_ids).logits
            out.extend(torch.clamp(logits[:, 0, SCORE_TOKEN], METRICX_BEST, METRICX_WORST).tolist())
        return out


@lru_cache(maxsize=1)
def _metricx_model(checkpoint: str, tokenizer: str) -> _MetricX:
    """The checkpoint, loaded once per process."""
    return _MetricX(checkpoint, tokenizer)


METRICX24 = register(MetricSpec(
    name="metricx24", display="MetricX-24", item=None, corpus=metricx_corpus, interval=metricx_interval,
    unavailable=metricx_unavailable,
    chance="zero",
    description="Google's learned MT metric from source, translation and reference. Its error score runs 0-25, "
                "lower better; shown as SEA-HELM's 0-100 score, 100·(1 − error/25), higher better (the mean over "
                "items). Computed only when the optional extra and a local checkpoint ($TANAW_METRICX_CHECKPOINT) "
                "are present.",
    reference="SEA-HELM 6844e6c translation_metric.py (normalised MetricX-wmt24); MetricX-24 hybrid checkpoints "
              "via transformers 5.17.0"))
