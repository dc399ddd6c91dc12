"""What did not run, and whether CI may pass without it: a pytest plugin (registered in tests/conftest.py).

Every skipped test or module is grouped by what it needed, and the run ends with one section listing each group,
how many tests or modules it skipped and why. Two groups need system installs that scripts/test.sh makes: the
browser tests (Debian's Chromium, apt) and the llama.cpp tests (scripts/install_llama.sh). Under CI (`CI=true`) a
skip in either of them fails the run: their install failed, and a green run would hide it. `TANAW_SKIP_SYSTEM=1`
is the documented way to leave those installs out; the run then passes with the groups listed as skipped on purpose.
Tests skipped because the public samples are absent (a user's clone without ../shared) never fail it.
scripts/test.sh passes what went wrong in its installs in `TANAW_INSTALL_NOTES` (one line each), printed here too.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass

import pytest

from tests.helpers import samples


@dataclass(frozen=True)
class SystemGroup:
    """Tests that skip when a system install is missing: those under `path` whose skip reason mentions `needs`."""
    name: str
    path: str
    needs: str


SYSTEM_GROUPS = (SystemGroup("browser (Chromium)", "tests/browser/", "chromium"),
                 SystemGroup("llama.cpp", "tests/integration/test_llamacpp", "install_llama.sh"))
SAMPLES_GROUP = "public samples"
TRUE = {"1", "true", "yes"}


def on_ci() -> bool:
    """The run is CI's (`CI` set to true, as CI services and .ci/run set it)."""
    return os.environ.get("CI", "").strip().lower() in TRUE


def system_skipped_on_purpose() -> bool:
    """The user left the system installs out (`TANAW_SKIP_SYSTEM=1`, scripts/test.sh)."""
    return os.environ.get("TANAW_SKIP_SYSTEM", "").strip().lower() in TRUE


def skip_reason(report) -> str:
    """The reason a skipped report carries (pytest's "Skipped: " prefix removed)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def group_of(nodeid: str, reason: str) -> str:
    """The group a skip belongs to: a system group, the samples, else the test folder (`tests/<folder>`)."""
    if reason == samples.missing_reason():
        return SAMPLES_GROUP
    for group in SYSTEM_GROUPS:
        if nodeid.startswith(group.path) and group.needs in reason.lower():
            return group.name
    parts = nodeid.split("::")[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else parts[0]


class SkipSummary:
    """Collects the skips of a run (also those xdist's workers report), prints them by group at the end and fails
    a CI run in which a system group skipped."""

    def __init__(self) -> None:
        self.skips: Counter[tuple[str, str, str]] = Counter()  # (group, reason, "test" | "module") -> count

    def _add(self, report, kind: str) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = skip_reason(report)
            self.skips[group_of(report.nodeid, reason), reason, kind] += 1

    def pytest_runtest_logreport(self, report) -> None:
        self._add(report, "test")

    def pytest_collectreport(self, report) -> None:
        self._add(report, "module")

    def missing_system_groups(self) -> list[str]:
        """System groups that skipped (in SYSTEM_GROUPS order)."""
        skipped = {group for group, _, _ in self.skips}
        return [g.name for g in SYSTEM_GROUPS if g.name in skipped]

    def ci_failure(self) -> str | None:
        """Why this run must fail on CI, or None."""
        missing = self.missing_system_groups()
        if not missing or not on_ci() or system_skipped_on_purpose():
            return None
        return (f"CI=true and {', '.join(missing)} did not run: their system install failed (scripts/test.sh; see "
                "the reasons above). Fix the install, or set TANAW_SKIP_SYSTEM=1 to leave system installs out on "
                "purpose.")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session) -> None:
        if self.ci_failure() and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.skips:
            return
        tr = terminalreporter
        tr.section("skipped, by group")
        system = {g.name for g in SYSTEM_GROUPS}
        for (group, reason, kind), n in sorted(self.skips.items()):
            tag = " (TANAW_SKIP_SYSTEM=1)" if group in system and system_skipped_on_purpose() else ""
            tr.write_line(f"{group}{tag}: {n} {kind}{'s' if n != 1 else ''} skipped: {reason}")
        notes = [line for line in os.environ.get("TANAW_INSTALL_NOTES", "").splitlines() if line.strip()]
        for line in notes:
            tr.write_line(f"install: {line}")
        failure = self.ci_failure()
        if failure:
            tr.write_line(f"FAILED: {failure}", red=True, bold=True)
