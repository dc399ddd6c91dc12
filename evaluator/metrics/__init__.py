"""Metric registry (`METRICS`) with every metric module imported so that each registers itself."""
from evaluator.metrics import (  # noqa: F401  (registration side effects)
    choice, classification, ifeval, match, metricx, ner, qa, summarization, translation)
from evaluator.metrics.base import METRICS, MetricSpec, get_metric, register

__all__ = ["METRICS", "MetricSpec", "get_metric", "register"]
