#!/usr/bin/env bash
# The test command (README and .ci/run): install what the tests need, then run the whole suite.
#   - Python test requirements (pinned) into the current interpreter (use a venv if you like);
#   - Debian's Chromium with Thai and Tamil fonts for the real-browser tests (Playwright drives it, no download);
#   - the optional llama.cpp pieces for the real-local-model integration test (source build, minutes, cached).
# The suite includes the package rules (import-linter, .importlinter) and ruff (ruff.toml): tests/integration/test_layering.py.
# Set TANAW_SKIP_SYSTEM=1 to skip the apt and llama.cpp steps (those tests then skip with a reason).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"

"$PY" -m pip install -q -r requirements-dev.txt

if [ "${TANAW_SKIP_SYSTEM:-0}" != "1" ]; then
    need=()
    [ -x /usr/bin/chromium ] || need+=(chromium)
    dpkg -s fonts-thai-tlwg >/dev/null 2>&1 || need+=(fonts-thai-tlwg)
    dpkg -s fonts-lohit-taml >/dev/null 2>&1 || need+=(fonts-lohit-taml)
    command -v cmake >/dev/null || need+=(cmake)
    command -v g++ >/dev/null || need+=(g++)
    if [ ${#need[@]} -gt 0 ]; then
        if [ "$(id -u)" = 0 ]; then
            apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
        else
            echo "scripts/test.sh: not root, cannot apt-get install ${need[*]}; those tests will skip" >&2
        fi
    fi
    bash scripts/install_llama.sh "$PY" || echo "scripts/test.sh: llama.cpp extra not installed; its test skips" >&2
fi

# Two worker processes (pytest-xdist): on the 2-core CI machine the serial suite took 9-12 minutes, mostly
# waiting on browsers, servers and subprocesses; TANAW_TEST_WORKERS=0 runs it in this process.
exec "$PY" -m pytest -q -n "${TANAW_TEST_WORKERS:-2}" "$@"
