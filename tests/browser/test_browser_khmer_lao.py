"""Khmer and Lao text in the app, in headless Chromium: the compare view of a Khmer and a Lao translation cell shows
the items and the models' translations, written after SEA-HELM's Khmer and Lao output tags (`ការបរប្រែ៖`,
`ຄຳແປ:`), with Khmer and Lao fonts installed (scripts/test.sh installs fonts-noto-core). tests/_screenshots/compare_khmer.png
and compare_lao.png are kept to be looked at (glyphs, not empty boxes).

The items are written here for the test (SEA-HELM's Khmer and Lao items are only on the Hugging Face Hub, see the
sources table): short greetings with their English sources."""
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
ITEMS = {
    "km": [{"id": "km-test-0", "source": "Hello, world.", "target": "សួស្តី ពិភពលោក។"},
           {"id": "km-test-1", "source": "Thank you very much.", "target": "អរគុណច្រើន។"}],
    "lo": [{"id": "lo-test-0", "source": "Hello, world.", "target": "ສະບາຍດີ ໂລກ."},
           {"id": "lo-test-1", "source": "Thank you very much.", "target": "ຂອບໃຈຫຼາຍໆ."}],
}
ANSWERS = {
    "km": {"Model-A": ["ការបរប្រែ៖ សួស្តី ពិភពលោក។", "ការបរប្រែ៖ អរគុណ។"],
           "Model-B": ["ការបរប្រែ៖ សួស្តី។", "ការបរប្រែ៖ អរគុណច្រើន។"]},
    "lo": {"Model-A": ["ຄຳແປ: ສະບາຍດີ ໂລກ.", "ຄຳແປ: ຂອບໃຈ."],
           "Model-B": ["ຄຳແປ: ສະບາຍດີ.", "ຄຳແປ: ຂອບໃຈຫຼາຍໆ."]},
}



@pytest.mark.skipif(not (fonts_for("km") and fonts_for("lo")),
                    reason="no Khmer or Lao font installed (fonts-noto-core, scripts/test.sh)")
def test_khmer_and_lao_items_and_answers_render(tmp_path):
    data = tmp_path / "data"
    (data / "bhasa" / "mt").mkdir(parents=True)
    for lang, items in ITEMS.items():
        (data / "bhasa" / "mt" / f"{lang}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    db = tmp_path / "tanaw.duckdb"
    env = {**os.environ, "TANAW_DATA_DIR": str(data), "TANAW_DB": str(db), "HOME": str(tmp_path)}
    env.pop("TANAW_LANGUAGES_DIR", None)
    for lang, by_model in ANSWERS.items():
        for model, outs in by_model.items():
            path = tmp_path / f"{model}-{lang}.jsonl"
            path.write_text("".join(json.dumps({"task": "translation-en-xx", "lang": lang, "item_id": i["id"],
                                                "prompt_lang": "native", "prediction": out}, ensure_ascii=False)
                                    + "\n" for i, out in zip(ITEMS[lang], outs)), encoding="utf-8")
            done = subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", model],
                                  cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-2000:]

    bodies = {}
    with serve_app(db, env={"TANAW_DATA_DIR": str(data), "HOME": str(tmp_path)}) as url, \
            chromium_page(1280, 1400) as page:
        for lang, name in (("km", "khmer"), ("lo", "lao")):
            params = {"task": "translation-en-xx", "lang": lang, "sys": ["Model-A|native", "Model-B|native"]}
            page.goto(f"{url}/compare?{urlencode(params, doseq=True)}")
            wait_for_app(page, 120000)
            page.wait_for_function("t => document.body.innerText.includes(t)", arg=ANSWERS[lang]["Model-B"][0],
                                   timeout=60000)
            page.get_by_text(ANSWERS[lang]["Model-B"][0]).first.scroll_into_view_if_needed()
            screenshot(page, f"compare_{name}")
            bodies[lang] = page.inner_text("body")
    assert "ការបរប្រែ៖ សួស្តី។" in bodies["km"] and "ຄຳແປ: ສະບາຍດີ." in bodies["lo"]
