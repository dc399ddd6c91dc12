"""The task registry: every task id of the issue, its languages, aliases and CLI listing."""
import json
import subprocess
import sys

import pytest

from evaluator.registry import ALIASES, TASKS, get_task, resolve, select
from tests.conftest import REPO

EXPECTED = {
    "ner": "id vi th ta", "qa": "id vi th ta", "sentiment": "id vi th ta tl ms my jv su lo",
    "toxicity": "id vi th tl ms my", "translation-en-xx": "id vi th ta tl ms my km lo",
    "translation-xx-en": "id vi th ta tl ms my km lo", "translation-id-xx": "jv su", "translation-xx-id": "jv su",
    "abssum": "id vi th ta tl my", "nli": "id vi th ta tl my", "causal": "id vi th ta tl my",
    "metaphor": "id jv su", "paraphrase": "tl my",
    "lindsea-mp": "id ta", "lindsea-pragmatic-single": "id ta", "lindsea-pragmatic-pair": "id ta",
    "lindsea-coref-binary": "id ta", "lindsea-coref-open": "id ta", "lindsea-coref-pronoun": "id",
    "lindsea-translation": "id ta", "cultural-representation": "id ta",
    **{f"pacute-{t}-{f}": "tl" for t in ("affixation", "composition", "manipulation", "morphological-extraction",
                                         "morphological-production", "syllabification",
                                         "hierarchical", "langgame", "mda") for f in ("mcq", "gen")},
    "pacute-cute-gen": "tl", "sea-mt-bench": "id vi th tl",
    "sea-ifeval": "id vi th tl jv su",
    "belebele": "tl ms my", "global-mmlu-lite": "id vi tl ms my", "kalahi": "tl",
    **{f"thaiexam-{exam}": "th" for exam in ("a-level", "ic", "onet", "tgat", "tpat1")},
}


def test_every_issue_task_is_registered_with_its_languages():
    assert {t: " ".join(s.langs) for t, s in TASKS.items()} == EXPECTED


@pytest.mark.parametrize("alias,task", [("hierarchical-gen", "pacute-hierarchical-gen"),
                                        ("multi-digit-addition-gen", "pacute-mda-gen"),
                                        ("pacute-affixation-gen", "pacute-affixation-gen"),
                                        ("pacute-morphological-extraction-mcq",
                                         "pacute-morphological-extraction-mcq"),
                                        ("morphological_production_gen", "pacute-morphological-production-gen"),
                                        ("langgame-mcq", "pacute-langgame-mcq"), ("cute-gen", "pacute-cute-gen")])
def test_pacute_bench_names_are_aliases(alias, task):
    assert resolve(alias) == task


def test_unknown_task_gets_a_close_match_hint():
    with pytest.raises(KeyError, match="did you mean 'sentiment'"):
        get_task("sentimnt")


def test_headline_metric_and_chance_follow_the_bhasa_table():
    s = get_task("sentiment")
    assert (s.headline_metric("id"), s.headline_metric("ta")) == ("macro_f1", "accuracy")
    assert s.chance_level("ta") == 0.5 and abs(s.chance_level("th") - 1 / 3) < 1e-9
    assert get_task("causal").both_orders and get_task("lindsea-mp").both_orders
    assert get_task("abssum").temperature == 0.3 and get_task("abssum").trim_tokens == {"th": 3300, "ta": 3300}


def test_select_by_family_and_language():
    cells = select("lindsea", "ta")
    assert ("lindsea-coref-pronoun", "ta") not in {(t.name, lg) for t, lg in cells}
    assert len(cells) == 6 and all(lg == "ta" for _, lg in cells)
    assert len(select()) == sum(len(t.langs) for t in TASKS.values())


def test_aliases_never_shadow_ids():
    assert not set(ALIASES) & set(TASKS)


def test_cli_tasks_lists_all_ids_with_languages():
    out = subprocess.run([sys.executable, "-m", "evaluator", "tasks", "--json"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    listed = {r["task"]: " ".join(r["langs"]) for r in json.loads(out)}
    assert listed == EXPECTED
    text = subprocess.run([sys.executable, "-m", "evaluator", "tasks"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout
    assert all(t in text for t in EXPECTED)
