"""A Burmese Belebele cell's items in headless Chromium: the compare view of two models on four real Burmese Belebele
items (the first lines of SEA-HELM's file, tests/fixtures/seahelm_mcq) shows the passage, the question and the
options in Myanmar script with a Myanmar font installed (scripts/test.sh installs fonts-noto-core);
tests/_screenshots/compare_belebele_burmese.png is kept to be looked at (glyphs, not empty boxes)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.helpers.browser import chromium_available, chromium_page, screenshot, serve_app, wait_for_app
from tests.helpers.fonts import fonts_for

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "seahelm_mcq" / "my_belebele.jsonl"



@pytest.mark.skipif(not fonts_for("my"), reason="no Myanmar font installed (fonts-noto-core, scripts/test.sh)")
def test_burmese_belebele_items_render(tmp_path):
    data = tmp_path / "data"
    (data / "seahelm" / "belebele").mkdir(parents=True)
    (data / "seahelm" / "belebele" / "my.jsonl").write_bytes(FIXTURE.read_bytes())
    rows = [json.loads(line) for line in FIXTURE.read_text("utf-8").splitlines()]
    db = tmp_path / "tanaw.duckdb"
    env = {**os.environ, "TANAW_DATA_DIR": str(data), "TANAW_DB": str(db), "HOME": str(tmp_path)}
    env.pop("TANAW_LANGUAGES_DIR", None)
    answers = {"Model-A": ["Answer: A", "Answer: A", "Answer: B", "Answer: B"],
               "Model-B": ["Answer: C", "Answer: A", "Answer: D", "Answer: B"]}
    for model, outs in answers.items():
        path = tmp_path / f"{model}.jsonl"
        path.write_text("".join(json.dumps({"task": "belebele", "lang": "my", "item_id": str(r["id"]),
                                            "prompt_lang": "en", "prediction": out}) + "\n"
                                for r, out in zip(rows, outs)), encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", model], cwd=REPO,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]

    questions = [r["prompts"][0]["question"] for r in rows]
    params = {"task": "belebele", "lang": "my", "sys": ["Model-A|en", "Model-B|en"]}
    with serve_app(db, env={"TANAW_DATA_DIR": str(data), "HOME": str(tmp_path)}) as url, \
            chromium_page(1280, 1600) as page:
        page.goto(f"{url}/compare?{urlencode(params, doseq=True)}")
        wait_for_app(page, 120000)
        page.wait_for_function("ts => ts.some(t => document.body.innerText.includes(t))", arg=questions,
                               timeout=60000)
        screenshot(page, "compare_belebele_burmese")
        body = page.inner_text("body")
    shown = [r for r in rows if r["prompts"][0]["question"] in body]
    assert shown, "no Burmese Belebele question on the page"
    # the shown item's passage is there too, in Myanmar script
    assert any(r["prompts"][0]["text"][:40] in body for r in shown)
