"""Cost and speed of a model's stored runs: requests, tokens, mean latency and, where the operator gave prices per
million tokens (run settings `price_per_mtok: {input, output}`), cost in the same currency."""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or f < 0 else f


def _int(v: Any) -> int:
    f = _num(v)
    return int(f) if f is not None else 0


def usage_summary(groups: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One model's usage from its run groups (requests, tokens_in, tokens_out, latency_sum, latency_n, price_in,
    price_out): summed requests and tokens, mean latency per timed request, and cost = Σ tokens × price / 10^6,
    None unless every group with tokens has both prices."""
    rows = list(groups)
    tot = {k: sum(_int(r[k]) for r in rows) for k in ("requests", "tokens_in", "tokens_out")}
    lat_n = sum(_int(r["latency_n"]) for r in rows)
    lat = sum(_num(r["latency_sum"]) or 0.0 for r in rows) / lat_n if lat_n else None
    cost = 0.0
    for r in rows:
        p_in, p_out = _num(r.get("price_in")), _num(r.get("price_out"))
        if not (_int(r["tokens_in"]) or _int(r["tokens_out"])):
            continue
        if p_in is None or p_out is None:
            cost = None
            break
        cost += (_int(r["tokens_in"]) * p_in + _int(r["tokens_out"]) * p_out) / 1e6
    has_tokens = bool(tot["tokens_in"] or tot["tokens_out"])
    return {**tot, "mean_latency_s": lat, "cost": cost if has_tokens else None}
