"""The `leakage` run mode into the store: probes that ask a model whether it has seen a benchmark's items.

`execute` builds the backend the spec names exactly as an evaluation run does (`evaluator.backends.for_spec`: with
`public_endpoint`, the endpoint policy checks every URL and every connection, and the key variable must be one
the operator bound to that very endpoint, `evaluator.endpoints.check`), runs the probes
(`evaluator.leakage.probe_run.run_probes`) and stores each verdict as a leakage signal row (`store.leakage`, the
shape of `evaluator.leakage.LeakSignal`) of the model's (task, lang) under prompt language "*" (a probe asks about
the dataset's items, not one prompt: `services.leakage` applies it to every prompt language's cell), replacing the
earlier rows of the same probes there, under any prompt language. The model's name is checked as a run's is (`services.ownership.name_refusal`).
"""
from __future__ import annotations

import asyncio
import sys
from typing import Any

from evaluator import backends, endpoints
from evaluator.leakage import probes as P
from evaluator.leakage.probe_run import ProbeOptions, run_probes
from evaluator.runspec import ConfigError, RunSpec


async def _probe_all(spec: RunSpec, backend: Any, popts: ProbeOptions) -> list[P.ProbeVerdict]:
    try:
        return await run_probes(backend, spec, popts)
    finally:
        await backend.close()


def execute(spec: RunSpec, popts: ProbeOptions = ProbeOptions()) -> list[P.ProbeVerdict]:
    """Run the probes of a spec and store their signals in `spec.db`; ConfigError when the spec, the endpoint, the
    key or the model's name is refused (nothing is sent then)."""
    from services.ownership import name_refusal
    from store import leakage, writer
    from store.db import connect, transaction
    from store.owners import OPERATOR

    spec = spec.checked()
    if spec.public_endpoint:
        try:
            endpoints.check(spec.base_url, spec.api_key_env)
        except endpoints.EndpointRefused as exc:
            raise ConfigError(str(exc)) from None
    con = connect(spec.db)
    try:
        owner = spec.model_info.get("owner") or OPERATOR
        refusal = name_refusal(con, spec.model, owner)
        if refusal is not None:
            raise ConfigError(f"model: {refusal}")
        backend, _ = backends.for_spec(spec)
        verdicts = asyncio.run(_probe_all(spec, backend, popts))
        signals = [P.to_signal(v, spec.model) for v in verdicts]
        with transaction(con):
            writer.upsert_model(con, {"model_id": spec.model, "origin": "evaluated", **spec.model_info})
            leakage.delete_item_signals(con, sorted({(s.model_id, s.task, s.lang) for s in signals}),
                                        sorted({s.signal for s in signals}))
            leakage.save_signals(con, [s.as_row() for s in signals])
        return verdicts
    finally:
        con.close()


def summary(verdicts: list[P.ProbeVerdict]) -> str:
    """One line per verdict: cell, probe, FLAGGED / clean / n/a, and its plain-text evidence."""
    lines = []
    for v in verdicts:
        state = "n/a" if v.unavailable else ("FLAGGED" if v.flagged else "clean")
        lines.append(f"{v.task}/{v.lang}  {v.signal:<17} {state:<7} {P.describe(v)}")
    return "\n".join(lines)


def run_and_report(spec: RunSpec, popts: ProbeOptions = ProbeOptions()) -> int:
    """`execute` with its summary on stdout: 0 done (whatever the verdicts), 2 the spec or endpoint is refused."""
    try:
        verdicts = execute(spec, popts)
    except (ConfigError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary(verdicts))
    flagged = sum(v.flagged for v in verdicts)
    print(f"\n{len(verdicts)} probe verdicts stored, {flagged} flagged -> {spec.db or 'default store'}")
    return 0
