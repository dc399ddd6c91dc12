"""The `leakage` run mode's probes against the stand-in server: guided vs general completion, TS-Guessing and
Min-K%++ flag a model that knows the items and leave alone one that does not; Min-K%++ equals a hand computation."""
from __future__ import annotations

import asyncio
import math
import random
import re

import pytest

from evaluator.clients import ModelClient, RetryPolicy
from evaluator.datasets import load_items
from evaluator.leakage import probes as P
from evaluator.leakage.probe_run import NO_LOGPROBS, ProbeOptions, run_probes
from evaluator.runspec import RunSpec
from tests.helpers.standin_server import StandinServer

FAST = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02)
NOISE = ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "eiusmod")


def _probe(server: StandinServer, spec: RunSpec, popts: ProbeOptions) -> list[P.ProbeVerdict]:
    async def go():
        async with ModelClient(server.base_url, "standin", retry=FAST, concurrency=4) as client:
            return await run_probes(client, spec, popts)
    return asyncio.run(go())


def _pieces(task: str, lang: str) -> dict[str, str]:
    """first piece -> second piece of every item of a fixture cell."""
    out = {}
    for it in load_items(task, lang):
        cut = P.split_instance(P.item_text(it))
        if cut:
            out[cut[0]] = cut[1]
    return out


def _first(prompt: str) -> str:
    return re.search(r"First piece: (.*?)\n\nSecond piece:", prompt, re.S).group(1)


def _noise(seed: str, n: int = 8) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(NOISE) for _ in range(n))


GUIDED_SPEC = RunSpec(model="m", tasks="abssum", langs="id", concurrency=4)


def test_guided_completion_flags_a_model_that_completes_guided_prompts_from_the_items():
    pieces = _pieces("abssum", "id")

    def reply(prompt: str) -> str:
        first = _first(prompt)
        return pieces[first] if "split of the" in prompt else _noise(first)

    with StandinServer(reply=reply) as server:
        [v] = _probe(server, GUIDED_SPEC, ProbeOptions(probes=("guided",)))
    assert v.signal == "guided_completion" and v.n_items == len(pieces) == 24
    assert v.flagged and v.p_value < 0.01
    # every guided completion is the second piece itself (ROUGE-L 1), no noise word is in an item
    assert v.details["guided_mean"] == 1.0 and v.details["general_mean"] == 0.0
    # Wilcoxon with 24 tied differences of +1 (normal approximation, no continuity correction): W+ = 300, mean
    # 24*25/4 = 150, variance 24*25*49/24 - (24^3 - 24)/48 = 1225 - 287.5 = 937.5
    z = (300 - 150) / math.sqrt(937.5)
    assert v.p_value == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-9)
    assert len(v.flagged_items) == 24
    assert server.requests == 48


def test_guided_completion_does_not_flag_a_model_that_answers_both_prompts_the_same():
    pieces = _pieces("abssum", "id")

    def reply(prompt: str) -> str:  # the dataset's name changes nothing: half the items known, either way
        first = _first(prompt)
        return pieces[first] if sum(map(ord, first)) % 2 else _noise(first)

    with StandinServer(reply=reply) as server:
        [v] = _probe(server, GUIDED_SPEC, ProbeOptions(probes=("guided",)))
    assert not v.flagged and v.p_value == 1.0 and v.statistic == 0.0 and v.flagged_items == ()
    assert 0 < v.details["guided_mean"] == v.details["general_mean"] < 1


TS_SPEC = RunSpec(model="m", tasks="pacute-affixation-mcq", langs="tl", concurrency=4)


def _shown_options(prompt: str) -> tuple[str, list[str]]:
    question = prompt.split("\n\n")[1]
    options = re.findall(r"^([A-Z]): (.*)$", prompt, re.M)
    return question, [o for _, o in options]


def test_ts_guessing_flags_a_model_that_knows_the_masked_options():
    items = {P.item_text(it): it.options for it in load_items("pacute-affixation-mcq", "tl")}

    def reply(prompt: str) -> str:
        question, shown = _shown_options(prompt)
        if question not in items:  # a calibration item: unseen, a wrong guess
            return "no idea"
        i = shown.index(P.MASK)
        return f"{chr(65 + i)}: {items[question][i]}"

    with StandinServer(reply=reply) as server:
        [v] = _probe(server, TS_SPEC, ProbeOptions(probes=("ts",)))
    assert v.signal == "ts_guessing" and v.n_items == 24 and v.statistic == 1.0
    assert v.flagged and v.p_value == pytest.approx(0.1 ** 24) and len(v.flagged_items) == 24


def test_ts_guessing_does_not_flag_random_guesses():
    rng = random.Random(7)

    def reply(prompt: str) -> str:
        _, shown = _shown_options(prompt)
        return rng.choice([o for o in shown if o != P.MASK] + ["kumain", "bahay", "inaral"])

    with StandinServer(reply=reply) as server:
        [v] = _probe(server, TS_SPEC, ProbeOptions(probes=("ts",)))
    assert not v.flagged and v.n_items == 24 and v.p_value > 0.01


