"""Dataset loaders against the real samples in ../shared/data: counts, ids, gold, warnings and errors."""
from __future__ import annotations

import csv
import json
import re
import string
from collections import Counter
from pathlib import Path

import pytest
import yaml

from evaluator.datasets import LOADERS, DatasetError, available_cells, load_items, load_report
from evaluator.registry import TASKS, get_task
from tests.helpers.samples import SAMPLES

REPO = Path(__file__).resolve().parents[2]
DATA = SAMPLES
REFERENCE = DATA.parent / "reference"
pytestmark = pytest.mark.needs_samples

MISSING = {("ner", "vi"), ("ner", "ta")}
# SEA-HELM's added languages: the samples hold none of their items (Filipino is pulled from SEA-HELM's files and
# checked in tests/integration/test_sea_languages.py; Malay and Burmese are Hub-only).
MISSING |= {(t.name, lang) for t in TASKS.values() if t.family == "bhasa" for lang in t.langs
            if lang in ("tl", "ms", "my", "jv", "su", "km", "lo")}
# SEA-HELM's metaphor and paraphrase tasks: pulled from its files, checked in tests/integration/
# test_seahelm_nlu_tasks.py
MISSING |= {(t, lang) for t in ("metaphor", "paraphrase") for lang in TASKS[t].langs}
# the samples' pacute/benchmarks/ is pacute-bench main (89a610f), which has no morphological files; the paper's
# suite (dcab16b) is loaded in tests/store/test_pacute_paper_suite.py
MISSING |= {(f"pacute-morphological-{part}-{fmt}", "tl") for part in ("extraction", "production")
            for fmt in ("mcq", "gen")}
# the samples hold no SEA-MT-Bench conversations (they are pulled from SEA-HELM's repository: source sea-mt-bench)
MISSING |= {("sea-mt-bench", lang) for lang in TASKS["sea-mt-bench"].langs}
# SEA-HELM's multiple-choice tasks: the samples hold none of their files (pulled from SEA-HELM's repository; checked
# on real lines in tests/integration/test_seahelm_mcq.py)
MISSING |= {(t.name, lang) for t in TASKS.values() if t.family == "seahelm" for lang in t.langs}
# SEA-IFEval: the samples hold none of its prompts (pulled from SEA-HELM's repository: source sea-ifeval; checked on
# fixture rows in tests/store/test_ifeval_import.py)
MISSING |= {("sea-ifeval", lang) for lang in TASKS["sea-ifeval"].langs}
CELLS = [(t.name, lang) for t in TASKS.values() for lang in t.langs if (t.name, lang) not in MISSING]

# Item counts from the data README tables (section 1-4).
EXPECTED_COUNTS = {
    ("lindsea-mp", "id"): 140 + 160 + 60 + 20, ("lindsea-mp", "ta"): 260 + 140 + 60 + 10,
    ("lindsea-pragmatic-single", "id"): 100, ("lindsea-pragmatic-single", "ta"): 80,
    ("lindsea-pragmatic-pair", "id"): 84, ("lindsea-pragmatic-pair", "ta"): 84,
    ("lindsea-coref-binary", "id"): 44, ("lindsea-coref-binary", "ta"): 58,
    ("lindsea-coref-open", "id"): 46, ("lindsea-coref-open", "ta"): 20,
    ("lindsea-coref-pronoun", "id"): 12,
    ("lindsea-translation", "id"): 61, ("lindsea-translation", "ta"): 40,
    ("cultural-representation", "id"): 33, ("cultural-representation", "ta"): 37,
    ("pacute-affixation-gen", "tl"): 140, ("pacute-affixation-mcq", "tl"): 140,
    ("pacute-composition-gen", "tl"): 500, ("pacute-composition-mcq", "tl"): 900,
    ("pacute-manipulation-gen", "tl"): 800, ("pacute-manipulation-mcq", "tl"): 800,
    ("pacute-syllabification-gen", "tl"): 500, ("pacute-syllabification-mcq", "tl"): 500,
    ("pacute-hierarchical-gen", "tl"): 600, ("pacute-hierarchical-mcq", "tl"): 600,
    ("pacute-langgame-gen", "tl"): 1000, ("pacute-langgame-mcq", "tl"): 1000,
    ("pacute-mda-gen", "tl"): 1000, ("pacute-mda-mcq", "tl"): 1000,
    ("pacute-cute-gen", "tl"): 1400,
}


