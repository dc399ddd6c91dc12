"""Shared test set-up: hermetic data, the `needs_samples` skip, and a fresh store.

- Every test process reads the fixture data directory written for Tanaw (`tests/helpers/fixture_data.py`) through
  `TANAW_DATA_DIR`, so core tests (and the subprocesses they start) never depend on what sits beside the clone
  or in `~/.tanaw/data`.
- Tests that check fidelity against the real public samples are marked `needs_samples` (or take the
  `shared_data` fixture, which implies the marker): they read the samples as their data folder, and without them
  they skip with one line saying so.
- The run ends with its skips grouped by what they needed, and CI fails when the browser or llama.cpp tests
  skipped (`tests/helpers/skip_summary.py`).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import fixture_data, samples
from tests.helpers.skip_summary import SkipSummary

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = samples.SAMPLES


def pytest_configure(config):
    os.environ["TANAW_DATA_DIR"] = str(fixture_data.data_dir())
    if not hasattr(config, "workerinput"):  # xdist's workers send their reports to this (controlling) process
        config.pluginmanager.register(SkipSummary(), "tanaw-skip-summary")


GROUPS = ("unit", "store", "app", "browser", "integration")
"""Test folders by what they exercise: `unit` (pure evaluator code), `store` (DuckDB writes and queries through the
wiring), `app` (pages through Streamlit's AppTest), `browser` (headless Chromium against a served app) and
`integration` (subprocesses, servers, a real local model, whole-repo checks). Helpers live in `tests/helpers/`."""
SLOW_GROUPS = ("browser", "integration")
"""Folders whose tests carry a marker of the same name: `-m "not browser and not integration"` is the quick run."""


def _mark_slow_groups(items) -> None:
    for item in items:
        parts = Path(str(item.fspath)).relative_to(REPO).parts
        if len(parts) > 2 and parts[0] == "tests" and parts[1] in SLOW_GROUPS:
            item.add_marker(getattr(pytest.mark, parts[1]))


def pytest_collection_modifyitems(config, items):
    _mark_slow_groups(items)
    if samples.present():
        return
    skip = pytest.mark.skip(reason=samples.missing_reason())
    for item in items:
        if item.get_closest_marker("needs_samples") or "shared_data" in getattr(item, "fixturenames", ()):
            item.add_marker(skip)


def _reads_samples(request) -> bool:
    node = request.node
    return bool(node.get_closest_marker("needs_samples")) or "shared_data" in getattr(request, "fixturenames", ())


@pytest.fixture(scope="module", autouse=True)
def _samples_as_data_for_marked_modules(request):
    """A module marked `needs_samples` reads the samples as its data folder (module fixtures included)."""
    if not _reads_samples(request):
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TANAW_DATA_DIR", str(samples.SAMPLES))
        yield


@pytest.fixture(autouse=True)
def _samples_as_data_for_marked_tests(request, monkeypatch):
    """A single test marked `needs_samples` (or taking `shared_data`) reads the samples as its data folder."""
    if _reads_samples(request):
        monkeypatch.setenv("TANAW_DATA_DIR", str(samples.SAMPLES))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The public samples folder (tests taking it are skipped when it is absent)."""
    return samples.SAMPLES


@pytest.fixture()
def mem_store():
    """A fresh in-memory store with the current schema."""
    from store.db import connect

    con = connect(":memory:")
    yield con
    con.close()
