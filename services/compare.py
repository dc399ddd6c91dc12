"""The Compare page's significance test, computed by the evaluator (`evaluator.aggregate.paired_test`) on the
per-item scores the store returned: exact McNemar for 0/1 scores, a seeded paired bootstrap otherwise."""
from __future__ import annotations

from evaluator.aggregate import PairedTest, paired_test

__all__ = ["PairedTest", "paired_test"]
