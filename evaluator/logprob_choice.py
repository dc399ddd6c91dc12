"""Answering a choice by log-probabilities instead of generation (`choice_logprob` tasks, `--logprob-choices`).

What is compared is declared by the task (`TaskSpec.logprob_of`):
- "options": each option (an MCQ option's text, or a letter label) as the continuation of the prompt;
- "sentences": each option's own sentence, without any prompt. This is the minimal-pair method (BLiMP and the
  work BHASA cites; BHASA §4.2.1 calls comparing the two sentences' probabilities the ideal it could not use with
  GPT-4, so it asked "Which sentence is more acceptable?" instead): the pick is the sentence with the higher summed
  log-probability from its first token (after the model's BOS), reported as that sentence's letter in the order
  presented. The prompt language plays no part, so both prompt languages give the same picks.
"""
from __future__ import annotations

import asyncio
from typing import Any

from evaluator.clients import choose
from evaluator.prompts import Rendered
from evaluator.run_types import Backend
from evaluator.spec import Prediction, TaskSpec


def continuation(option: str) -> str:
    """The option as it follows the prompt: after one space unless it starts with whitespace."""
    return option if option[:1].isspace() else " " + option


def candidates(task: TaskSpec, r: "Rendered", lang: str) -> tuple[list[str], list[str]]:
    """(what is scored, the answer each stands for): option texts, letters, or the pair's sentences → letters."""
    if task.logprob_of == "sentences":
        if not r.options:
            raise ValueError(f"{task.name}: logprob_of='sentences' needs items with options (the sentences)")
        return list(r.options), list(task.labels[lang])[: len(r.options)]
    options = list(r.options) if task.mode == "choice_logprob" else list(task.labels[lang])
    return options, options


async def ask_by_logprob(backend: "Backend", task: TaskSpec, lang: str, r: "Rendered",
                         base: dict[str, Any]) -> tuple[Prediction, dict]:
    """The prediction (the most probable candidate's answer) and the extras to keep with it."""
    texts, answers = candidates(task, r, lang)
    if task.logprob_of == "sentences":
        calls = (backend.option_logprob("", s) for s in texts)
    else:
        prompt = f"{r.system}\n\n{r.user}" if r.system else r.user
        calls = (backend.option_logprob(prompt, continuation(o)) for o in texts)
    scores = await asyncio.gather(*calls)
    picks = choose(texts, scores)
    logprobs = tuple(s.logprob for s in scores)
    extras: dict[str, Any] = {"choice_by_norm": picks, "option_tokens": [s.n_tokens for s in scores],
                              "attempts": max(s.attempts for s in scores)}
    if task.logprob_of == "sentences":
        extras["sentence_logprobs"] = dict(zip(answers, logprobs))
    elif task.mode != "choice_logprob":
        extras["letter_logprobs"] = dict(zip(answers, logprobs))
    pred = Prediction(**base, output=answers[picks["none"]],
                      option_logprobs=logprobs if task.mode == "choice_logprob" else None,
                      tokens_in=sum(s.tokens_in or 0 for s in scores) or None, tokens_out=0,
                      latency_s=max(s.latency_s for s in scores), finish_reason="logprobs")
    return pred, extras
