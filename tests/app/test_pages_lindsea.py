"""LINDSEA explorer page on the fixture store: task scores, drilldown figures and the minimal-pair item list."""
from __future__ import annotations

import pytest

from tests.helpers.fixtures_store import (CELLS, app_test, cell_items, is_right, is_unparsed, frame_with as _frame)


def _expected_by_category(model: str, lang: str, prompt_lang: str, phenomenon: str) -> dict[str, tuple[float, int]]:
    """Accuracy (0-100) and item count per category, from the fixture's rule (mean of the two option orders)."""
    sample = next(s for t, lg, s, _ in CELLS if t == "lindsea-mp" and lg == lang)
    sums: dict[str, list[float]] = {}
    for i, item in enumerate(cell_items("lindsea-mp", lang, sample)):
        if item.metadata["phenomenon"] != phenomenon:
            continue
        ok = [is_right(model, "lindsea-mp", prompt_lang, i, item, o) and not is_unparsed(model, i)
              for o in ("ab", "ba")]
        sums.setdefault(item.metadata["category"], []).append(sum(ok) / 2)
    return {c: (100 * sum(v) / len(v), len(v)) for c, v in sums.items()}


def test_task_scores_show_value_interval_and_n(db):
    at = app_test("lindsea", model="SeaLion-9B-it", lang="id", prompt="en")
    assert not at.exception
    cells = _frame(at, "branch", "task").set_index(["task", "prompt_lang"])
    # 40 minimal pairs, 8 of every 10 right in each option order (English prompt), 9 of 10 with the native one
    assert cells.loc[("lindsea-mp", "en"), "value"] == pytest.approx(80.0)
    assert cells.loc[("lindsea-mp", "native"), "value"] == pytest.approx(90.0)
    assert cells.loc[("lindsea-mp", "en"), "n"] == 40
    # Wilson 95% for 32/40: 65.24-89.50
    assert cells.loc[("lindsea-mp", "en"), "ci_low"] == pytest.approx(65.24, abs=0.01)
    assert cells.loc[("lindsea-mp", "en"), "ci_high"] == pytest.approx(89.50, abs=0.01)
    assert cells.loc[("lindsea-pragmatic-pair", "en"), "n"] == 20
    assert set(cells["branch"]) == {"syntax", "pragmatics"}
    assert not cells["below_chance"].any()


def test_drilldown_to_categories_matches_hand_count(db):
    at = app_test("lindsea", model="Gemma-2B", lang="id", prompt="en", branch="syntax", phenomenon="morphology")
    assert not at.exception
    bars = _frame(at, "branch", "phenomenon", "category")
    shown = {(r.category, r.prompt_lang): (r.value, r.n) for r in bars.itertuples()}
    for lang_prompt in ("en", "native"):
        for category, (value, n) in _expected_by_category("Gemma-2B", "id", lang_prompt, "morphology").items():
            assert shown[(category, lang_prompt)][0] == pytest.approx(value)
            assert shown[(category, lang_prompt)][1] == n
    # below chance only when the whole 95% interval is below 50, not a point under it
    assert (bars["below_chance"] == (bars["ci_high"] < 50)).all()


def test_items_list_minimal_pairs_with_both_orders_and_highlighted_difference(db):
    at = app_test("lindsea", model="Gemma-2B", lang="id", prompt="en", branch="syntax", phenomenon="morphology")
    items = _frame(at, "task", "item_id").set_index("item_id")
    # item 13 (index 13 of the cell) is one of Gemma's unparseable answers: wrong in both orders
    assert items.loc["morphology-13", "right_all"] == False  # noqa: E712
    # index 0: 0 % 10 < 5 right as asked; (0 + 3) % 10 < 5 right swapped
    assert items.loc["morphology-0", "right_ab"] == True  # noqa: E712
    assert items.loc["morphology-0", "right_ba"] == True  # noqa: E712
    texts = [m.value for m in at.markdown]
    # the unparseable answers are named as such in both orders
    assert any(t.startswith("`morphology-13` · as asked: ✗ wrong (answer: unparseable) · swapped: ✗ wrong "
                            "(answer: unparseable)") for t in texts)
    # index 2: right as asked (A), wrong swapped ((2 + 3) % 10 = 5 is not < 5): answered A again
    assert any(t.startswith("`morphology-12` · as asked: ✓ right (answer: A) · swapped: ✗ wrong (answer: A)")
               for t in texts)
    # difference of a pair in markdown, escaped and highlighted
    # the colour key: green in the acceptable sentence, red in the unacceptable one
    assert any(":green-background[" in t and t.startswith("✓") for t in texts)
    assert any(":red-background[" in t and t.startswith("✗") for t in texts)
    assert not any(":red-background[" in t and t.startswith("✓") for t in texts)


def test_tamil_and_empty_language(db):
    at = app_test("lindsea", model="Closed-XL", lang="ta", prompt="native")
    assert not at.exception
    cells = _frame(at, "branch", "task").set_index(["task", "prompt_lang"])
    assert cells.loc[("lindsea-mp", "native"), "value"] == pytest.approx(70.0)
    assert cells.loc[("lindsea-mp", "native"), "n"] == 30


def test_items_show_empty_text_cells_as_a_dash_and_keep_the_checkboxes(db):
    # items without a minimal pair (pragmatics, coreference) have no sentence pair: drawn as the word "None" before
    at = app_test("lindsea", model="Gemma-2B", lang="id", prompt="en")
    assert not at.exception
    items = _frame(at, "task", "item_id")
    single = items[items["task"] != "lindsea-mp"]
    assert len(single) and (single["correct_sentence"] == "—").all() and (single["wrong_sentence"] == "—").all()
    assert items.loc[items["task"] == "lindsea-mp", "correct_sentence"].ne("—").all()
    assert not items.isin(["None"]).any().any()
    for col in ("right_ab", "right_ba", "right_all"):  # checkbox columns stay true / false / missing
        assert items[col].map(lambda v: v is True or v is False or v is None or v != v).all()
