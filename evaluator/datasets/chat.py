"""Multi-turn conversations: SEA-HELM's SEA-MT-Bench files (`mt_bench/<lang>.jsonl`, copied from SEA-HELM's
`seahelm_tasks/multi_turn/mt_bench/data/`).

Each line: `question_id`, `prompts` (the user's turns, each `{"text": ...}`), `baselines` (model -> its answers per
turn: the reference answers pairwise judging compares with), `references` (gold answers per turn for the math and
reasoning categories, else null) and `metadata.category`. Items keep the turns as `turns` (`evaluator.chat`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from evaluator.chat_items import TurnsError, conversation_inputs
from evaluator.datasets.base import item_key, make_item, read_jsonl, register_loader
from evaluator.spec import Item


@register_loader("seahelm.mt_bench", lambda lang: (f"mt_bench/{lang}.jsonl",))
def read_mt_bench(data_dir: Path, lang: str) -> Iterator[Item]:
    """SEA-MT-Bench conversations with their reference model's answers and, where given, gold references."""
    for row in read_jsonl(data_dir / "mt_bench" / f"{lang}.jsonl"):
        try:
            inputs = conversation_inputs(row.data)
        except TurnsError as e:
            raise row.fail(e.field, e.problem) from None
        meta = row.get("metadata") or {}
        yield make_item("seahelm.mt_bench", lang, item_key(row, "question_id"), inputs, None, required=(),
                        metadata={"category": meta.get("category") if isinstance(meta, dict) else None})
