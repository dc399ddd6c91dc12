"""Every figure the pages read (tables and views: aggregates, roll-ups, drill-downs, run counts, usage, levels,
paired tests, the Model page's field, parse failures and ceilings, own-score means, normalised reported rows, human
figures) is the same, row for row and bit for bit, as the code stored before its derived figures became views: on
the demo store a first start builds and on the store built from the public samples (fingerprints in
tests/data/figures_golden.json, written by `python -m tests.helpers.figure_tables` with that code)."""
from __future__ import annotations

import json

import pytest

from tests.helpers.figure_tables import FIGURES, GOLDEN, demo_fingerprints, samples_fingerprints


def _check(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want) == sorted(FIGURES)
    assert {t: got[t] for t in FIGURES if got[t] != want[t]} == {}


def test_the_demo_stores_figures_are_unchanged(tmp_path):
    _check(demo_fingerprints(tmp_path / "demo.duckdb"), json.loads(GOLDEN.read_text())["demo"])


@pytest.mark.needs_samples
def test_the_sample_stores_figures_are_unchanged(tmp_path, shared_data):
    golden = json.loads(GOLDEN.read_text())["samples"]
    got = samples_fingerprints(shared_data, tmp_path / "store.duckdb")
    _check(got, golden)
    assert all(golden[t][0] for t in ("aggregates", "rollups", "pair_tests", "parse_failures", "drill_levels"))
