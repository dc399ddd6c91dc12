"""The memory bound of reading an upload (docs/security.md, "Uploads and rendering"): peak RSS ≤ 300 MB for any file
within the default limits (200 MB, 150,000 rows), measured in a fresh subprocess per case. Files are written to a
temporary folder; each case is a shape that used to blow memory up (a 200 MB file of newlines took 2 GB)."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MB = 1024 * 1024
BOUND_MB = 300
SIZE = 200 * MB - 1024  # just under the default upload limit

READER = r"""
import re, sys, time
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.spec import Item

def items(task, lang, data_dir=None):
    return [Item(task, lang, f"s{i}", {"text": f"t{i}"}, "positive") for i in range(20000)]

path, how = sys.argv[1], sys.argv[2]
source = open(path, "rb").read() if how == "bytes" else path
t = time.process_time()
up = read_upload(source, path.rsplit("/", 1)[-1], index=ItemIndex(loader=items))
hwm = re.search(r"VmHWM:\s+(\d+) kB", open("/proc/self/status").read()).group(1)  # ru_maxrss survives exec
print(int(hwm) // 1024, len(up.predictions), len(up.errors),
      round(time.process_time() - t, 1), up.errors[-1] if up.errors else "-")
"""


def _peak(path: Path, how: str = "path") -> tuple[int, int, int, str]:
    if not Path("/proc/self/status").exists():
        pytest.skip("peak RSS is read from /proc/self/status (Linux)")
    out = subprocess.run([sys.executable, "-c", READER, str(path), how], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-2000:]
    rss, preds, errors, cpu, last = out.stdout.strip().split(" ", 4)
    print(path.name, how, f"peak RSS {rss} MB, {cpu} s CPU, {preds} predictions, {errors} errors: {last}")
    return int(rss), int(preds), int(errors), last


def _newlines(tmp_path: Path) -> Path:
    path = tmp_path / "newlines.jsonl"
    path.write_bytes(b"\n" * SIZE)
    return path


def test_a_file_of_newlines_at_the_size_limit(tmp_path):
    path = _newlines(tmp_path)
    rss, preds, errors, last = _peak(path)
    assert rss <= BOUND_MB and preds == 0 and last.endswith("no predictions in file")
    rss, *_ = _peak(path, "bytes")  # the page's case: the upload is in memory already (counted here)
    assert rss <= BOUND_MB


def test_one_line_of_200_mb_and_a_file_of_bad_lines(tmp_path):
    path = tmp_path / "oneline.jsonl"
    with open(path, "wb") as fh:
        fh.write(b'{"task": "')
        fh.write(b"x" * (SIZE - 20))
    rss, _, errors, last = _peak(path)
    assert rss <= BOUND_MB and errors == 1 and "line is" in last and "the limit is" in last
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"task": [' + b"1," * 20 + b"1]}\r" * (SIZE // 50))
    rss, _, errors, last = _peak(bad)
    assert rss <= BOUND_MB and errors == 101 and "more line(s) from here on not checked" in last


def test_a_zip_member_of_whitespace_and_valid_rows_at_the_row_cap(tmp_path):
    blank = os.urandom(SIZE // 4).translate(bytes(b" \t\r\n"[i % 4] for i in range(256)))
    path = tmp_path / "blank.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("run_1/p.jsonl", b'{"task": "sentiment"' + blank)
    rss, _, errors, _ = _peak(path)
    assert rss <= BOUND_MB and errors >= 1
    rows = io.BytesIO()
    for run in range(1, 9):
        for i in range(18750):
            rows.write(json.dumps({"task": "sentiment", "lang": "id", "item_id": f"s{i}", "prompt_lang": "en",
                                   "prediction": "Jawaban: Positif", "run": run}).encode() + b"\n")
    valid = tmp_path / "valid.jsonl"
    valid.write_bytes(rows.getvalue())
    rss, preds, errors, last = _peak(valid)
    assert rss <= BOUND_MB and preds == 150_000 and errors == 0, last