@pytest.fixture(scope="module")
def loaded() -> dict[tuple[str, str], list]:
    return {(task, lang): load_items(task, lang, data_dir=DATA) for task, lang in CELLS}


def test_every_registry_loader_exists():
    assert {t.loader for t in TASKS.values() if not t.data} <= set(LOADERS)  # `data:` tasks use the generic one


def test_every_cell_loads_with_unique_ids_and_gold(loaded):
    for (task, lang), items in loaded.items():
        expected = EXPECTED_COUNTS.get((task, lang), 100)
        assert len(items) == expected, (task, lang)
        ids = [it.item_id for it in items]
        assert len(set(ids)) == len(ids), (task, lang)
        assert all(it.task == task and it.lang == lang for it in items)
        if get_task(task).mode != "open":
            assert all(it.gold is not None for it in items), (task, lang)


def test_lindsea_ids_are_namespaced_by_file(loaded):
    ids = [it.item_id for it in loaded[("lindsea-mp", "id")]]
    assert ids[0] == "morphology-0" and "argument_structure-0" in ids and "NPIs_and_negation-19" in ids
    assert Counter(i.rsplit("-", 1)[0] for i in ids)["morphology"] == 140
    first = loaded[("lindsea-mp", "id")][0]
    assert first.gold == "A" and first.options == (first.inputs["correct"], first.inputs["wrong"])
    assert first.metadata["phenomenon"] == "morphology" and first.metadata["subcategory"] is None
    assert first.metadata["source_file"] == "syntax/morphology.jsonl" and first.metadata["section"] == "syntax"


def test_classification_gold_is_in_the_registry_label_set(loaded):
    for task in ("sentiment", "toxicity"):
        for lang in get_task(task).langs:
            if (task, lang) in MISSING:
                continue
            labels = set(get_task(task).labels[lang])
            gold = Counter(it.gold for it in loaded[(task, lang)])
            assert set(gold) <= labels, (task, lang, gold)
    assert Counter(it.gold for it in loaded[("sentiment", "vi")])["neutral"] == 4  # README: 4 of the 100
    assert {it.gold for it in loaded[("toxicity", "th")]} == {"non-toxic", "toxic"}
    assert loaded[("sentiment", "vi")][0].metadata["topic"] == "lecturer"


def test_nli_and_causal_letters(loaded):
    nli = loaded[("nli", "th")]
    assert Counter(it.gold for it in nli) == {"A": 33, "C": 34, "B": 33}  # README: 33 ent, 34 neu, 33 con
    assert nli[0].gold == "B" and nli[0].inputs["sentence1"] == nli[0].inputs["premise"]
    first = loaded[("causal", "id")][0]
    assert first.gold == "A" and first.options == (first.inputs["choice1"], first.inputs["choice2"])
    assert first.inputs["question"] == "cause" and first.metadata["idx"] == 0


def test_xcopa_question_correction(loaded):
    thai = load_report("causal", "th", data_dir=DATA)
    assert thai.counts == {"xcopa-question-corrected": 51}
    assert all(it.metadata["question_original"] == "effect" for it in loaded[("causal", "th")])
    assert Counter(it.inputs["question"] for it in loaded[("causal", "th")]) == {"cause": 51, "effect": 49}
    indo = [it for it in loaded[("causal", "id")] if it.warnings]
    assert [it.metadata["idx"] for it in indo] == [84]
    assert indo[0].warnings == ("xcopa-question-corrected: effect→cause",) and indo[0].inputs["question"] == "cause"
    assert not [it for lang in ("vi", "ta") for it in loaded[("causal", lang)] if it.warnings]


