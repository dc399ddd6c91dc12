"""Multi-turn conversations: SEA-HELM's SEA-MT-Bench files (`mt_bench/<lang>.jsonl`, copied from SEA-HELM's
`seahelm_tasks/multi_turn/mt_bench/data/`).

Each line: `question_id`, `prompts` (the user's turns, each `{"text": ...}`), `baselines` (model -> its answers per
turn: the reference answers pairwise judging compares with), `references` (gold answers per turn for the math and
reasoning categories, else null) and `metadata.category`. Items keep the turns as `turns` (`evaluator.chat`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from evaluator.datasets.base import Row, item_key, make_item, read_jsonl, register_loader
from evaluator.spec import Item


def _texts(row: Row, field: str, values: object) -> list[str]:
    """A list of strings (a turn's text may be given as {"text": ...}); DatasetError naming the field otherwise."""
    if not isinstance(values, list) or not values:
        raise row.fail(field, "a non-empty list is required")
    out = []
    for i, v in enumerate(values):
        v = v.get("text") if isinstance(v, dict) else v
        if not isinstance(v, str):
            raise row.fail(f"{field}[{i}]", "text is required")
        out.append(v)
    return out


@register_loader("seahelm.mt_bench", lambda lang: (f"mt_bench/{lang}.jsonl",))
def read_mt_bench(data_dir: Path, lang: str) -> Iterator[Item]:
    """SEA-MT-Bench conversations with their reference model's answers and, where given, gold references."""
    for row in read_jsonl(data_dir / "mt_bench" / f"{lang}.jsonl"):
        turns = _texts(row, "prompts", row.req("prompts", list))
        baselines = row.get("baselines") or {}
        if not isinstance(baselines, dict):
            raise row.fail("baselines", "an object (model -> answers) is required")
        reference_model = next(iter(baselines), None)
        baseline = _texts(row, f"baselines.{reference_model}", baselines[reference_model]) if reference_model else None
        refs = row.get("references")
        references = _texts(row, "references", refs) if refs else None
        meta = row.get("metadata") or {}
        inputs = {"turns": turns, "baseline": baseline, "baseline_model": reference_model, "references": references}
        yield make_item("seahelm.mt_bench", lang, item_key(row, "question_id"), inputs, None, required=(),
                        metadata={"category": meta.get("category") if isinstance(meta, dict) else None})
