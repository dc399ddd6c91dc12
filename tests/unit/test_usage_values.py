"""The cost-and-speed sums convert each run's values with fast paths (None, float, small int); every value
converts as it did through `float()`, so no stored figure changes."""
from __future__ import annotations

import math
import random

import numpy as np

from evaluator.usage import _int, _num, usage_summary

ODD = [None, 0, 1, 7, -3, 2 ** 53, 2 ** 53 + 1, 2 ** 60 + 3, 0.0, -0.0, 1.5, -1.5, float("nan"), float("inf"),
       -float("inf"), 1e308, True, False, "7", " 8 ", "x", "nan", np.float64(2.5), np.float64("nan"), np.int64(9),
       np.int64(-2), [], {}]


def _plain_num(v):
    """The conversion before the fast paths: through float(), None where that fails, is NaN or negative."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or f < 0 else f


def _plain_int(v):
    f = _plain_num(v)
    return int(f) if f is not None else 0


def _outcome(convert, v):
    try:
        out = convert(v)
    except OverflowError:  # int(inf): as before, never a stored column's value (tokens and counts are BIGINT)
        return "OverflowError"
    return type(out), repr(out)


def test_fast_paths_convert_as_float_does():
    for v in ODD:
        assert _outcome(_num, v) == _outcome(_plain_num, v), v
        assert _outcome(_int, v) == _outcome(_plain_int, v), v  # 2**53 + 1 goes through the float: 2**53


def test_an_integer_beyond_the_float_range_still_raises():
    for convert in (_num, _int):
        try:
            convert(10 ** 400)
        except OverflowError:
            continue
        raise AssertionError(f"{convert.__name__} accepted 10**400")


def test_runs_without_tokens_or_latency_by_hand():
    runs = [dict(requests=10, tokens_in=None, tokens_out=None, latency_sum=None, latency_n=None, price_in=None,
                 price_out=None) for _ in range(300)]
    runs[7] = {**runs[7], "tokens_in": 40, "tokens_out": 5, "latency_sum": 2.5, "latency_n": 10, "price_in": 1.0,
               "price_out": 2.0}
    assert usage_summary(runs) == {"requests": 3000, "tokens_in": 40, "tokens_out": 5, "mean_latency_s": 0.25,
                                   "cost": (40 * 1.0 + 5 * 2.0) / 1e6}


def test_summary_of_random_runs_matches_a_plain_sum():
    rnd = random.Random(14)
    numbers = [None, 0, 3, 250, 1.5, float("nan"), -1.0, 12.25]
    for _ in range(2000):
        runs = [{k: rnd.choice(numbers) for k in ("requests", "tokens_in", "tokens_out", "latency_sum", "latency_n",
                                                  "price_in", "price_out")} for _ in range(rnd.randint(0, 6))]
        got = usage_summary(runs)
        t_in, t_out = sum(_plain_int(r["tokens_in"]) for r in runs), sum(_plain_int(r["tokens_out"]) for r in runs)
        lat_n = sum(_plain_int(r["latency_n"]) for r in runs)
        assert (got["requests"], got["tokens_in"], got["tokens_out"]) == (
            sum(_plain_int(r["requests"]) for r in runs), t_in, t_out)
        want_lat = math.fsum(_plain_num(r["latency_sum"]) or 0.0 for r in runs) / lat_n if lat_n else None
        assert got["mean_latency_s"] == want_lat
        priced = [r for r in runs if _plain_int(r["tokens_in"]) or _plain_int(r["tokens_out"])]
        if not (t_in or t_out) or any(_plain_num(r["price_in"]) is None or _plain_num(r["price_out"]) is None
                                      for r in priced):
            assert got["cost"] is None
        else:
            assert got["cost"] == math.fsum((_plain_int(r["tokens_in"]) * _plain_num(r["price_in"])
                                             + _plain_int(r["tokens_out"]) * _plain_num(r["price_out"])) / 1e6
                                            for r in priced)