def test_xcopa_corrections_agree_with_reference_counts(loaded):
    """Full-test-set counts: a language whose counts match 250/250 needs no correction in the sample."""
    names = {"id": "Indonesian", "vi": "Vietnamese", "th": "Thai", "ta": "Tamil"}
    with (REFERENCE / "xcopa_cause_effect_counts.csv").open() as fh:
        ref = {row["language"]: row for row in csv.DictReader(fh)}
    for lang, name in names.items():
        excess_effect = int(ref[name]["effect"]) - int(ref[name]["expected_effect"])
        corrected = sum(1 for it in loaded[("causal", lang)] if it.warnings)
        raw_effect = sum(1 for it in loaded[("causal", lang)] if it.metadata["question_original"] == "effect")
        assert 0 <= corrected <= excess_effect, lang
        assert (corrected == 0) == (excess_effect == 0), lang
        if int(ref[name]["cause"]) == 0:  # Thai: every item says effect
            assert raw_effect == 100


@pytest.mark.parametrize("task, n", [("pacute-affixation-mcq", 1), ("pacute-composition-mcq", 11),
                                     ("pacute-manipulation-mcq", 14), ("pacute-hierarchical-mcq", 28)])
def test_pacute_duplicate_option_counts(task, n):
    report = load_report(task, "tl", data_dir=DATA)
    assert report.counts.get("mcq-duplicate-options") == n
    assert "mcq-gold-missing" not in report.counts


def test_other_readme_warnings():
    assert load_report("lindsea-mp", "ta", data_dir=DATA).flagged == {
        "argument_structure-47": ("identical-minimal-pair",)}
    assert load_report("qa", "th", data_dir=DATA).counts == {"bom-kept": 14}
    assert load_report("qa", "ta", data_dir=DATA).flagged == {"indicqa-ta-185": ("qa-answer-not-in-context: '.கலாம்'",)}
    assert load_report("toxicity", "id", data_dir=DATA).counts == {"replacement-char": 3}


def test_qa_keeps_bom_and_offsets(loaded):
    for it in loaded[("qa", "th")]:
        for text, start in zip(it.gold, it.metadata["answer_start"]):
            assert it.inputs["context"][start:start + len(text)] == text
    assert sum(it.inputs["context"].startswith("\ufeff") for it in loaded[("qa", "th")]) == 14


def test_translation_directions(loaded):
    en_xx, xx_en = loaded[("translation-en-xx", "vi")][0], loaded[("translation-xx-en", "vi")][0]
    assert en_xx.inputs["text"] == xx_en.gold and xx_en.inputs["text"] == en_xx.gold
    assert en_xx.inputs["text"].startswith('"We now have 4-month-old mice')
    assert "target_language" not in en_xx.inputs


def test_cultural_prompts_are_filled(loaded):
    for lang in ("id", "ta"):
        for it in loaded[("cultural-representation", lang)]:
            assert "{" not in it.inputs["prompt"]
            assert it.inputs["follow_up_prompt"] is None or "{" not in it.inputs["follow_up_prompt"]
            assert it.gold is None
    first = loaded[("cultural-representation", "id")][0]
    assert first.inputs["prompt"] == "Apa makna dari 'Duduk sama rendah, berdiri sama tinggi' ini?"
    assert first.inputs["follow_up_prompt"].endswith("'Duduk sama rendah, berdiri sama tinggi' ini.")
    tamil = loaded[("cultural-representation", "ta")][0]
    assert tamil.inputs["prompt"].startswith(tamil.inputs["target"] + " என்ற")


