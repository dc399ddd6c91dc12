"""Running the leakage probes against a model (`tanaw leakage`): prompts out, verdicts back.

The probes (`evaluator.leakage.probes`) go through the runner's backend, the same `ModelClient` the evaluation
runs build (`evaluator.backends.for_spec`: the endpoint policy, retries, rate limit and key handling included) and
the runner's concurrency bound (`evaluator.run.bounded`). The cells are the spec's selection of tasks and languages
(`RunSpec.tasks`, `langs`, `limit`); the probe prompts are English, so each verdict is recorded under prompt
language "en". A request that fails for good leaves its item out of the test (counted in `details["failed"]`).
Calibration texts for Min-K%++ and TS-Guessing are the same task's items read from `calibration_dir` (default:
the repo's demo items, `data/demo`, written for Tanaw, which no model can have trained on before they were
published); items sharing an id or a text with the probed items are dropped from them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from evaluator.clients import ClientError, LogprobsUnsupported
from evaluator.datasets import REPO_ROOT, load_items
from evaluator.leakage import probes as P
from evaluator.metrics.summarization import rouge_l
from evaluator.registry import select
from evaluator.run import bounded
from evaluator.runspec import RunSpec
from evaluator.spec import Item, TaskSpec

PROBES = ("guided", "ts", "minkpp")
"""Probe names on the command line: guided vs general completion, TS-Guessing, Min-K%++."""
DEMO_DIR = REPO_ROOT / "data" / "demo"
"""Default calibration items: the demo items written for Tanaw."""
COMPLETION_TOKENS = 256
"""Generation budget of a completion or a guessed option (unless the spec's `generation` sets max_tokens)."""
NO_LOGPROBS = ("not available: the endpoint returns no prompt log-probabilities with top-k alternatives (it needs "
               "/v1/completions with echo and logprobs, as vLLM serves)")
"""Min-K%++'s verdict on an endpoint without prompt log-probabilities (no endpoint named: the row is public)."""
TOP_K = 20
"""Alternatives asked per prompt token for Min-K%++ (vLLM's default ceiling of `logprobs`)."""


@dataclass(frozen=True)
class ProbeOptions:
    """What `tanaw leakage` asks beyond the run spec."""

    probes: tuple[str, ...] = PROBES
    split: str = "test"
    """Split named in the guided prompt (BHASA's items come from the datasets' test splits)."""
    calibration_dir: str | Path | None = None
    top_k: int = TOP_K


async def _chat(backend: Any, prompt: str, opts: RunSpec) -> str:
    gen = {"temperature": 0.0, "top_p": 1.0, "max_tokens": COMPLETION_TOKENS, **opts.generation}
    c = await backend.chat([{"role": "user", "content": prompt}], extra_body=opts.request_body, **gen)
    return c.text


def _strip_label(text: str) -> str:
    """A completion without a leading "Second piece:" label the model may repeat."""
    t = text.strip()
    if t.lower().startswith("second piece:"):
        t = t[len("second piece:"):].strip()
    return t


async def _each(jobs: Sequence[Any], fn, concurrency: int) -> tuple[dict, int]:
    """`fn(job)` for every job (at most `concurrency` at once): results by job index, and how many failed."""
    out: dict[int, Any] = {}
    failed = 0
    unsupported: list[LogprobsUnsupported] = []

    async def one(pair: tuple[int, Any]) -> None:
        nonlocal failed
        i, job = pair
        if unsupported:  # the endpoint cannot answer this probe: send nothing more
            return
        try:
            out[i] = await fn(job)
        except LogprobsUnsupported as exc:
            unsupported.append(exc)
        except ClientError:
            failed += 1

    await bounded(list(enumerate(jobs)), one, concurrency)
    if unsupported:
        raise unsupported[0]
    return out, failed


async def guided(backend: Any, task: TaskSpec, lang: str, items: Sequence[Item], opts: RunSpec,
                 popts: ProbeOptions) -> P.ProbeVerdict:
    """Guided vs general instance completion on the items whose text can be cut in two."""
    dataset = task.dataset.get(lang) or task.name
    jobs = [(it.item_id, *pieces) for it in items if (t := P.item_text(it)) and (pieces := P.split_instance(t))]

    async def ask(job: tuple[str, str, str]) -> tuple[float, float]:
        _, first, second = job
        g = await _chat(backend, P.guided_prompt(dataset, popts.split, first), opts)
        h = await _chat(backend, P.general_prompt(first), opts)
        return (rouge_l(_strip_label(g), second, lang=lang), rouge_l(_strip_label(h), second, lang=lang))

    done, failed = await _each(jobs, ask, opts.concurrency)
    keep = sorted(done)
    v = P.guided_vs_general(task.name, lang, [jobs[i][0] for i in keep], [done[i][0] for i in keep],
                            [done[i][1] for i in keep])
    return _with(v, failed=failed, dataset=dataset, split=popts.split)


async def _ts_matches(backend: Any, task: TaskSpec, lang: str, items: Sequence[Item], opts: RunSpec
                      ) -> tuple[list[str], list[bool], int]:
    dataset = task.dataset.get(lang) or task.name
    jobs = [(it, m) for it in items if (m := P.masked_option(it)) is not None]

    async def ask(job: tuple[Item, int]) -> bool:
        it, m = job
        return P.ts_exact(await _chat(backend, P.ts_prompt(it, dataset, m), opts), (it.options or ())[m])

    done, failed = await _each(jobs, ask, opts.concurrency)
    keep = sorted(done)
    return [jobs[i][0].item_id for i in keep], [done[i] for i in keep], failed


async def ts_guessing(backend: Any, task: TaskSpec, lang: str, items: Sequence[Item], calibration: Sequence[Item],
                      opts: RunSpec) -> P.ProbeVerdict:
    """TS-Guessing on the items with a known gold and at least three options; the calibration items' exact-match
    rate, when there are enough of them, raises the null rate."""
    if not any(P.masked_option(it) is not None for it in items):
        return P.unavailable("ts_guessing", task.name, lang, "not a multiple-choice task with three or more options",
                             len(items))
    ids, exact, failed = await _ts_matches(backend, task, lang, items, opts)
    baseline = None
    if calibration:
        _, cal_exact, _ = await _ts_matches(backend, task, lang, calibration, opts)
        if len(cal_exact) >= P.MIN_ITEMS:
            baseline = sum(cal_exact) / len(cal_exact)
    return _with(P.ts_guessing(task.name, lang, ids, exact, baseline), failed=failed)


async def _minkpp_scores(backend: Any, texts: Sequence[str], opts: RunSpec, top_k: int
                         ) -> tuple[dict[int, float | None], int]:
    async def score(text: str) -> float | None:
        tokens = await backend.prompt_logprobs(text, top_k)
        return P.minkpp_score(P.minkpp_token_scores([P.PromptToken(t, lp, top) for t, lp, top in tokens]))

    return await _each(texts, score, opts.concurrency)


async def min_k_pp(backend: Any, task: TaskSpec, lang: str, items: Sequence[Item], calibration: Sequence[Item],
                   opts: RunSpec, popts: ProbeOptions) -> P.ProbeVerdict:
    """Min-K%++ of the items' texts against the calibration items' texts; "not available" when the endpoint
    returns no prompt log-probabilities with alternatives."""
    if not hasattr(backend, "prompt_logprobs"):
        return P.unavailable("min_k_pp", task.name, lang, NO_LOGPROBS, len(items))
    texts = [(it.item_id, t) for it in items if (t := P.item_text(it))]
    cal = [t for it in calibration if (t := P.item_text(it))]
    try:
        done, failed = await _minkpp_scores(backend, [t for _, t in texts], opts, popts.top_k)
        cal_done, _ = await _minkpp_scores(backend, cal, opts, popts.top_k)
    except LogprobsUnsupported:  # its message names the endpoint, which the public row must not
        return P.unavailable("min_k_pp", task.name, lang, NO_LOGPROBS, len(items))
    keep = [i for i in sorted(done) if done[i] is not None]
    v = P.min_k_pp(task.name, lang, [texts[i][0] for i in keep], [done[i] for i in keep],
                   [s for s in cal_done.values() if s is not None])
    return _with(v, failed=failed)


def _with(v: P.ProbeVerdict, **details: Any) -> P.ProbeVerdict:
    import dataclasses

    return dataclasses.replace(v, details={**v.details, **details})


def _calibration(task: TaskSpec, lang: str, items: Sequence[Item], where: str | Path | None
                 ) -> tuple[list[Item], str | None]:
    """The task's items from the calibration folder, without any that shares an id or a text with `items`, and
    why there are none when they cannot be read."""
    try:
        cal = load_items(task, lang, data_dir=where or DEMO_DIR)
    except Exception:  # noqa: BLE001 - no calibration data for this cell: the probes say so
        return [], "no calibration texts for this task and language"
    ids = {it.item_id for it in items}
    texts = {P.item_text(it) for it in items}
    return [it for it in cal if it.item_id not in ids and P.item_text(it) not in texts], None


async def run_probes(backend: Any, opts: RunSpec, popts: ProbeOptions = ProbeOptions()) -> list[P.ProbeVerdict]:
    """Every requested probe on every selected (task, language), in plan order."""
    out: list[P.ProbeVerdict] = []
    for task, lang in select(opts.tasks, opts.langs):
        try:
            items = load_items(task, lang, data_dir=opts.data_dir, limit=opts.limit)
        except Exception:  # noqa: BLE001 - a missing dataset skips the cell (its path stays off the public row)
            out += [P.unavailable(s, task.name, lang, "no data for this task and language")
                    for s in _signals(popts.probes)]
            continue
        cal, no_cal = _calibration(task, lang, items, popts.calibration_dir) if {"ts", "minkpp"} & set(
            popts.probes) else ([], None)
        if "guided" in popts.probes:
            out.append(await guided(backend, task, lang, items, opts, popts))
        if "ts" in popts.probes:
            out.append(await ts_guessing(backend, task, lang, items, cal, opts))
        if "minkpp" in popts.probes:
            if no_cal:  # nothing to compare the items with: nothing is sent
                out.append(P.unavailable("min_k_pp", task.name, lang, no_cal, len(items)))
            else:
                out.append(await min_k_pp(backend, task, lang, items, cal, opts, popts))
    return out


def _signals(probes: Sequence[str]) -> list[str]:
    return [{"guided": "guided_completion", "ts": "ts_guessing", "minkpp": "min_k_pp"}[p] for p in probes]
