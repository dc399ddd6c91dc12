"""Burmese text in the app, in headless Chromium: the compare view of a Burmese sentiment cell shows the items and
the models' Burmese answers, with a Myanmar font installed (scripts/test.sh installs fonts-noto-core);
tests/_screenshots/compare_burmese.png is kept to be looked at (glyphs, not empty boxes).

The two items are written here for the test (no real Burmese items can be fetched, see the sources table); their
words are SEA-HELM's Burmese label words, so the page shows the script at body size and in the answers."""
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
ITEMS = [{"id": "my-test-0", "text": "ဒီဝါကျ အပြုသဘော ဖြစ်ပါတယ်။", "label_en": "positive"},
         {"id": "my-test-1", "text": "ဒီဝါကျ အပျက်သဘော ဖြစ်ပါတယ်။", "label_en": "negative"}]



@pytest.mark.skipif(not fonts_for("my"), reason="no Myanmar font installed (fonts-noto-core, scripts/test.sh)")
def test_burmese_items_and_answers_render(tmp_path):
    data = tmp_path / "data"
    (data / "bhasa" / "sentiment").mkdir(parents=True)
    (data / "bhasa" / "sentiment" / "my.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ITEMS), encoding="utf-8")
    db = tmp_path / "tanaw.duckdb"
    env = {**os.environ, "TANAW_DATA_DIR": str(data), "TANAW_DB": str(db), "HOME": str(tmp_path)}
    env.pop("TANAW_LANGUAGES_DIR", None)
    answers = {"Model-A": ["အဖြေ- အပြုသဘော", "အဖြေ- အပျက်သဘော"], "Model-B": ["အဖြေ- ကြားနေ", "အဖြေ- အပျက်သဘော"]}
    for model, outs in answers.items():
        path = tmp_path / f"{model}.jsonl"
        path.write_text("".join(json.dumps({"task": "sentiment", "lang": "my", "item_id": i["id"],
                                            "prompt_lang": "native", "prediction": out}, ensure_ascii=False) + "\n"
                                for i, out in zip(ITEMS, outs)), encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", model], cwd=REPO,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]

    params = {"task": "sentiment", "lang": "my", "sys": ["Model-A|native", "Model-B|native"]}
    with serve_app(db, env={"TANAW_DATA_DIR": str(data), "HOME": str(tmp_path)}) as url, \
            chromium_page(1280, 1400) as page:
        page.goto(f"{url}/compare?{urlencode(params, doseq=True)}")
        wait_for_app(page, 120000)
        page.wait_for_function("t => document.body.innerText.includes(t)", arg="အဖြေ- ကြားနေ", timeout=60000)
        # the chosen item's text is drawn after the answers' word diff: wait for it too
        page.wait_for_function("ts => ts.some(t => document.body.innerText.includes(t))",
                               arg=[i["text"] for i in ITEMS], timeout=60000)
        screenshot(page, "compare_burmese")
        body = page.inner_text("body")
    assert "ဒီဝါကျ အပြုသဘော ဖြစ်ပါတယ်။" in body or "ဒီဝါကျ အပျက်သဘော ဖြစ်ပါတယ်။" in body
