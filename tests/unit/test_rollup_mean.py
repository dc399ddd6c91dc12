"""The roll-ups' mean (`evaluator.rollup._mean`) is `np.mean` bit for bit: below 8 values a plain loop from 0.0
(what numpy's summation does for so few), from 8 on numpy itself."""
from __future__ import annotations

import random

import numpy as np

from evaluator.rollup import _mean


def test_the_mean_is_numpys_bit_for_bit():
    rng = random.Random(14)
    kinds = (lambda: rng.uniform(0, 100), lambda: rng.uniform(-100, 100), lambda: rng.random() * 1e-9,
             lambda: float(rng.randint(0, 100)), lambda: -0.0, lambda: 1e300)
    for _ in range(20_000):
        values = [rng.choice(kinds)() for _ in range(rng.randint(1, 12))]
        got, want = _mean(values), float(np.mean(values))
        assert got == want and np.signbit(got) == np.signbit(want), values
