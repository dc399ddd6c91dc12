"""SEA-HELM's roll-up (evaluator.seahelm_rollup) and which score feeds it (services.seahelm_view), on hand-computed
cases; the task table against the registry and SEA-HELM's suite."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluator import seahelm_rollup as R
from evaluator.formats.seahelm import our_task
from evaluator.registry import TASKS
from services.seahelm_view import seahelm_board


def test_normalise_is_seahelms_rule_on_the_shared_files_numbers():
    # gemma-4-E4B-it's Global-MMLU-Lite virology (id): accuracy 62.5 over 4 options → normalized_accuracy 50.0;
    # professional accounting 43.75 → 25.0 (the file's own values); below chance clips at 0
    assert R.normalise(62.5, 25.0) == pytest.approx(50.0)
    assert R.normalise(43.75, 25.0) == pytest.approx(25.0)
    assert R.normalise(20.0, 25.0) == 0.0
    assert R.normalise(40.0, 0.0) == pytest.approx(40.0)  # generative tasks: baseline 0
    assert R.task_score(60.0, 50.0, seahelm_nba=12.5) == 12.5  # SEA-HELM's balanced accuracy where stored
    assert R.task_score(60.0, 50.0) == pytest.approx(20.0)


def test_task_table_names_tanaw_tasks_and_the_suite():
    # Tanaw's BHASA and LINDSEA tasks; the table names the SEA-HELM tasks being added too (Belebele, ThaiExam...)
    assert {"sentiment", "qa", "toxicity", "abssum", "causal", "nli", "lindsea-mp", "lindsea-pragmatic-single",
            "lindsea-pragmatic-pair"} <= {t.tanaw for t in R.table() if t.tanaw in TASKS}
    for t in R.table():
        if t.tanaw in TASKS:
            assert our_task(t.name) == t.tanaw and R.seahelm_name(t.tanaw) == t.name
    assert R.seahelm_name("lindsea-mp") == "mp-r" and R.seahelm_name("sentiment") == "sentiment"
    assert R.lookup("global_mmlu_lite_virology").group == "global_mmlu_lite"
    assert R.lookup("thai_exam_ic").version == "1.1"
    # SEA-HELM's suite in Indonesian (task_config.yaml `seahelm` id at 6844e6c), syntax-criteria outside the total
    assert R.units("id") == {"nlu": ["sentiment", "qa", "metaphor"], "safety": ["toxicity"],
                             "nlg": ["translations", "abssum"], "nlr": ["causal", "nli"],
                             "linguistic-diagnostics": ["mp-r", "pragmatics"],
                             "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"],
                             "knowledge": ["global_mmlu_lite"]}
    assert R.units("ms") == {"nlu": ["sentiment", "belebele-qa-mc"], "safety": ["toxicity"], "nlg": ["translations"],
                             "instruction-following": ["if-eval"], "multi-turn": ["mt-bench"],
                             "knowledge": ["global_mmlu_lite"]}


def test_groups_average_first_and_a_missing_unit_leaves_the_competency_missing():
    r = R.rollup({("translation-en-xx", "id"): 80.0, ("translation-xx-en", "id"): 60.0, ("abssum", "id"): 10.0,
                  ("sentiment", "id"): 30.0, ("qa", "id"): 60.0})
    assert r["unit"][("id", "translations")] == pytest.approx(70.0)
    assert r["competency"][("id", "nlg")] == pytest.approx(40.0)  # (70 + 10) / 2, not (80 + 60 + 10) / 3
    assert r["competency"][("id", "nlu")] is None
    assert r["why"][("competency", ("id", "nlu"))] == "not scored: metaphor"
    assert r["language"]["id"] is None and r["sea"] is None


def _rescored(rows):
    return pd.DataFrame(rows, columns=["model", "task", "lang", "value", "chance", "seahelm_nba"])


def _reported(rows):
    return pd.DataFrame(rows, columns=["model", "task", "lang", "metric", "value"])


def test_rescored_cells_come_before_the_files_own_scores():
    rescored = _rescored([("m", "sentiment", "id", 60.0, 100 / 3, 40.0),
                          ("m", "translation-en-xx", "id", 55.0, 0.0, None),
                          ("m", "lindsea-mp", "id", 75.0, 50.0, None),
                          ("m", "lindsea-pragmatic-single", "id", 100.0, 50.0, None)])
    reported = _reported([("m", "sentiment", "id", "normalized_accuracy", 10.0),       # re-scored instead
                          ("m", "seahelm:translations", "id", "normalized_score", 70.0),  # re-scored part instead
                          ("m", "seahelm:abssum:v1.1", "id", "normalized_rougel_f1", 20.0),
                          ("m", "seahelm:total", "id", "nlg", 45.0)])
    view = seahelm_board(rescored, reported)
    comps = view.competencies.set_index(["lang", "competency"])
    assert comps.loc[("id", "nlg"), "score"] == pytest.approx((55.0 + 20.0) / 2)
    assert comps.loc[("id", "nlg"), "source"] == "file + re-scored"
    # mp-r (75 − 50) / (100 − 50) × 100 = 50 and pragmatics 100 (its one part present) → (50 + 100) / 2
    assert comps.loc[("id", "linguistic-diagnostics"), "score"] == pytest.approx(75.0)
    assert comps.loc[("id", "nlu"), "why"] == "not scored: qa, metaphor"  # sentiment: 40, SEA-HELM's own score
    assert view.file_totals.to_dict("records") == [{"model": "m", "lang": "id", "level": "nlg", "value": 45.0}]
