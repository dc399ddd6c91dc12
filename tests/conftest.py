"""Shared test set-up: hermetic data, the `needs_samples` skip, and a fresh store.

- Every test process reads the fixture data directory written for Tanaw (`tests/fixture_data.py`) through
  `TANAW_DATA_DIR`, so core tests (and the subprocesses they start) never depend on what sits beside the clone
  or in `~/.tanaw/data`.
- Tests that check fidelity against the real public samples are marked `needs_samples` (or take the
  `shared_data` fixture, which implies the marker): they read the samples as their data folder, and without them
  they skip with one line saying so.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import fixture_data, samples

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = samples.SAMPLES


def pytest_configure(config):
    os.environ["TANAW_DATA_DIR"] = str(fixture_data.data_dir())


SLOW_GROUPS = {
    "browser": ("test_browser_leaderboard", "test_browser_lindsea_click", "test_browser_pages", "test_hub_app",
                "test_render_safety", "test_spaces_start", "test_upload_browser"),
    "integration": ("test_llamacpp", "test_upload_concurrency", "test_upload_memory", "test_run_resume",
                    "test_layering", "test_rollup_everywhere"),
}
"""Slow groups by test module (files stay where they are): `-m "not browser and not integration"` is the quick run."""


def _mark_slow_groups(items) -> None:
    for item in items:
        name = getattr(item.module, "__name__", "").rsplit(".", 1)[-1] if hasattr(item, "module") else ""
        for group, modules in SLOW_GROUPS.items():
            if name in modules:
                item.add_marker(getattr(pytest.mark, group))


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