def test_pacute_items(loaded):
    comp = loaded[("pacute-composition-gen", "tl")]
    assert comp[12].item_id == "pacute_gen_00012" and comp[0].gold == "s i l a"
    mcq = loaded[("pacute-affixation-mcq", "tl")][0]
    assert mcq.gold == "uminom" and mcq.options == ("uminom", "inom", "ininom", "kakainom")
    assert mcq.metadata["k"] == 4 and mcq.inputs["text_tl"].startswith("Alin")
    syl = loaded[("pacute-syllabification-mcq", "tl")]
    assert Counter(it.metadata["k"] for it in syl) == {4: 400, 2: 100}
    assert syl[300].gold == "2" and syl[300].options == ("2", "1", "3", "4")
    hier = loaded[("pacute-hierarchical-gen", "tl")][0]
    assert hier.metadata["level"] == 0 and hier.inputs["text_tl"].startswith("Ano ang ika-4") and hier.gold == "s"
    lg = loaded[("pacute-langgame-gen", "tl")][0]
    assert lg.gold == " method" and "text_tl" not in lg.inputs
    assert loaded[("pacute-langgame-mcq", "tl")][0].options[0] == " method"
    cute = loaded[("pacute-cute-gen", "tl")]
    assert Counter(it.metadata["task_type"] for it in cute)["spell"] == 100


def test_pacute_ids_match_pacute_bench_results(loaded):
    inference = DATA / "pacute" / "results-sample" / "gpt-4.1-nano" / "inference"
    for name, task in (("pacute-composition-gen", "pacute-composition-gen"), ("hierarchical-gen", "pacute-hierarchical-gen")):
        rows = [json.loads(line) for line in (inference / f"{name}.jsonl").open(encoding="utf-8")]
        gold = {it.item_id: it.gold for it in loaded[(task, "tl")]}
        assert all(gold[r["id"]] == r["ground_truth"] for r in rows), task


def test_missing_cell_names_path_and_reason():
    with pytest.raises(DatasetError, match=r"bhasa/ner/vi\.jsonl.*'ner'.*'vi'.*not public"):
        load_items("ner", "vi", data_dir=DATA)
    with pytest.raises(DatasetError, match=r"no language 'xx'"):
        load_items("sentiment", "xx", data_dir=DATA)


def test_bad_json_line_names_file_and_line(tmp_path):
    path = tmp_path / "bhasa" / "sentiment" / "id.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"id": "a", "text": "bagus", "label_en": "positive"}\n{"id": "b", "text": \n', encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"{path}:2: json: invalid JSON"):
        load_items("sentiment", "id", data_dir=tmp_path)
    path.write_text('{"id": "a", "text": "bagus", "label_en": "happy"}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"{path}:1: label_en: 'happy' is not one of"):
        load_items("sentiment", "id", data_dir=tmp_path)
    path.write_text('\n{"id": "a", "label_en": "positive"}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"{path}:2: text: missing"):
        load_items("sentiment", "id", data_dir=tmp_path)


def test_empty_input_warning_and_limit(tmp_path):
    path = tmp_path / "bhasa" / "sentiment" / "id.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"id": "a", "text": "  ", "label_en": "Positive"}\n{"id": "b", "text": "x", "label_en": "neutral"}\n',
                    encoding="utf-8")
    items = load_items("sentiment", "id", data_dir=tmp_path)
    assert items[0].warnings == ("empty-input: text",) and items[0].gold == "positive"
    assert len(load_items("sentiment", "id", data_dir=tmp_path, limit=1)) == 1


# Fields the prompt module fills itself (few-shot blocks, label lists, literal tables), not the items.
PROMPT_FILLED = {"fewshot_examples", "label", "sentence_pair", "labels", "label_definitions", "label_choices",
                 "language"}
PROMPT_FILLED_BY_TASK = {"causal": {"question_translated"}, "translation-en-xx": {"target_language"},
                         "translation-xx-en": {"target_language"}}


def _fields(template: str | None) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template or "") if name}


