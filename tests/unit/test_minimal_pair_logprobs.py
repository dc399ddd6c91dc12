"""LINDSEA minimal pairs by log-probabilities compare the two sentences themselves (BLiMP's method, BHASA §4.2.1),
not the letters A/B after the "Which sentence is more acceptable?" prompt (a base model then always says "A")."""
from __future__ import annotations

import asyncio
from pathlib import Path

from evaluator.clients import OptionScore
from evaluator.metrics.choice import argmax_option
from evaluator.registry import get_task
from evaluator.run import run
from evaluator.runspec import RunSpec
from tests.unit.test_run import ListSink

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


class ShorterIsLikelier:
    """A backend whose log-probability is minus the scored text's code points summed (no ties on the demo pairs); it
    records every question."""

    def __init__(self):
        self.asked: list[tuple[str, str]] = []

    async def option_logprob(self, prompt: str, option: str) -> OptionScore:
        self.asked.append((prompt, option))
        return OptionScore(logprob=weight(option), n_tokens=max(1, len(option.split())))

    async def chat(self, messages, **kw):  # pragma: no cover - never called in log-probability runs
        raise AssertionError("log-probability runs do not generate")


def weight(text: str) -> float:
    return -sum(map(ord, text)) / 100


def run_fake(tasks: str, langs: str, limit: int) -> tuple[ShorterIsLikelier, ListSink]:
    backend, sink = ShorterIsLikelier(), ListSink()
    opts = RunSpec(tasks=tasks, langs=langs, limit=limit, prompt_langs=("en", "native"), data_dir=str(DEMO),
                   logprob_choices=True, concurrency=2)
    asyncio.run(run(backend, sink, opts, progress=False))
    return backend, sink


def test_the_task_declares_sentence_scoring():
    assert get_task("lindsea-mp").logprob_of == "sentences"
    assert get_task("causal").logprob_of == "options" and get_task("lindsea-coref-binary").logprob_of == "options"


def test_minimal_pairs_score_the_sentences_without_a_prompt_and_pick_the_likelier():
    backend, sink = run_fake("lindsea-mp", "id", 6)
    assert backend.asked and all(prompt == "" for prompt, _ in backend.asked)
    rows = list(sink.rows.values())
    assert len(rows) == 6 * 2 * 2  # items x option orders x prompt languages
    sentences = {s for _, item, _ in rows for s in (item.inputs["correct"], item.inputs["wrong"])}
    assert {option for _, option in backend.asked} == sentences  # the sentences as written, no leading space
    for settings, item, result in rows:
        assert settings["mode"] == "choice_logprob" and settings["logprob_of"] == "sentences"
        pair = (item.inputs["correct"], item.inputs["wrong"])
        likelier = pair[argmax_option([weight(s) for s in pair], pair)]
        shown = pair if result.prediction.order == "ab" else pair[::-1]
        assert result.answer == "AB"[shown.index(likelier)]  # the letter the likelier sentence has in this order
        assert result.scores["accuracy"] == (1.0 if likelier == item.inputs["correct"] else 0.0)
        assert result.extras["sentence_logprobs"] == {"A": weight(shown[0]), "B": weight(shown[1])}
    # the pick does not depend on where the sentence stands or on the prompt language: no positional bias
    verdicts: dict[str, set] = {}
    for _, item, result in rows:
        verdicts.setdefault(item.item_id, set()).add(result.scores["accuracy"])
    assert all(len(v) == 1 for v in verdicts.values())
    assert {v.pop() for v in verdicts.values()} == {0.0, 1.0}  # the fake prefers some wrong sentences too


def test_letter_tasks_still_score_the_letters_after_the_prompt():
    backend, sink = run_fake("causal", "id", 2)
    assert {option for _, option in backend.asked} == {" A", " B"}
    assert all(prompt.strip() for prompt, _ in backend.asked)
    for settings, _, result in sink.rows.values():
        assert "logprob_of" not in settings and set(result.extras["letter_logprobs"]) == {"A", "B"}
