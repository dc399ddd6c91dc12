"""Paired tests between systems (model × prompt language) on the items both scored: the one implementation.

`paired_test(a, b)` compares two systems; `pair_tests` every requested pair of a cell at once. For each pair: the
mean difference, its 95% paired-bootstrap percentile interval (10,000 resamples of the common items, sorted by
id, seeded), and the p-value: exact McNemar (`evaluator.stats.mcnemar_exact`) for 0/1 scores, else the share of
resampled differences on the other side of zero, doubled. The pairs that share the same common items share one
seeded index matrix: per chunk of resamples the draws become a multiplicity-count matrix, one matrix product gives
every system's resampled sum, and a pair's resampled difference is the difference of two columns. Scores that are
multiples of 1/1024 (0/1, halves, quarters) sum exactly in any order; for other scores a resampled difference
within rounding of zero is recomputed as the mean of the drawn items' differences, so its sign (which the p-value
counts) is not an artefact of the order the sums were added in.
"""
from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass
from typing import Hashable, Iterator, Mapping, Sequence

import numpy as np

from evaluator.aggregate import BOOTSTRAP_SEED
from evaluator.bulk import one_blas_thread
from evaluator.stats import bootstrap_draws, draw_counts, mcnemar_exact, percentile_interval

N_PAIR_BOOTSTRAP = 10_000
"""Resamples per pair."""
_CHUNK_CELLS = 1_000_000
"""Resamples are drawn in chunks of about this many indices (~12 MB of draws and counts whatever the cell size)."""
_PAIR_BATCH = 256
"""Pairs whose resampled differences are held at once (n_boot × 256 floats, 20 MB)."""
_DYADIC = 1024.0
"""Scores that are multiples of 1/1024 (0/1, halves of two option orders, quarters) sum exactly in float64 in any
order, so their resampled differences need no recomputation near zero."""
_NEAR_ZERO = 1e-9
"""A resampled mean difference this close to zero is recomputed from the drawn items' differences (its sign counts)."""


@dataclass(frozen=True)
class PairedTest:
    """Difference between two models on the same items, with its uncertainty."""

    diff: float
    """Mean score of A minus mean score of B, on 0-100."""
    ci_low: float
    """Lower end of the 95% paired-bootstrap interval of the difference (0-100 scale)."""
    ci_high: float
    p_value: float
    """Two-sided: exact McNemar for 0/1 scores, paired bootstrap otherwise."""
    method: str
    """"mcnemar-exact" or "paired-bootstrap"."""
    n: int
    """Items both models were scored on."""
    a_only: int = 0
    """Items only A got right (0/1 scores)."""
    b_only: int = 0
    """Items only B got right (0/1 scores)."""


Scores = Mapping[Hashable, Mapping[str, float]]
"""{system: {item_id: per-item score 0-1}}; an item a system has no score for is absent (or NaN). A key may be any
hashable, e.g. (metric, system), so the pairs of several metrics share their resampling."""


def _common(a: Mapping[str, float], b: Mapping[str, float]) -> tuple[str, ...]:
    """Items both systems scored, sorted by id (as text)."""
    keep = [k for k in a.keys() & b.keys() if a[k] == a[k] and b[k] == b[k]]
    return tuple(sorted(keep, key=str))


