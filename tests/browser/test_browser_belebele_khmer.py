"""A Burmese Belebele cell's items and a Khmer cell's items in headless Chromium, reached the way a reader reaches
them: the Burmese "By language" view lists Belebele with its leader, score and runner-up (hand-computed balanced
accuracy), and its "leader's wrong items" link opens Compare on the one Belebele item the leader got wrong, where
the passage, question and options are Burmese text and the model's Burmese answer letter (ဂ, read as C) is shown;
the compare view of a Khmer translation cell shows the items and the models' Khmer translations. Myanmar and Khmer
fonts installed (scripts/test.sh installs fonts-noto-core); tests/_screenshots/language-burmese-belebele.png,
compare-belebele-burmese-wrong.png and compare-khmer-items.png are kept to be looked at (glyphs, not empty boxes).

Belebele items: the four real Burmese items of tests/fixtures/seahelm_mcq (the first lines of SEA-HELM's file, gold
A, A, B, B). Khmer items: written here (SEA-HELM's Khmer items are only on the Hugging Face Hub, see the sources
table), short sentences with their English sources."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.helpers.browser import (chromium_available, chromium_page, grid_problems, rendered_grids, screenshot,
                                   serve_app, wait_for_app)
from tests.helpers.sea_language_store import ingest, native_predictions
from tests.helpers.fonts import fonts_for

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")

REPO = Path(__file__).resolve().parents[2]
BELEBELE = REPO / "tests" / "fixtures" / "seahelm_mcq" / "my_belebele.jsonl"
LETTERS = "ကခဂဃ"  # my.yaml option_letters: A, B, C, D
PICKS = {"sea-alpha": "AABC", "sea-beta": "CADB"}
"""Each model's Belebele letters for the four items (gold AABB). Balanced accuracy over the gold classes A and B:
alpha A 2/2, B 1/2 -> 75.0; beta A 1/2, B 1/2 -> 50.0; alpha leads by 25.0."""
KHMER = [("Good night.", "រាត្រីសួស្តី។"), ("I like to read books.", "ខ្ញុំចូលចិត្តអានសៀវភៅ។"),
         ("Where is the market?", "ផ្សារនៅឯណា?")]
KHMER_OUT = {"sea-alpha": ["រាត្រីសួស្តី។", "ខ្ញុំចូលចិត្តអាន។", "ផ្សារនៅឯណា?"],
             "sea-beta": ["សួស្តី។", "ខ្ញុំចូលចិត្តសៀវភៅ។", "ផ្សារ?"]}


def _store(db: Path, data: Path) -> Path:
    (data / "seahelm" / "belebele").mkdir(parents=True)
    (data / "seahelm" / "belebele" / "my.jsonl").write_bytes(BELEBELE.read_bytes())
    (data / "bhasa" / "mt").mkdir(parents=True)
    (data / "bhasa" / "mt" / "km.jsonl").write_text("".join(
        json.dumps({"id": f"km-mt-{k}", "source": s, "target": t}, ensure_ascii=False) + "\n"
        for k, (s, t) in enumerate(KHMER)), encoding="utf-8")
    ids = [str(json.loads(line)["id"]) for line in BELEBELE.read_text("utf-8").splitlines()]
    answers = {}
    for model, picks in PICKS.items():
        rows = [{"task": "belebele", "lang": "my", "item_id": i, "prompt_lang": "native",
                 "prediction": f"အဖြေ- {LETTERS['ABCD'.index(p)]}"} for i, p in zip(ids, picks)]
        rows += [{"task": "translation-en-xx", "lang": "km", "item_id": f"km-mt-{k}", "prompt_lang": "native",
                  "prediction": f"ការបរប្រែ៖ {out}"} for k, out in enumerate(KHMER_OUT[model])]
        answers[model] = native_predictions(rows, model, data)
    return ingest(db, data, answers)


def _belebele_rows() -> list[dict]:
    return [json.loads(line)["prompts"][0] for line in BELEBELE.read_text("utf-8").splitlines()]


@pytest.mark.skipif(not (fonts_for("my") and fonts_for("km")),
                    reason="no Myanmar or Khmer font installed (fonts-noto-core, scripts/test.sh)")
def test_belebele_burmese_and_khmer_items_render(tmp_path):
    db = _store(tmp_path / "t.duckdb", tmp_path / "data")
    wrong = _belebele_rows()[3]  # the item alpha answers C (gold B)
    with serve_app(db, env={"TANAW_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path)}) as url, \
            chromium_page(1400, 1400) as page:
        page.goto(f"{url}/language?{urlencode({'lang': 'Burmese', 'prompt': 'Native prompt'})}")
        wait_for_app(page, 180000)
        page.wait_for_function("() => document.querySelector('[data-testid=\"stDataFrame\"] canvas')", timeout=60000)
        page.wait_for_timeout(1500)
        grids = rendered_grids(page)
        screenshot(page, "language-burmese-belebele")
        cols = grids[0]["columns"]
        rows = {r["task"]: r for r in ({c["title"]: c["cells"][k][0] for c in cols}
                                       for k in range(len(cols[0]["cells"])))}
        assert set(rows) == {"belebele"}  # Khmer's cell is not Burmese
        row = rows["belebele"]
        # normalised by chance 25: (75 - 25) / 75 = 66.7
        assert (row["leader"], row["score"], row["normalised"], row["runner-up"], row["lead (points)"]) == (
            "sea-alpha", "75.0", "66.7", "sea-beta", "25.0"), row
        assert grid_problems(grids[:1]) == []

        # the row's "leader's wrong items" link (services.board_view.language_table)
        params = {"task": "belebele", "lang": "my", "sys": "sea-alpha|native", "slice": "any_wrong"}
        page.set_viewport_size({"width": 1400, "height": 2000})  # the item, its passage and the answer in one view
        page.goto(f"{url}/compare?{urlencode(params)}")
        wait_for_app(page, 180000)
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=wrong["question"], timeout=60000)
        page.get_by_text("အဖြေ- ဂ").locator("visible=true").first.scroll_into_view_if_needed()
        screenshot(page, "compare-belebele-burmese-wrong")
        belebele = page.inner_text("body")

        params = {"task": "translation-en-xx", "lang": "km", "sys": ["sea-alpha|native", "sea-beta|native"]}
        page.goto(f"{url}/compare?{urlencode(params, doseq=True)}")
        wait_for_app(page, 180000)
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=KHMER_OUT["sea-beta"][0],
                               timeout=60000)
        page.get_by_text(KHMER_OUT["sea-beta"][0]).locator("visible=true").first.scroll_into_view_if_needed()
        screenshot(page, "compare-khmer-items")
        khmer = page.inner_text("body")
    assert "1 items (any wrong)" in belebele
    assert all(wrong[k] in belebele for k in ("question", "choice1", "choice2", "choice3", "choice4"))
    assert wrong["text"][:60] in belebele  # the passage
    assert "အဖြေ- ဂ" in belebele and "answer: C" in belebele  # the Burmese letter, read as C
    assert KHMER[0][1] in khmer and "ការបរប្រែ៖ សួស្តី។" in khmer and "ការបរប្រែ៖ រាត្រីសួស្តី។" in khmer
