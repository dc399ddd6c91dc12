"""Language entries (`evaluator/languages/*.yaml`): complete, consistent with the tasks, and read by the prompts.

Thai NER: the prompt's label list and the gold use one label set, ThaiNER 1.5.1's own (wannaphong/thai-ner @
c22ec8e, model/1.5.1/{train,val,test}.txt: PERSON, ORGANIZATION, LOCATION, FACILITY, DATE, TIME, AGO, MONEY,
PERCENT, LAW, LEN, URL, PHONE, EMAIL, ZIP). The sample is 1.5.1, so FACILITY and AGO are added to the prompt rather
than mapped onto v2.0's types: a facility can be a location or an organisation, and choosing for the annotators
would change the gold.
"""
import json

import pytest

from evaluator import languages
from evaluator.datasets import load_items
from evaluator.languages import LANGUAGES, LanguageError, load_languages
from evaluator.prompts import render
from evaluator.registry import LANG_NAMES, TASKS, get_task
from tests.helpers.samples import SAMPLES

DATA = SAMPLES
THAINER_151 = {"PERSON", "ORGANIZATION", "LOCATION", "FACILITY", "DATE", "TIME", "AGO", "MONEY", "PERCENT", "LAW",
               "LEN", "URL", "PHONE", "EMAIL", "ZIP"}


def test_every_task_language_has_an_entry_and_names_come_from_it():
    for task in TASKS.values():
        assert set(task.langs) <= set(LANGUAGES), task.name
    assert LANG_NAMES == {code: lang.name for code, lang in LANGUAGES.items()}
    assert list(LANG_NAMES)[:8] == ["id", "vi", "th", "ta", "tl", "ms", "my", "en"]


def test_entries_hold_what_extraction_and_prompts_need():
    for code in ("id", "vi", "th", "ta", "tl", "en"):
        lang = LANGUAGES[code]
        assert lang.answer_tag and lang.output_tags.keys() >= {"translation", "summary"}, code
        assert lang.polarity_words and (lang.negation_before or lang.negation_after), code
    for task in TASKS.values():
        for code, labels in task.labels.items():
            if task.extractor == "label":  # every label of a label task can be said in English and natively
                words = {lab for e in languages.with_english(code) for lab in e.label_words.values()}
                assert set(labels) <= words, (task.name, code)
    ner = get_task("ner")
    for code in ner.langs:
        assert LANGUAGES[code].ner_labels, code
    for code in get_task("toxicity").langs:
        assert set(LANGUAGES[code].toxicity_labels) == {"definitions", "choices"}, code


def test_thai_ner_prompt_lists_thainer_151_labels():
    assert set(LANGUAGES["th"].ner_labels) == THAINER_151
    from evaluator.spec import Item

    item = Item(task="ner", lang="th", item_id="1", inputs={"text": "x"}, gold=[])
    prompt = render(get_task("ner"), item, "en").user
    assert "FACILITY" in prompt and "AGO" in prompt


@pytest.mark.needs_samples
@pytest.mark.parametrize("code", ["id", "th"])
def test_ner_gold_types_are_in_the_prompt_label_list(code):
    """No gold entity of the sample has a type the prompt does not offer (FACILITY and AGO were 13 such in th)."""
    items = load_items("ner", code, data_dir=DATA)
    gold_types = {e["type"] for item in items for e in item.gold}
    assert gold_types <= set(LANGUAGES[code].ner_labels), gold_types - set(LANGUAGES[code].ner_labels)
    if code == "th":
        assert sum(e["type"] in ("FACILITY", "AGO") for item in items for e in item.gold) == 13


def test_entries_are_validated_with_file_and_field(tmp_path):
    (tmp_path / "a.yaml").write_text("code: zz\nname: Zedish\ncolour: blue\n", encoding="utf-8")
    with pytest.raises(LanguageError, match=r"a\.yaml: colour: unknown field"):
        load_languages([tmp_path])
    (tmp_path / "a.yaml").write_text("code: zz\nname: Zedish\npolarity_words: {tosi: maybe}\n", encoding="utf-8")
    with pytest.raises(LanguageError, match=r"a\.yaml: polarity_words: values must be true or false"):
        load_languages([tmp_path])
    (tmp_path / "a.yaml").write_text(json.dumps({"code": "id", "name": "Again"}), encoding="utf-8")
    with pytest.raises(LanguageError, match=r"a\.yaml: code: language 'id' is already declared in .*id\.yaml"):
        load_languages([languages.BUILTIN_DIR, tmp_path])
    (tmp_path / "a.yaml").write_text("name: Nameless\n", encoding="utf-8")
    with pytest.raises(LanguageError, match=r"a\.yaml: code: missing"):
        load_languages([tmp_path])
