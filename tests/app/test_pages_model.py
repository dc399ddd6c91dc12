"""Model page on the fixture store: cells with rank range and field median, failures, flags, provenance."""
from __future__ import annotations

import pytest

from tests.helpers.fixtures_store import frame_with as _frame, app_test


def test_cells_rank_range_and_field_median(db):
    at = app_test("model", model="Gemma-2B")
    assert not at.exception
    cells = _frame(at, "task", "lang", "prompt_lang").set_index(["task", "lang", "prompt_lang"])
    row = cells.loc[("pacute-hierarchical-mcq", "tl", "en")]
    # Gemma 20/60 = 33.3; field: SeaLion 60.0, Closed-XL 90.0 -> median 60.0
    assert row["value"] == pytest.approx(100 / 3)
    assert row["field_median"] == pytest.approx(60.0)
    assert row["delta"] == pytest.approx(100 / 3 - 60)
    assert (row["rank_best"], row["rank_worst"], row["n_models"]) == (3, 3, 3)
    # 40 pairs; right in both orders on i%10 in {0, 1}, one order on {2, 3, 4, 7, 8, 9}, minus 5 unparseable items
    mp = cells.loc[("lindsea-mp", "id", "en")]  # 43.75 with 95% CI 29.6-59.0: under 50, not below chance
    assert mp["value"] == pytest.approx(43.75) and not mp["below_chance"]
    weak = _frame(at, "cell", "value", "field_median", "delta").set_index("cell")
    assert (weak["delta"] < 0).all() and len(weak) == 5
    # the largest gap: affixation MCQ with the native prompt, 20.0 against a median of 70.0
    assert weak.index[0] == "pacute-affixation-mcq · tl · native"
    assert weak["delta"].iloc[0] == pytest.approx(-50.0)
    assert "No cell above the field median." in [c.value for c in at.caption]


def test_parse_failures_flags_and_provenance(db):
    at = app_test("model", model="Gemma-2B")
    fails = _frame(at, "lang", "prompt_lang", "answers").set_index(["lang", "prompt_lang"])
    # Indonesian, English prompt: 40 pairs x 2 orders + 20 pragmatic items; unparseable every 7th item: 5 x 2 + 2
    assert fails.loc[("id", "en"), "answers"] == 100
    assert fails.loc[("id", "en"), "unparsed"] == 12
    assert fails.loc[("id", "en"), "fail_pct"] == pytest.approx(12.0)
    assert fails.loc[("tl", "en"), "unparsed"] == 0
    runs = _frame(at, "task", "lang", "prompt_lang", "run_no")
    assert len(runs) == 18 and set(runs["harness"]) == {"tanaw"}
    assert set(runs["source_file"]) == {"Gemma-2B.jsonl"}


def test_model_filters_narrow_the_choice(db):
    at = app_test("model", sea="yes")
    assert next(s for s in at.selectbox if s.label == "Model").options == ["SeaLion-9B-it"]
    at = app_test("model", size="<4B", search="gem")
    assert next(s for s in at.selectbox if s.label == "Model").options == ["Gemma-2B"]
    at = app_test("model", weights="closed", type="base")
    assert not at.exception and "No model passes the filters." in at.info[0].value


def test_cells_show_runs_and_the_low_class_support_flag(db):
    at = app_test("model", model="Gemma-2B")
    assert not at.exception
    cells = _frame(at, "task", "lang", "prompt_lang").set_index(["task", "lang", "prompt_lang"])
    assert set(cells["n_runs"]) == {1}
    # Thai sentiment: 3 labels, the rarest with 6 of the cell's items
    assert "low class support: the rarest gold class has 6 items (fewer than 10)" in \
        cells.loc[("sentiment", "th", "en"), "note"]
    assert "low class support" not in cells.loc[("lindsea-mp", "id", "en"), "note"]
