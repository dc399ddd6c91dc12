#!/usr/bin/env bash
# The test command (README and .ci/run): install what the tests need, then run the whole suite.
#   - Python test requirements (pinned) into the current interpreter (use a venv if you like);
#   - Debian's Chromium with Thai, Tamil, Burmese, Khmer and Lao fonts for the real-browser tests (Playwright drives it),
#     and nginx for the tests that serve the app as the Space image does (deploy/serve.sh);
#   - the optional llama.cpp pieces for the real-local-model integration test (source build, minutes, cached).
# The suite includes the package rules (import-linter, .importlinter) and ruff (ruff.toml): tests/integration/test_layering.py.
# Set TANAW_SKIP_SYSTEM=1 to skip the apt and llama.cpp steps (those tests then skip with a reason).
# The run ends with the skipped tests grouped by what they needed (tests/helpers/skip_summary.py) and what went wrong
# in the installs below (TANAW_INSTALL_NOTES). Under CI=true a skipped browser or llama.cpp group fails the run
# (its install failed), unless TANAW_SKIP_SYSTEM=1; tests skipped for want of ../shared samples never do.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

"$PY" -m pip install -q -r requirements-dev.txt

notes=()
note() { notes+=("$1"); echo "scripts/test.sh: $1" >&2; }
if [ "${TANAW_SKIP_SYSTEM:-0}" != "1" ]; then
    need=()
    [ -x /usr/bin/chromium ] || need+=(chromium)
    dpkg -s fonts-thai-tlwg >/dev/null 2>&1 || need+=(fonts-thai-tlwg)
    dpkg -s fonts-lohit-taml >/dev/null 2>&1 || need+=(fonts-lohit-taml)
    dpkg -s fonts-noto-core >/dev/null 2>&1 || need+=(fonts-noto-core)  # Myanmar (Burmese), Khmer and Lao
    [ -x /usr/sbin/nginx ] || need+=(nginx-light)  # the image's proxy in front of the Streamlit processes
    command -v cmake >/dev/null || need+=(cmake)
    command -v g++ >/dev/null || need+=(g++)
    if [ ${#need[@]} -gt 0 ]; then
        if [ "$(id -u)" != 0 ]; then
            note "not root, cannot apt-get install ${need[*]}; the tests needing them skip"
        elif ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"; }; then
            note "apt-get install ${need[*]} failed (its output above); the tests needing them skip"
        fi
    fi
    bash scripts/install_llama.sh "$PY" || note "scripts/install_llama.sh exited $? (its output above); the llama.cpp tests skip"
fi
TANAW_INSTALL_NOTES="$(printf '%s\n' "${notes[@]+"${notes[@]}"}")"
export TANAW_INSTALL_NOTES

# Two worker processes (pytest-xdist): on the 2-core CI machine the serial suite took 9-12 minutes, mostly
# waiting on browsers, servers and subprocesses; TANAW_TEST_WORKERS=0 runs it in this process.
exec "$PY" -m pytest -q -n "${TANAW_TEST_WORKERS:-2}" "$@"
