"""The demo items in data/demo (written for Tanaw) and the demo model's result file: coverage, ids, size, ingest."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evaluator.datasets import available_cells, load_items
from evaluator.datasets.lindsea import SYNTAX_FILES
from evaluator.registry import TASKS

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"
RESULTS = DEMO / "gemma-3-270m.results.jsonl"
BHASA = [t for t in TASKS.values() if t.family == "bhasa"]
DEMO_LANGS = ("id", "vi", "th", "ta")
"""The BHASA paper's languages, which the demo covers; SEA-HELM's added ones (tl, ms, my) have no demo items."""


def test_every_bhasa_cell_has_ten_items_in_every_declared_language():
    cells = set(available_cells(DEMO))
    for task in BHASA:
        for lang in (lang for lang in task.langs if lang in DEMO_LANGS):
            assert (task.name, lang) in cells, f"{task.name}/{lang} has no demo file"
            items = load_items(task.name, lang, data_dir=DEMO)
            assert len(items) >= 10, f"{task.name}/{lang}: {len(items)} items"
            assert not [w for i in items for w in i.warnings], f"{task.name}/{lang} items carry warnings"


def test_every_lindsea_phenomenon_in_both_languages_with_structure():
    for lang in ("id", "ta"):
        items = load_items("lindsea-mp", lang, data_dir=DEMO)
        by_phenomenon = Counter(i.metadata["phenomenon"] for i in items)
        assert set(by_phenomenon) == set(SYNTAX_FILES) and min(by_phenomenon.values()) >= 7
        for phenomenon in SYNTAX_FILES:
            categories = {i.metadata["category"] for i in items if i.metadata["phenomenon"] == phenomenon}
            assert len(categories) >= 2, f"{lang}/{phenomenon}: one category only"
        assert any(i.metadata["subcategory"] for i in items)  # the treemap's fourth level
        for task in ("lindsea-pragmatic-single", "lindsea-coref-binary"):
            assert len(load_items(task, lang, data_dir=DEMO)) >= 6


def test_every_pacute_level_in_both_formats_and_the_controls():
    for fmt in ("mcq", "gen"):
        items = load_items(f"pacute-hierarchical-{fmt}", "tl", data_dir=DEMO)
        levels = Counter(i.metadata["level"] for i in items)
        assert sorted(levels) == [0, 1, 2, 3, 4, 5] and min(levels.values()) >= 10
        if fmt == "mcq":
            assert all(len(i.options) == 4 and i.gold in i.options for i in items)
    for task in ("pacute-langgame-mcq", "pacute-langgame-gen", "pacute-mda-mcq", "pacute-mda-gen", "pacute-cute-gen"):
        assert len(load_items(task, "tl", data_dir=DEMO)) >= 10


def test_ids_are_marked_as_demo():
    for path in DEMO.rglob("*.jsonl"):
        if path == RESULTS:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            assert str(json.loads(line)["id"]).startswith("demo-"), path


def test_hand_checked_items():
    # addition controls add up; a PACUTE deletion removes exactly the named character
    for item in load_items("pacute-mda-gen", "tl", data_dir=DEMO):
        a, b = item.inputs["text_en"].rstrip("=").split("+")
        assert int(a) + int(b) == int(item.gold)
    deletion = next(i for i in load_items("pacute-hierarchical-gen", "tl", data_dir=DEMO)
                    if i.metadata["subcategory"] == "character_deletion")
    word, pos = deletion.inputs["word"], deletion.metadata["details"]["position"]
    assert deletion.gold == word[:pos - 1] + word[pos:]


@pytest.mark.skipif(not RESULTS.is_file(), reason="data/demo/gemma-3-270m.results.jsonl not generated yet")
def test_the_demo_model_run_covers_the_explorer_pages():
    from evaluator.formats.native import parse_native

    assert RESULTS.stat().st_size < 3_000_000
    parsed = parse_native(RESULTS.read_bytes(), RESULTS.name)
    assert not parsed.errors
    have = {(p.task, p.lang, p.item_id, p.prompt_lang, p.order) for p in parsed.predictions}

    def answered(task, lang, prompt_langs):
        orders = ("ab", "ba") if TASKS[task].both_orders else ("ab",)
        return all((task, lang, item.item_id, pl, o) in have for item in load_items(task, lang, data_dir=DEMO)
                   for pl in prompt_langs for o in orders)

    # what the committed run covers in full (the rest is partial: see data/demo/gemma-3-270m.run.json)
    assert answered("pacute-hierarchical-mcq", "tl", ("en", "native"))
    assert answered("pacute-hierarchical-gen", "tl", ("en", "native"))
    assert answered("lindsea-mp", "id", ("en",)) and answered("lindsea-mp", "ta", ("en",))
    assert all(answered("sentiment", lang, ("en",)) for lang in ("id", "vi", "th"))
    assert {p.task for p in parsed.predictions} >= {"ner", "qa", "sentiment", "pacute-langgame-mcq"}
    mcq = [p for p in parsed.predictions if p.task == "pacute-hierarchical-mcq"]
    assert all(p.option_logprobs and len(p.option_logprobs) == 4 for p in mcq)  # log-probabilities, not text
    answered = [p for p in parsed.predictions if p.option_logprobs is None]
    assert sum(bool((p.output or "").strip()) for p in answered) >= 0.9 * len(answered)  # real text, not empties
