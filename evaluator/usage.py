"""Cost and speed of a model's stored runs: requests, tokens, mean latency and, where the operator gave prices per
million tokens (run settings `price_per_mtok: {input, output}`), cost in the same currency."""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

import numpy as np


def _num(v: Any) -> float | None:
    """`v` as a non-negative float; None where there is none (missing, NaN, negative, not a number)."""
    if v is None:  # most runs report no tokens or latency: no exception to raise and catch
        return None
    if type(v) is float:  # the stored columns' type (NaN >= 0 is false)
        return v if v >= 0 else None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or f < 0 else f


_EXACT = 2 ** 53
"""Integers up to this are their own float: `int(float(v)) == v`."""


def _int(v: Any) -> int:
    """`v` as a non-negative whole number, through its float (`_num`); 0 where there is none."""
    if type(v) is int and 0 <= v <= _EXACT:  # the stored columns' type: the value the float gives
        return v
    f = _num(v)
    return int(f) if f is not None else 0


def _total(values: Iterable[float]) -> float:
    """The exactly rounded sum (`math.fsum`) of non-negative floats; infinite where it leaves the float range (a
    pulled store's absurd latencies), as a plain sum would be, instead of fsum's OverflowError."""
    values = list(values)
    try:
        return math.fsum(values)
    except OverflowError:
        return math.inf


def usage_summary(groups: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One model's usage from its runs (or groups of them: requests, tokens_in, tokens_out, latency_sum, latency_n,
    price_in, price_out): summed requests and tokens, mean latency per timed request, and cost = Σ tokens × price /
    10^6, None unless every run with tokens has both prices. Float sums are exactly rounded (`_total`), so they do
    not depend on the order of the runs."""
    rows = [(_int(r["requests"]), _int(r["tokens_in"]), _int(r["tokens_out"]), _int(r["latency_n"]), r)
            for r in groups]  # each count converted once; latency sums and prices where they are used
    tot = {k: sum(r[i] for r in rows) for i, k in enumerate(("requests", "tokens_in", "tokens_out"))}
    lat_n = sum(r[3] for r in rows)
    lat = _total(_num(r["latency_sum"]) or 0.0 for *_, r in rows) / lat_n if lat_n else None
    costs: list[float] | None = []
    for _, t_in, t_out, _, r in rows:
        p_in, p_out = _num(r.get("price_in")), _num(r.get("price_out"))
        if not (t_in or t_out):
            continue
        if p_in is None or p_out is None:
            costs = None
            break
        costs.append((t_in * p_in + t_out * p_out) / 1e6)
    has_tokens = bool(tot["tokens_in"] or tot["tokens_out"])
    return {**tot, "mean_latency_s": lat, "cost": _total(costs) if has_tokens and costs is not None else None}


def run_usage(runs: np.ndarray, row_run: np.ndarray, usage: Mapping[str, np.ndarray]
              ) -> dict[int, tuple[int, int, float, int]]:
    """Run number -> (tokens in, tokens out, latency sum, timed answers) of a cell's rows: `runs` the cell's run
    numbers, `row_run` each row's position among them, `usage` each row's "tokens_in", "tokens_out" and "latency_s"
    (NaN where not reported, which adds nothing). Each run's latencies are added in row order, so the same rows in
    the same order give the same bits."""
    n = len(runs)

    def total(values: np.ndarray) -> np.ndarray:
        return np.bincount(row_run, weights=np.where(np.isnan(values), 0.0, values), minlength=n)

    latency = usage["latency_s"]
    timed = np.bincount(row_run, weights=~np.isnan(latency), minlength=n).astype(np.int64)
    return {int(r): (int(t_in), int(t_out), float(lat), int(k)) for r, t_in, t_out, lat, k in zip(
        np.asarray(runs).tolist(), total(usage["tokens_in"]).tolist(), total(usage["tokens_out"]).tolist(),
        total(latency).tolist(), timed.tolist())}
