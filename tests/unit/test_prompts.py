"""Prompt rendering: paper templates in English, prompt packs in the native language, option-order swaps."""
import pytest
import yaml

from evaluator.datasets import available_cells, load_items
from evaluator.prompts import NoNativePrompt, PromptError, available_prompt_langs, fill, messages, render
from evaluator.registry import TASKS, get_task


def test_every_available_cell_renders_three_items_in_every_prompt_language(shared_data):
    rendered = 0
    for task_name, lang in available_cells(shared_data):
        task = TASKS[task_name]
        for item in load_items(task, lang, data_dir=shared_data, limit=3):
            for pl in ("en", "native"):
                for order in (("ab", "ba") if task.both_orders else ("ab",)):
                    try:
                        r = render(task, item, pl, order, data_dir=shared_data)
                    except NoNativePrompt:
                        continue
                    assert r.user.strip() and "{" + "text}" not in r.user
                    rendered += 1
    assert rendered > 200


def test_english_causal_prompt_is_the_papers_table_10(shared_data):
    item = load_items("causal", "id", data_dir=shared_data, limit=1)[0]
    r = render(get_task("causal"), item, "en", data_dir=shared_data)
    assert r.user.startswith(f"Situation: {item.inputs['premise']}\nGiven this situation, which of the following")
    assert r.user.endswith("Respond strictly with the letters A or B only.")
    assert f"A: {item.inputs['choice1']}\nB: {item.inputs['choice2']}" in r.user and r.gold == item.gold


def test_order_ba_swaps_options_and_flips_gold(shared_data):
    task = get_task("lindsea-mp")
    item = load_items(task, "id", data_dir=shared_data, limit=1)[0]
    ab, ba = render(task, item, "en", "ab", data_dir=shared_data), render(task, item, "en", "ba", data_dir=shared_data)
    assert (ab.gold, ba.gold) == ("A", "B")
    assert f"A: {item.inputs['wrong']}\nB: {item.inputs['correct']}" in ba.user
    assert ab.system == "You are an Indonesian linguist"  # LINDSEA's own pack, English variant


def test_native_prompt_comes_from_the_seahelm_pack(shared_data):
    item = load_items("sentiment", "th", data_dir=shared_data, limit=1)[0]
    r = render(get_task("sentiment"), item, "native", data_dir=shared_data)
    cfg = yaml.safe_load((shared_data / "seahelm-configs" / "nlu_sentiment_analysis.yaml").read_text("utf-8"))
    template = cfg["sentiment"]["languages"]["th"]["prompt_template"]["template"]
    assert r.user == template.replace("{fewshot_examples}", "").replace("{text}", item.inputs["text"])
    assert r.source.endswith("nlu_sentiment_analysis.yaml#sentiment.th")


def test_native_lindsea_prompt_and_system_message(shared_data):
    item = load_items("lindsea-pragmatic-pair", "ta", data_dir=shared_data, limit=1)[0]
    r = render(get_task("lindsea-pragmatic-pair"), item, "native", data_dir=shared_data)
    pack = yaml.safe_load((shared_data / "lindsea" / "ta" / "prompts.yaml").read_text("utf-8"))
    entry = pack["pragmatics"]["pragmatic_reasoning_pair"]["translated"]
    assert r.system == entry["system"]
    assert messages(r)[0] == {"role": "system", "content": entry["system"]}
    assert messages(r, system_supported=False)[0]["content"].startswith(entry["system"] + "\n\n")


def test_cells_without_a_native_prompt_say_so(shared_data):
    item = load_items("ner", "id", data_dir=shared_data, limit=1)[0]
    with pytest.raises(NoNativePrompt, match="no native prompt pack"):
        render(get_task("ner"), item, "native", data_dir=shared_data)
    assert available_prompt_langs(get_task("ner"), "id", shared_data)["native"].startswith("unavailable")
    control = load_items("pacute-langgame-gen", "tl", data_dir=shared_data, limit=1)[0]
    with pytest.raises(NoNativePrompt):
        render(get_task("pacute-langgame-gen"), control, "native", data_dir=shared_data)
    cultural = load_items("cultural-representation", "ta", data_dir=shared_data, limit=1)[0]
    with pytest.raises(NoNativePrompt, match="native language only"):
        render(get_task("cultural-representation"), cultural, "en", data_dir=shared_data)
    assert render(get_task("cultural-representation"), cultural, "native", data_dir=shared_data).user == \
        cultural.inputs["prompt"]


def test_native_causal_uses_the_native_cause_word(shared_data):
    item = next(i for i in load_items("causal", "id", data_dir=shared_data) if i.inputs["question"] == "cause")
    assert "sebab" in render(get_task("causal"), item, "native", data_dir=shared_data).user


def test_fill_leaves_other_braces_and_names_missing_fields():
    assert fill("A {x} $OPTION {not a field} {{y}}", {"x": 1}) == "A 1 $OPTION {not a field} {y}"
    with pytest.raises(PromptError, match="needs field 'y'"):
        fill("{y}", {}, where="t/l/1")