def test_ts_guessing_is_not_available_on_binary_items():
    with StandinServer() as server:
        [v] = _probe(server, RunSpec(model="m", tasks="causal", langs="id"), ProbeOptions(probes=("ts",)))
    assert not v.flagged and v.unavailable and v.p_value is None and server.requests == 0


# ---- Min-K%++ ------------------------------------------------------------------------------------------------
LN = math.log
HAND = [  # (the token's probability, the other top-k alternatives' probabilities) at each scored position
    (0.5, [0.25, 0.25]),
    (0.2, [0.8]),
    (0.8, [0.2]),
    (0.25, [0.5, 0.25]),
    (0.9, [0.1]),
]


def _hand_scores(tokens: list[str]) -> list[tuple[float | None, dict[str, float]]]:
    """The first token has no prefix; the five after it carry HAND's distributions."""
    return [(None, {})] + [(LN(p), {tok: LN(p), **{f"alt{i}": LN(o) for i, o in enumerate(others)}})
                           for tok, (p, others) in zip(tokens[1:], HAND)]


def test_min_k_pp_from_the_standins_logprobs_equals_a_hand_computation():
    # By hand, with q the top-k probabilities renormalised (they sum to 1 here), mu = sum q log p and
    # sigma^2 = sum q (log p - mu)^2:
    #  {.5,.25,.25}: mu = -1.5 ln2, sigma = .5 ln2 -> the .5 token scores +1, a .25 token -1
    #  {.8,.2}: mu = .8 ln.8 + .2 ln.2, sigma = .4 ln4 -> the .8 token +.5, the .2 token -2
    #  {.9,.1}: sigma = .8 ln3 ... the .9 token scores sqrt(.1/.9) = 1/3
    hand = [1.0, -2.0, 0.5, -1.0, 1 / 3]
    text = "w0 w1 w2 w3 w4 w5"

    async def go(url):
        async with ModelClient(url, "standin", retry=FAST) as client:
            return await client.prompt_logprobs(text, 3)

    with StandinServer(prompt_scores=_hand_scores) as server:
        tokens = asyncio.run(go(server.base_url))
    assert [t for t, _, _ in tokens] == ["w0", " w1", " w2", " w3", " w4", " w5"]
    scores = P.minkpp_token_scores([P.PromptToken(*t) for t in tokens])
    assert scores == pytest.approx(hand, abs=1e-12)
    assert P.minkpp_score(scores) == pytest.approx(-2.0)  # k = 20%: the lowest 1 of 5
    assert P.minkpp_score(scores, k=0.4) == pytest.approx((-2.0 - 1.0) / 2)  # the lowest 2 of 5


MINKPP_SPEC = RunSpec(model="m", tasks="sentiment", langs="id")


def _knows(texts: set[str]):
    """Prompt scores of a model whose mode, at every position, is the next token of a text it knows."""
    def scores(tokens: list[str]) -> list[tuple[float | None, dict[str, float]]]:
        p = 0.7 if "".join(tokens) in texts else 0.2
        return [(None, {})] + [(LN(p), {t: LN(p), "zz": LN(0.9 - p), "yy": LN(0.1)}) for t in tokens[1:]]
    return scores


def test_min_k_pp_flags_items_scored_above_unseen_calibration_texts():
    items = load_items("sentiment", "id")
    with StandinServer(prompt_scores=_knows({P.item_text(it) for it in items})) as server:
        [v] = _probe(server, MINKPP_SPEC, ProbeOptions(probes=("minkpp",)))
    assert v.flagged and v.p_value < 0.01 and v.n_items == len(items) == 24
    assert v.details["calibration_n"] == 12  # the demo items of sentiment/id
    assert sorted(v.flagged_items) == sorted(it.item_id for it in items)


def test_min_k_pp_does_not_flag_a_model_that_scores_items_like_unseen_texts():
    with StandinServer(prompt_scores=_knows(set())) as server:
        [v] = _probe(server, MINKPP_SPEC, ProbeOptions(probes=("minkpp",)))
    assert not v.flagged and v.p_value > 0.01 and v.flagged_items == ()


def test_min_k_pp_is_not_available_without_prompt_logprobs():
    with StandinServer(chat_only=True) as server:
        [v] = _probe(server, MINKPP_SPEC, ProbeOptions(probes=("minkpp",)))
    assert not v.flagged and v.statistic is None and v.p_value is None
    assert v.unavailable == NO_LOGPROBS and server.base_url not in v.unavailable
    assert server.requests <= MINKPP_SPEC.concurrency  # the first refusal stops the rest
    assert P.to_signal(v, "m").detail == v.unavailable
    with StandinServer() as server:  # echoes log-probabilities but no top-k alternatives
        [v] = _probe(server, MINKPP_SPEC, ProbeOptions(probes=("minkpp",)))
    assert v.unavailable == NO_LOGPROBS


def test_min_k_pp_without_calibration_texts_sends_nothing(tmp_path):
    with StandinServer(prompt_scores=_knows(set())) as server:
        [v] = _probe(server, MINKPP_SPEC, ProbeOptions(probes=("minkpp",), calibration_dir=tmp_path))
    assert v.unavailable == "no calibration texts for this task and language" and server.requests == 0
    assert P.to_signal(v, "m").detail == "not available: no calibration texts for this task and language"
    assert str(tmp_path) not in P.to_signal(v, "m").detail
