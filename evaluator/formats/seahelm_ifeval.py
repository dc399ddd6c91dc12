"""SEA-HELM `if-eval` inference rows (SEA-IFEval) that SEA-HELM itself leaves unscored.

SEA-HELM's `IFEvalMetric` (`seahelm_tasks/instruction_following/ifeval/if_eval.py` at 6844e6c) skips
`length_constraints:number_words` rows in Thai, Lao, Khmer and Burmese (no spaces between words), and Tanaw's
SEA-IFEval cells have no such items (`evaluator.datasets.ifeval`). The SEA-HELM reader (`evaluator.formats.seahelm`)
asks `unscored` for each row and reports the skipped ones with `note` instead of as rows matching no item.
"""
from __future__ import annotations

from typing import Any

from evaluator.datasets.ifeval import SKIPPED
from evaluator.instructions import NO_WORD_SPACES

TASK = "sea-ifeval"


def unscored(task: str, lang: str, obj: Any) -> bool:
    """Whether a row of `task`/`lang` is one SEA-HELM leaves unscored."""
    if task != TASK or lang not in NO_WORD_SPACES or not isinstance(obj, dict):
        return False
    meta = obj.get("metadata")
    return isinstance(meta, dict) and meta.get("subcategory") == SKIPPED


def note(lang: str, n: int) -> str:
    """The warning for `n` skipped rows."""
    return (f"{n} {SKIPPED} row(s) not imported: SEA-HELM leaves them unscored in {lang!r} (no spaces between "
            "words), and SEA-IFEval's cells here have no such items")
