"""The skip summary (tests/helpers/skip_summary.py) on small pytest runs (pytester): skips listed by group with their
reasons; under CI=true a skipped browser or llama.cpp group fails the run unless TANAW_SKIP_SYSTEM=1, and a skip
for want of the public samples never does."""
from __future__ import annotations

import pytest

from tests.helpers import samples

pytest_plugins = ["pytester"]

CHROMIUM = "Debian chromium / playwright not installed"
LLAMA = "llama_cpp is not installed (optional extra: scripts/install_llama.sh)"
CI_FAILS = "FAILED: CI=true and {} did not run: their system install failed*"


@pytest.fixture()
def suite(pytester, monkeypatch):
    """A suite laid out as this repo's: a passing unit test, unit tests skipped for the samples and for a missing
    tool, two browser tests skipped for Chromium and a llama.cpp module skipped whole."""
    for name in ("CI", "TANAW_SKIP_SYSTEM", "TANAW_INSTALL_NOTES"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeconftest("""
        from tests.helpers.skip_summary import SkipSummary

        def pytest_configure(config):
            config.pluginmanager.register(SkipSummary(), "tanaw-skip-summary")
    """)
    pytester.makepyfile(**{
        "tests/unit/test_u.py": f"""
            import pytest

            def test_ok():
                pass

            @pytest.mark.skip(reason={samples.missing_reason()!r})
            def test_needs_samples():
                pass

            @pytest.mark.skip(reason="hadolint not installed")
            def test_needs_hadolint():
                pass
        """,
        "tests/browser/test_b.py": f"""
            import pytest

            pytestmark = pytest.mark.skipif(True, reason={CHROMIUM!r})

            def test_one():
                pass

            def test_two():
                pass
        """,
        "tests/integration/test_llamacpp_x.py": f"""
            import pytest

            pytest.skip({LLAMA!r}, allow_module_level=True)
        """})
    return pytester


def _run(pytester, *args):
    return pytester.runpytest("-p", "no:xdist", "-p", "no:cacheprovider", *args)


def test_the_summary_groups_skips_and_a_run_outside_ci_passes(suite):
    result = _run(suite)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=5)
    result.stdout.fnmatch_lines(["*= skipped, by group =*",
                                 f"browser (Chromium): 2 tests skipped: {CHROMIUM}",
                                 f"llama.cpp: 1 module skipped: {LLAMA}",
                                 f"public samples: 1 test skipped: {samples.missing_reason()}",
                                 "unit: 1 test skipped: hadolint not installed"])
    result.stdout.no_fnmatch_line("FAILED: *")


def test_ci_fails_when_the_browser_and_llama_groups_skipped(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TANAW_INSTALL_NOTES", "scripts/install_llama.sh exited 1 (its output above)\n")
    result = _run(suite)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, skipped=5)
    result.stdout.fnmatch_lines(["install: scripts/install_llama.sh exited 1 (its output above)",
                                 CI_FAILS.format("browser (Chromium), llama.cpp")])


def test_ci_fails_for_one_system_group_alone(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = _run(suite, "tests/browser", "tests/unit")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([CI_FAILS.format("browser (Chromium)")])


def test_ci_passes_with_system_installs_left_out_on_purpose(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TANAW_SKIP_SYSTEM", "1")
    result = _run(suite)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"browser (Chromium) (TANAW_SKIP_SYSTEM=1): 2 tests skipped: {CHROMIUM}",
                                 f"llama.cpp (TANAW_SKIP_SYSTEM=1): 1 module skipped: {LLAMA}"])
    result.stdout.no_fnmatch_line("FAILED: *")


def test_ci_passes_when_only_the_samples_and_other_tools_are_missing(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = _run(suite, "tests/unit")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.no_fnmatch_line("FAILED: *")


def test_a_failing_test_still_fails_the_run_with_its_own_status(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    suite.makepyfile(**{"tests/unit/test_bad.py": "def test_bad():\n    assert 1 == 2\n"})
    result = _run(suite)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=1, skipped=5)
