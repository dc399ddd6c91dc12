"""An IFEval item on Compare, in headless Chromium: two systems' SEA-HELM inference files are ingested with the
command line, and the item's drill-down lists each answer's instructions, the failed ones first, strict and loose,
and the response-language check, in a grid (never as Markdown). tests/_screenshots/compare_ifeval.png is kept to
be looked at."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.helpers.browser import (chromium_available, chromium_page, grid_problems, rendered_grids, screenshot,
                                   serve_app, wait_for_app)
from tests.store.test_ifeval_import import ANSWERS, FIXTURES, _inference_rows

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")

REPO = Path(__file__).resolve().parents[2]
BULLETS = "detectable_format:number_bullet_lists"
# Model-B answers item 14 with a lead-in line and exactly three bullets: followed strictly too
MODEL_B = {14: "Berikut daftar belanjanya:\n* Beras\n* Telur\n* Minyak goreng"}


def _grid_rows(grid: dict) -> list[tuple[str, ...]]:
    cols = grid["columns"]
    return [tuple(c["cells"][r][0] for c in cols) for r in range(len(cols[0]["cells"]))]


def test_ifeval_item_drill_down_lists_failed_instructions(tmp_path):
    db = tmp_path / "tanaw.duckdb"
    env = {**os.environ, "TANAW_DATA_DIR": str(FIXTURES), "TANAW_DB": str(db), "HOME": str(tmp_path)}
    for model, changed in (("Model-A", {}), ("Model-B", MODEL_B)):
        rows = [{**r, "responses": [changed.get(r["id"], r["responses"][0])]} for r in _inference_rows("id")]
        path = tmp_path / model / f"{model}_if-eval_id.jsonl"
        path.parent.mkdir()
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", model], cwd=REPO,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]

    params = {"task": "sea-ifeval", "lang": "id", "sys": ["Model-A|native", "Model-B|native"], "item": "14"}
    with serve_app(db, env={"TANAW_DATA_DIR": str(FIXTURES), "HOME": str(tmp_path)}) as url, \
            chromium_page(1400, 2800) as page:
        page.goto(f"{url}/compare?{urlencode(params, doseq=True)}")
        wait_for_app(page, 120000)
        page.wait_for_function("t => document.body.innerText.includes(t)", arg="Minyak goreng", timeout=60000)
        page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stDataFrame\"] canvas').length >= 2",
                               timeout=60000)
        screenshot(page, "compare_ifeval")
        body = page.inner_text("body")
        grids = [g for g in rendered_grids(page) if [c["title"] for c in g["columns"]] == ["instruction", "strict",
                                                                                             "loose"]]
    assert "followed 0/1 strict, 1/1 loose; language id (as required)" in body  # Model-A's answer line
    assert "followed 1/1 strict, 1/1 loose; language id (as required)" in body  # Model-B's
    assert len(grids) == 2
    a, b = (_grid_rows(g) for g in grids)
    assert a[0] == (BULLETS, "FAILED", "followed") and b[0] == (BULLETS, "followed", "followed")
    assert a[1] == ("response language id (detected id)", "followed", "followed")
    assert ANSWERS["id"][14][1:] == (False, True, True)  # the scripted outcome the grid shows
    assert grid_problems(grids) == []