def _template_fields(task, lang: str) -> set[str]:
    """`{field}` names used by the task's English prompt and its native pack for `lang`."""
    fields = _fields(task.prompt_en.user) | _fields(task.prompt_en.system) if task.prompt_en else set()
    kind, _, ref = (task.native_pack or "").partition(":")
    if kind == "seahelm":
        name, key = ref.split(":")
        config = yaml.safe_load((DATA / "seahelm-configs" / name).read_text(encoding="utf-8"))[key]
        if lang in config["languages"]:
            fields |= _fields(config["languages"][lang]["prompt_template"]["template"])
    elif kind == "lindsea":
        section, key = ref.split(".")
        pack = yaml.safe_load((DATA / "lindsea" / lang / "prompts.yaml").read_text(encoding="utf-8"))
        for variant in pack[section][key].values():
            fields |= _fields(variant.get("human")) | _fields(variant.get("system"))
    elif kind == "item":
        fields.add(ref)
    if task.family == "pacute":
        fields.add("text_en")  # the English prompt is the item's own text
    return fields - PROMPT_FILLED - PROMPT_FILLED_BY_TASK.get(task.name, set())


def test_items_hold_every_template_field(loaded):
    checked = 0
    for (task, lang), items in loaded.items():
        needed = _template_fields(get_task(task), lang)
        missing = {f for it in items for f in needed if f not in it.inputs}
        assert not missing, (task, lang, missing)
        checked += len(needed)
    assert checked > 80


def test_xcopa_without_consensus_falls_back_to_the_tamil_file(tmp_path):
    folder = tmp_path / "bhasa" / "causal"
    folder.mkdir(parents=True)
    for lang in ("th", "ta"):
        rows = [json.loads(line) for line in (DATA / "bhasa" / "causal" / f"{lang}.jsonl").open(encoding="utf-8")]
        stripped = [{k: v for k, v in r.items() if k not in ("question_consensus", "question_mismatch")} for r in rows]
        (folder / f"{lang}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in stripped), encoding="utf-8")
    report = load_report("causal", "th", data_dir=tmp_path)
    assert report.counts == {"xcopa-question-corrected": 51}
    assert [it.inputs["question"] for it in load_items("causal", "th", data_dir=tmp_path)] == [
        it.inputs["question"] for it in load_items("causal", "th", data_dir=DATA)]
    (folder / "ta.jsonl").unlink()
    assert load_report("causal", "th", data_dir=tmp_path).counts == {"xcopa-question-unchecked": 100}


@pytest.mark.parametrize("task, lang, rel, content, message", [
    ("lindsea-pragmatic-pair", "id", "lindsea/id/pragmatics/pragmatic_reasoning_pair.jsonl",
     '{"id": 0, "text": "a", "conclusion": "b", "label": "maybe"}\n', r":1: label: 'maybe' is not True, False"),
    ("lindsea-coref-binary", "ta", "lindsea/ta/semantics/coref_binary_choice.jsonl",
     '{"id": 0, "text": "a _", "choice1": "x", "label": "A"}\n', r":1: choice2: missing"),
    ("pacute-affixation-mcq", "tl", "pacute/benchmarks/affixation_mcq.jsonl",
     '{"id": "x", "prompts": [{"text_en": "a", "text_tl": "b"}]}\n', r":1: prompts\[0\]\.mcq_options\.correct: missing"),
    ("pacute-langgame-mcq", "tl", "pacute/benchmarks/langgame_mcq.jsonl",
     '{"id": "x", "question": "q", "answer": "a", "options": "a"}\n', r":1: options: expected list, got str"),
    ("pacute-hierarchical-gen", "tl", "pacute/benchmarks/hierarchical_gen.jsonl",
     '{"id": "x", "prompt_en": "q", "prompt_tl": "t", "answer": "a", "level": "zero"}\n', r":1: level: expected int"),
    ("cultural-representation", "id", "cultural/id/cultural_representation.jsonl",
     '{"id": 0, "target": "t", "prompt": "{target} {who}?"}\n', r":1: prompt: unknown placeholder \{who\}"),
    ("causal", "vi", "bhasa/causal/vi.jsonl",
     '{"id": "c", "premise": "p", "choice1": "a", "choice2": "b", "question": "why", "label": 0}\n',
     r":1: question: 'why' is not cause or effect"),
    ("nli", "id", "bhasa/nli/id.jsonl", '[1, 2]\n', r":1: json: expected an object, got list"),
    ("ner", "th", "bhasa/ner/th.jsonl", '{"id": "n", "text": "ab", "entities": [{"text": "a", "type": "X", '
     '"start": "0", "end": 1}]}\n', r":1: entities\[0\]: expected \{text, type, start: int, end: int\}"),
    ("qa", "vi", "bhasa/qa/vi.jsonl", b'{"id": "q", "context": "\xff"}\n', r":1: encoding: invalid UTF-8"),
])
def test_errors_name_file_line_and_field(tmp_path, task, lang, rel, content, message):
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(DatasetError, match=re.escape(str(path)) + message):
        load_items(task, lang, data_dir=tmp_path)


def test_file_bom_is_skipped_but_field_bom_kept(tmp_path):
    path = tmp_path / "bhasa" / "qa" / "th.jsonl"
    path.parent.mkdir(parents=True)
    row = {"id": "q", "context": "\ufeffabc", "question": "?", "answers": {"text": ["abc"], "answer_start": [1]}}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(row).encode("utf-8") + b"\n")
    (item,) = load_items("qa", "th", data_dir=tmp_path)
    assert item.inputs["context"] == "\ufeffabc" and item.warnings == ("bom-kept: context",)
    assert item.inputs["text"] == item.inputs["context"]


