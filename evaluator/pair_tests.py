"""Whole-cell paired tests between systems (model × prompt language), vectorised across the pairs of a cell.

`pair_tests` gives, for every requested pair of systems, exactly what `evaluator.aggregate.paired_test` gives on
the items both systems have a score for (dicts by item id: common items sorted by id): the difference, its 95%
paired-bootstrap interval, the p-value (exact McNemar for 0/1 scores, bootstrap otherwise) and the discordant
counts. Instead of one 10,000 × n resampling per pair, the pairs that share the same common items share one
seeded index matrix (the same seed and n give the same draws): per chunk of resamples the draws become a
multiplicity-count matrix, one matrix product gives every system's resampled sum, and a pair's resampled
difference is the difference of two columns. With 0/1 scores the sums are exact integers in float64, so the
resampled differences equal `paired_test`'s bit for bit; with fractional scores they agree to rounding (~1e-15),
and the resamples whose difference is within rounding of zero are recomputed the way `paired_test` does, so its
bootstrap p-value (a count of differences <= 0 and >= 0) is reproduced exactly.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

import numpy as np

from evaluator.aggregate import BOOTSTRAP_SEED, PairedTest, mcnemar_exact

N_PAIR_BOOTSTRAP = 10_000
"""Resamples per pair (`paired_test`'s default)."""
_CHUNK_CELLS = 2_000_000
"""Resamples are drawn in chunks of about this many indices (memory stays ~30 MB whatever the cell size)."""
_NEAR_ZERO = 1e-9
"""A resampled mean difference this close to zero is recomputed as `paired_test` computes it (its sign counts)."""

Scores = Mapping[str, Mapping[str, float]]
"""{system: {item_id: per-item score 0-1}}; an item a system has no score for is absent (or NaN)."""


def _common(a: Mapping[str, float], b: Mapping[str, float]) -> tuple[str, ...]:
    """Items both systems scored, sorted as `paired_test` sorts dict keys."""
    keep = [k for k in a.keys() & b.keys() if a[k] == a[k] and b[k] == b[k]]
    return tuple(sorted(keep, key=str))


def _resampled_differences(values: np.ndarray, cols: np.ndarray, fix: np.ndarray, n_boot: int,
                           seed: int) -> np.ndarray:
    """(n_boot × pairs) resampled mean differences: `values` (items × 2·pairs, A then B column of each pair),
    `fix` marks the pairs whose near-zero differences are recomputed exactly."""
    n, pairs = values.shape[0], cols.shape[0]
    systems = np.unique(cols)
    where = {s: i for i, s in enumerate(systems)}
    ia, ib = (np.array([where[c] for c in cols[:, k]]) for k in (0, 1))
    per_system = values[:, systems]
    out = np.empty((n_boot, pairs))
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // n)
    for start in range(0, n_boot, chunk):
        rows = min(chunk, n_boot - start)
        draws = rng.integers(0, n, size=(rows, n))  # the same stream as paired_test's one (n_boot × n) call
        counts = np.bincount((draws + (np.arange(rows) * n)[:, None]).ravel(), minlength=rows * n)
        sums = counts.reshape(rows, n).astype(np.float64) @ per_system
        diffs = (sums[:, ia] - sums[:, ib]) / n
        for k in np.flatnonzero(fix):
            near = np.flatnonzero(np.abs(diffs[:, k]) <= _NEAR_ZERO)
            if near.size:
                d = per_system[:, ia[k]] - per_system[:, ib[k]]
                diffs[near, k] = d[draws[near]].mean(axis=1)
        out[start:start + rows] = diffs
    return out


def _group_tests(matrix: np.ndarray, cols: np.ndarray, n_boot: int, seed: int) -> list[PairedTest]:
    """`paired_test` of each pair (column indices into `matrix`, items × systems) on all of matrix's rows."""
    a, b = matrix[:, cols[:, 0]], matrix[:, cols[:, 1]]
    d = a - b
    binary = np.isin(a, (0.0, 1.0)).all(axis=0) & np.isin(b, (0.0, 1.0)).all(axis=0)
    boots = _resampled_differences(matrix, cols, ~binary, n_boot, seed)
    lo, hi = np.percentile(boots, [2.5, 97.5], axis=0)
    below, above = (boots <= 0).mean(axis=0), (boots >= 0).mean(axis=0)
    a_only, b_only = ((a == 1) & (b == 0)).sum(axis=0), ((a == 0) & (b == 1)).sum(axis=0)
    tests = []
    for k in range(cols.shape[0]):
        if binary[k]:
            p, method, counts = mcnemar_exact(int(a_only[k]), int(b_only[k])), "mcnemar-exact", (a_only[k], b_only[k])
        else:
            p, method, counts = min(1.0, 2 * min(float(below[k]), float(above[k]))), "paired-bootstrap", (0, 0)
        tests.append(PairedTest(100 * float(d[:, k].mean()), 100 * float(lo[k]), 100 * float(hi[k]), p, method,
                                len(d), int(counts[0]), int(counts[1])))
    return tests


def pair_tests(scores: Scores, pairs: Sequence[tuple[str, str]], *, n_boot: int = N_PAIR_BOOTSTRAP,
               seed: int = BOOTSTRAP_SEED) -> dict[tuple[str, str], PairedTest | None]:
    """{(a, b): paired_test(scores[a], scores[b])} for each pair, None when the two share no scored item."""
    groups: dict[tuple[str, ...], list[tuple[str, str]]] = defaultdict(list)
    for a, b in pairs:
        groups[_common(scores[a], scores[b])].append((a, b))
    out: dict[tuple[str, str], PairedTest | None] = {}
    for items, members in groups.items():
        if not items:
            out.update((pair, None) for pair in members)
            continue
        systems = sorted({s for pair in members for s in pair})
        column = {s: i for i, s in enumerate(systems)}
        matrix = np.array([[float(scores[s][i]) for s in systems] for i in items], dtype=float)
        cols = np.array([[column[a], column[b]] for a, b in members])
        out.update(zip(members, _group_tests(matrix, cols, n_boot, seed)))
    return out


def reversed_test(test: PairedTest) -> PairedTest:
    """The same test read as B vs A: what `paired_test(b, a)` gives (difference and interval negated, to
    rounding of the interpolated percentiles; p-value and method equal; discordant counts swapped)."""
    return PairedTest(-test.diff, -test.ci_high, -test.ci_low, test.p_value, test.method, test.n, test.b_only,
                      test.a_only)


def both_orders(tests: Mapping[tuple[str, str], PairedTest | None]) -> dict[tuple[str, str], PairedTest | None]:
    """The tests of each pair in both orders ((a, b) and (b, a)), so a reader picks its row without arithmetic."""
    out = dict(tests)
    for (a, b), test in tests.items():
        out.setdefault((b, a), None if test is None else reversed_test(test))
    return out
