"""Leaderboard: the SEA-HELM view column beside the paper's metric, and the different-gold warning on the
reported PACUTE hierarchical MCQ rows (Streamlit AppTest on the embedded default database)."""
import pytest

from pages._ui import md_escape
from tests.helpers.demo_pages import leaderboard_at as _run

MAJ = "Baseline · majority class (demo)"


def test_seahelm_view_column_beside_the_papers_metric(demo_db, monkeypatch):
    at = _run(demo_db, monkeypatch, score="Raw")
    cells = next(d.value for d in at.dataframe if "SEA-HELM view" in d.value.columns)
    cells = cells[cells["model"] == MAJ].set_index(["task", "lang"])
    # majority class "positive" on Indonesian sentiment: macro-F1 19.6 is the paper's metric (normalised −20.6);
    # SEA-HELM's balanced accuracy is 1/3 = chance for its 3 labels → (1/3 − 1/3)/(2/3) = 0, clipped at 0
    assert cells.loc[("sentiment", "id"), "metric"] == "macro_f1"
    assert cells.loc[("sentiment", "id"), "value"] == pytest.approx(1000 / 51, abs=0.01)
    assert cells.loc[("sentiment", "id"), "SEA-HELM view"] == pytest.approx(0.0)
    assert cells.loc[("sentiment", "id"), "normalized"] < 0
    assert cells["SEA-HELM view"].replace(float("-inf"), float("nan")).dropna().ge(0).all()  # never below 0
    assert pytest.approx(0.0) == cells.loc[("causal", "id"), "SEA-HELM view"]  # "A" in both orders: bacc 1/2
    assert cells.loc[("qa", "id"), "SEA-HELM view"] == float("-inf")  # classification tasks only: "—"


def test_reported_hierarchical_mcq_is_marked_as_a_different_gold(demo_db, monkeypatch):
    at = _run(demo_db, monkeypatch, bench="PACUTE", score="Raw")
    reported = at.dataframe[-1].value
    assert "pacute-hierarchical-mcq · tl" in reported.columns
    warnings = [w.value for w in at.warning if "different gold" in w.value]
    assert len(warnings) == 1  # one per cell, however many reported rows it has
    assert warnings[0].startswith(f"{md_escape('pacute-hierarchical-mcq · tl')}: "  # data, escaped for Markdown
                                  f"{md_escape('scored by a different gold')}") and "464 of 600" in warnings[0]