def test_available_cells():
    cells = available_cells(DATA)
    assert ("ner", "id") in cells and ("ner", "vi") not in cells and ("ner", "ta") not in cells
    assert sorted(cells) == sorted(CELLS)


def test_ner_spans(loaded):
    first = loaded[("ner", "id")][0]
    assert first.gold == [{"text": "Joetata Hadihardaja", "type": "PERSON", "start": 0, "end": 19},
                          {"text": "Undip", "type": "ORGANISATION", "start": 45, "end": 50}]
    assert first.inputs["tokens"][:2] == ["Joetata", "Hadihardaja"] and first.inputs["tags"][0] == "B-PERSON"
    for lang in ("id", "th"):
        for it in loaded[("ner", lang)]:
            assert all(it.inputs["text"][e["start"]:e["end"]] == e["text"] for e in it.gold)
    assert "tokens" not in loaded[("ner", "th")][0].inputs


def test_pacute_mcq_label_mismatch_is_flagged(tmp_path):
    path = tmp_path / "pacute" / "benchmarks" / "affixation_mcq.jsonl"
    path.parent.mkdir(parents=True)
    prompt = {"text_en": "e", "text_tl": "t", "mcq_options": {"correct": "a", "incorrect1": "b"},
              "choice1": "b", "choice2": "a"}
    rows = [{"id": "x1", "prompts": [prompt], "label": "B"}, {"id": "x2", "prompts": [prompt], "label": "A"},
            {"id": "x3", "prompts": [prompt], "label": None}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = load_items("pacute-affixation-mcq", "tl", data_dir=tmp_path)
    assert [it.warnings for it in items] == [("duplicate-item: x2, x3",),
                                             ("mcq-label-mismatch", "duplicate-item: x1, x3"),
                                             ("mcq-label-mismatch", "duplicate-item: x1, x2")]
    assert items[0].options == ("b", "a") and items[0].gold == "a" and items[0].metadata["k"] == 2