@functools.lru_cache(maxsize=2)
def _small_draws(seed: int, n_boot: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The whole (n_boot × n) index matrix and its counts when they fit one chunk, kept for the next refresh of a
    cell of that size (the live runner refreshes after every cell); read-only."""
    draws = bootstrap_draws(seed, n_boot, n)
    counts = draw_counts(draws)
    counts.flags.writeable = False
    return draws, counts


def _chunks(seed: int, n_boot: int, n: int) -> Iterator[tuple[int, np.ndarray, np.ndarray | None]]:
    """(first resample, draws, counts) chunk by chunk: the same stream as `bootstrap_draws`' one (n_boot × n) call."""
    chunk = max(1, _CHUNK_CELLS // n)
    if chunk >= n_boot:
        yield (0, *_small_draws(seed, n_boot, n))
        return
    rng = np.random.default_rng(seed)
    for start in range(0, n_boot, chunk):
        draws = rng.integers(0, n, size=(min(chunk, n_boot - start), n))
        yield start, draws, None


def _draw_rows(seed: int, n_boot: int, n: int, rows: np.ndarray) -> np.ndarray:
    """The index-matrix rows `rows` (sorted resample numbers), drawn again from the seed."""
    parts = []
    for start, draws, _ in _chunks(seed, n_boot, n):
        mine = rows[(rows >= start) & (rows < start + len(draws))]
        if mine.size:
            parts.append(draws[mine - start])
        if start + len(draws) > rows[-1]:
            break
    return np.concatenate(parts)


def _system_sums(values: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot × systems) each system's resampled score sum: multiplicity counts × scores, chunk by chunk."""
    sums = np.empty((n_boot, values.shape[1]))
    with one_blas_thread():  # small products: OpenBLAS's spinning helper threads cost more than they save
        for start, draws, counts in _chunks(seed, n_boot, values.shape[0]):
            sums[start:start + len(draws)] = (draw_counts(draws) if counts is None else counts) @ values
    return sums


def _differences(values: np.ndarray, sums: np.ndarray, cols: np.ndarray, fix: np.ndarray, n_boot: int,
                 seed: int) -> np.ndarray:
    """(n_boot × pairs) resampled mean differences of pairs `cols` (A and B columns), those of `fix` pairs within
    rounding of zero recomputed as the mean of the drawn items' differences (from the same draws)."""
    n = values.shape[0]
    diffs = (sums[:, cols[:, 0]] - sums[:, cols[:, 1]]) / n
    near = np.abs(diffs) <= _NEAR_ZERO
    near[:, ~fix] = False
    rows = np.flatnonzero(near.any(axis=1))
    if rows.size:
        draws = _draw_rows(seed, n_boot, n, rows)
        for k in np.flatnonzero(near.any(axis=0)):
            hit = near[rows, k]
            d = values[:, cols[k, 0]] - values[:, cols[k, 1]]
            diffs[rows[hit], k] = d[draws[hit]].mean(axis=1)
    return diffs


def _group_tests(matrix: np.ndarray, cols: np.ndarray, n_boot: int, seed: int) -> list[PairedTest]:
    """The test of each pair (column indices into `matrix`, items × systems) on all of matrix's rows; the
    resampled sums once per system, the differences in batches of pairs (memory stays n_boot × batch)."""
    sums = _system_sums(matrix, n_boot, seed)
    tests = []
    for first in range(0, len(cols), _PAIR_BATCH):
        batch = cols[first:first + _PAIR_BATCH]
        a, b = matrix[:, batch[:, 0]], matrix[:, batch[:, 1]]
        d = a - b
        binary = np.isin(a, (0.0, 1.0)).all(axis=0) & np.isin(b, (0.0, 1.0)).all(axis=0)
        exact = (np.mod(a * _DYADIC, 1) == 0).all(axis=0) & (np.mod(b * _DYADIC, 1) == 0).all(axis=0)
        boots = _differences(matrix, sums, batch, ~exact, n_boot, seed)
        interval = [percentile_interval(boots[:, k]) for k in range(len(batch))]
        below, above = (boots <= 0).mean(axis=0), (boots >= 0).mean(axis=0)
        a_only, b_only = ((a == 1) & (b == 0)).sum(axis=0), ((a == 0) & (b == 1)).sum(axis=0)
        for k in range(len(batch)):
            if binary[k]:
                p, method, counts = mcnemar_exact(int(a_only[k]), int(b_only[k])), "mcnemar-exact", \
                    (a_only[k], b_only[k])
            else:
                p, method, counts = min(1.0, 2 * min(float(below[k]), float(above[k]))), "paired-bootstrap", (0, 0)
            tests.append(PairedTest(100 * float(d[:, k].mean()), 100 * interval[k][0], 100 * interval[k][1], p, method,
                                    len(d), int(counts[0]), int(counts[1])))
    return tests


def pair_tests(scores: Scores, pairs: Sequence[tuple[Hashable, Hashable]], *, n_boot: int = N_PAIR_BOOTSTRAP,
               seed: int = BOOTSTRAP_SEED) -> dict[tuple[Hashable, Hashable], PairedTest | None]:
    """{(a, b): the paired test of a against b on the items both scored} for each pair, None when the two share no
    scored item."""
    groups: dict[tuple[str, ...], list[tuple[Hashable, Hashable]]] = defaultdict(list)
    for a, b in pairs:
        groups[_common(scores[a], scores[b])].append((a, b))
    out: dict[tuple[Hashable, Hashable], PairedTest | None] = {}
    for items, members in groups.items():
        if not items:
            out.update((pair, None) for pair in members)
            continue
        systems = list(dict.fromkeys(s for pair in members for s in pair))
        column = {s: i for i, s in enumerate(systems)}
        matrix = np.array([[float(scores[s][i]) for s in systems] for i in items], dtype=float)
        cols = np.array([[column[a], column[b]] for a, b in members])
        out.update(zip(members, _group_tests(matrix, cols, n_boot, seed)))
    return out


def reversed_test(test: PairedTest) -> PairedTest:
    """The same test read as B vs A (difference and interval negated, to rounding of the interpolated percentiles of
    the B − A resamples; p-value and method equal; discordant counts swapped)."""
    return PairedTest(-test.diff, -test.ci_high, -test.ci_low, test.p_value, test.method, test.n, test.b_only,
                      test.a_only)


def both_orders(tests: Mapping[tuple[Hashable, Hashable], PairedTest | None]
                ) -> dict[tuple[Hashable, Hashable], PairedTest | None]:
    """The tests of each pair in both orders ((a, b) and (b, a)), so a reader picks its row without arithmetic."""
    out = dict(tests)
    for (a, b), test in tests.items():
        out.setdefault((b, a), None if test is None else reversed_test(test))
    return out


def paired_test(a_scores: Sequence[float] | Mapping[str, float], b_scores: Sequence[float] | Mapping[str, float], *,
                n_boot: int = N_PAIR_BOOTSTRAP, seed: int = BOOTSTRAP_SEED) -> PairedTest:
    """Compare models A and B on the same items: per-item scores 0-1 as dicts by item id (the common items are
    compared) or as sequences in one item order (of equal length; compared in that order)."""
    if not isinstance(a_scores, Mapping) or not isinstance(b_scores, Mapping):
        if len(a_scores) != len(b_scores):
            raise ValueError(f"paired scores need the same items: {len(a_scores)} vs {len(b_scores)} scores")
        width = len(str(len(a_scores)))
        a_scores, b_scores = ({f"{k:0{width}d}": float(v) for k, v in enumerate(s)} for s in (a_scores, b_scores))
    test = pair_tests({"a": a_scores, "b": b_scores}, [("a", "b")], n_boot=n_boot, seed=seed)[("a", "b")]
    if test is None:
        raise ValueError("paired_test needs at least one common item")
    return test
