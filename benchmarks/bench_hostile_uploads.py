"""What hostile uploads cost to refuse: peak memory (VmHWM of a fresh subprocess) and CPU seconds of
`read_upload` for the shapes that used to blow up, at the default limits (200 MB a file, 100 errors, 150,000 rows).

    python benchmarks/bench_hostile_uploads.py [--keep DIR]

Prints one line per case. Files are written to a temporary folder (about 1 GB in total, removed afterwards).
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 1024 * 1024
SIZE = 200 * MB - 1024
sys.path.insert(0, str(ROOT))

from tests.integration.test_upload_memory import READER  # noqa: E402  the one reader script, shared with the test

def _zip(path: Path, members: dict[str, bytes], level: int = 6) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def cases(folder: Path) -> list[tuple[str, Path, str]]:
    newlines = folder / "newlines.jsonl"
    newlines.write_bytes(b"\n" * SIZE)
    oneline = folder / "oneline.jsonl"
    oneline.write_bytes(b'{"task": "' + b"x" * (SIZE - 20))
    bad = folder / "bad-lines.jsonl"
    bad.write_bytes(b'{"task": [1, 2, 3]}\r' * (SIZE // 20))
    flood = _zip(folder / "flood.zip", {f"run_1/m{i}/m_sentiment_id.jsonl": b"".join(
        b'{"id": [%d], "responses": 5, "cleaned_responses": "%s"}\n' % (n, os.urandom(4).hex().encode())
        for n in range(300)) for i in range(1000)}, level=9)
    blank = os.urandom(SIZE // 4).translate(bytes(b" \t\r\n"[i % 4] for i in range(256)))
    spaces = _zip(folder / "whitespace-member.zip", {"run_1/p.jsonl": blank}, level=1)
    rows = io.BytesIO()
    for run in range(1, 9):
        for i in range(18750):
            rows.write(json.dumps({"task": "sentiment", "lang": "id", "item_id": f"s{i}", "prompt_lang": "en",
                                   "prediction": "Jawaban: Positif", "run": run}).encode() + b"\n")
    valid = folder / "valid-150k.jsonl"
    valid.write_bytes(rows.getvalue())
    return [("200 MB of newlines, from a path", newlines, "path"),
            ("200 MB of newlines, already in memory (the page)", newlines, "bytes"),
            ("one 200 MB line", oneline, "path"),
            ("10M bad lines, CR line ends", bad, "path"),
            (f"{flood.stat().st_size / MB:.1f} MB zip, 1,000 members of bad rows", flood, "path"),
            ("zip member of 200 MB random whitespace", spaces, "path"),
            ("150,000 valid native rows (the row cap)", valid, "path")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="write the files here and keep them")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for label, path, how in cases(folder):
            out = subprocess.run([sys.executable, "-c", READER, str(path), how], cwd=ROOT, capture_output=True,
                                 text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            if out.returncode:
                print(f"{label:52s} failed: {out.stderr.strip()[-300:]}")
                continue
            rss, preds, errors, cpu, last = out.stdout.strip().split(" ", 4)
            print(f"{label:52s} peak {int(rss):4d} MB  cpu {float(cpu):5.1f} s  {int(preds):7d} predictions  "
                  f"{int(errors):3d} errors  last: {last[:90]}")


if __name__ == "__main__":
    main()
