"""The paired tests (evaluator.pair_tests) against the textbook computation written out here with numpy and SciPy:
the mean difference over the common items (sorted by id), its 95% percentile interval over 10,000 seeded resamples
of the item differences, exact McNemar (`scipy.stats.binomtest` on the discordant pairs) for 0/1 scores and the
doubled share of resampled differences on the other side of zero otherwise. The difference and interval agree to
1e-9, p-value, method, n and discordant counts exactly, on 0/1 scores, halves and thirds (ties at zero that
rounding could flip), continuous scores, identical and all-equal systems, unequal item coverage and no common item;
and in both orders."""
from __future__ import annotations

import numpy as np
import pytest

from scipy import stats

from evaluator import pair_tests as pair_tests_module
from evaluator.pair_tests import PairedTest, both_orders, pair_tests, paired_test


def reference(a: dict[str, float], b: dict[str, float], n_boot: int = 10_000, seed: int = 4156) -> PairedTest:
    """The paired test computed directly: resample the differences of the common items."""
    keys = sorted(set(a) & set(b))
    x, y = np.array([a[k] for k in keys]), np.array([b[k] for k in keys])
    d = x - y
    boots = d[np.random.default_rng(seed).integers(0, len(d), size=(n_boot, len(d)))].mean(axis=1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    a_only, b_only = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    if np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all():
        p = stats.binomtest(min(a_only, b_only), a_only + b_only).pvalue if a_only + b_only else 1.0
        return PairedTest(100 * d.mean(), 100 * lo, 100 * hi, p, "mcnemar-exact", len(d), a_only, b_only)
    p = min(1.0, 2 * min((boots <= 0).mean(), (boots >= 0).mean()))
    return PairedTest(100 * d.mean(), 100 * lo, 100 * hi, p, "paired-bootstrap", len(d))


def _systems() -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(11)
    ids = [f"item-{j:02d}" for j in range(48)]
    draw = {"binary": lambda: float(rng.integers(0, 2)), "halves": lambda: rng.integers(0, 3) / 2,
            "thirds": lambda: rng.integers(0, 4) / 3, "continuous": lambda: float(rng.random())}
    out = {name: {i: float(f()) for i in ids} for name, f in draw.items()}
    out["binary-2"] = {i: float(rng.integers(0, 2)) for i in ids}
    out["same-as-binary"] = dict(out["binary"])
    out["mirror-thirds"] = {i: 1 - v for i, v in out["thirds"].items()}  # differences of +-x: resampled sums tie at 0
    out["all-zero"] = {i: 0.0 for i in ids}
    out["all-zero-2"] = {i: 0.0 for i in ids}
    out["part"] = {i: float(rng.integers(0, 2)) for i in ids[::3]}  # a third of the items
    out["part-thirds"] = {i: rng.integers(0, 4) / 3 for i in ids[5:30]}
    out["elsewhere"] = {"other-item": 1.0}  # no item in common with the others
    return out


@pytest.mark.parametrize("chunk_cells, pair_batch", [(1_000_000, 256), (48 * 3_001, 7)])
def test_every_pair_of_a_cell_is_the_direct_computation(monkeypatch, chunk_cells, pair_batch):
    """Also with the resamples drawn in chunks (4 of 3,001 rows; a cell larger than one chunk) and the pairs taken
    7 at a time (the memory bounds of a large cell or many systems)."""
    monkeypatch.setattr(pair_tests_module, "_CHUNK_CELLS", chunk_cells)
    monkeypatch.setattr(pair_tests_module, "_PAIR_BATCH", pair_batch)
    scores = _systems()
    names = sorted(scores)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    got = both_orders(pair_tests(scores, pairs))
    assert len(got) == 2 * len(pairs)
    methods = set()
    for (a, b), test in got.items():
        if "elsewhere" in (a, b):
            assert test is None
            continue
        want = reference(scores[a], scores[b])
        assert (test.diff, test.ci_low, test.ci_high) == pytest.approx((want.diff, want.ci_low, want.ci_high),
                                                                       abs=1e-9, rel=0), (a, b)
        assert (test.p_value, test.method, test.n, test.a_only, test.b_only) == \
            (want.p_value, want.method, want.n, want.a_only, want.b_only), (a, b)
        methods.add(test.method)
    assert methods == {"mcnemar-exact", "paired-bootstrap"}
    assert got[("all-zero", "all-zero-2")].p_value == 1.0 and got[("all-zero", "all-zero-2")].ci_low == 0.0
    assert got[("binary", "part")].n == 16 and got[("part", "part-thirds")].n == 8


def test_binary_and_halves_pairs_are_bit_for_bit():
    """0/1 scores and halves (two option orders) keep the resampled sums exact: the interval is the direct
    computation's to the last bit, and `paired_test` of two systems is their test within a cell's."""
    scores = _systems()
    for pair in (("binary", "binary-2"), ("halves", "binary")):
        test = pair_tests(scores, [pair])[pair]
        want = reference(scores[pair[0]], scores[pair[1]])
        assert paired_test(scores[pair[0]], scores[pair[1]]) == test
        assert (test.diff, test.ci_low, test.ci_high, test.p_value) == (want.diff, want.ci_low, want.ci_high,
                                                                         want.p_value)
