"""SEA-HELM's added languages for the BHASA tasks: Filipino (tl), Malay (ms), Burmese (my).

The registry lists every (task, language) pair SEA-HELM scores in them; Filipino items from a few real lines of
SEA-HELM's own files (tests/fixtures/sea_languages, source commit and licences in its README) go through the same
converters `data pull` runs, the item readers, `ingest` and the leaderboard, with values worked out by hand or by the
reference library. Malay and Burmese have no real items here (Hub-only, no pinned revision): their language entries
are checked through SEA-HELM's native prompts and answer words instead.

The CLI steps run in subprocesses with `TANAW_DATA_DIR` set, since the registry is read once per process.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.datasets.pull.convert import CONVERTERS
from evaluator.datasets.pull.sources import load_table
from tests.helpers.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "sea_languages"

NEW_PAIRS = {
    "sentiment": {"tl", "ms", "my"},
    "toxicity": {"tl", "ms", "my"},
    "translation-en-xx": {"tl", "ms", "my"},
    "translation-xx-en": {"tl", "ms", "my"},
    "abssum": {"tl", "my"},
    "nli": {"tl", "my"},
    "causal": {"tl", "my"},
}
"""SEA-HELM's table (aisingapore/SEA-HELM@6844e6c, seahelm_tasks/task_config.yaml): the BHASA task types it scores
in Filipino, Malay and Burmese."""


def sh(env, *args, code: str | None = None) -> str:
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "evaluator", *args]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def tl_data(tmp_path_factory):
    """A data folder made from the fixture lines by the `data pull` converters of the Filipino sources."""
    tmp = tmp_path_factory.mktemp("sea_languages")
    data = tmp / "data"
    by_file = {p.name: p for p in (FIXTURE / "tl").glob("*.jsonl")}
    for source in load_table().sources:
        if source.lang == "tl" and source.host == "github" and Path(source.paths[0]).name in by_file:
            out = data / source.target
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(CONVERTERS[source.convert]([by_file[Path(source.paths[0]).name].read_bytes()], "tl"))
    env = {**os.environ, "TANAW_DATA_DIR": str(data), "TANAW_DB": str(tmp / "tanaw.duckdb"),
           "HOME": str(tmp / "home")}
    env.pop("TANAW_LANGUAGES_DIR", None)
    return tmp, data, env


def test_tasks_lists_the_new_language_pairs(tl_data):
    _tmp, _data, env = tl_data
    tasks = {r["task"]: r for r in json.loads(sh(env, "tasks", "--json"))}
    for task, langs in NEW_PAIRS.items():
        assert langs <= set(tasks[task]["langs"]), task
    # beside them, SEA-HELM's multiple-choice tasks (tests/integration/test_seahelm_mcq.py) and its paraphrase task
    # (tests/integration/test_seahelm_nlu_tasks.py)
    mcq = {"belebele", "global-mmlu-lite"}
    assert {t for t, r in tasks.items() if "ms" in r["langs"]} == {
        t for t, ls in NEW_PAIRS.items() if "ms" in ls} | mcq
    assert {t for t, r in tasks.items() if "my" in r["langs"]} == {
        t for t, ls in NEW_PAIRS.items() if "my" in ls} | mcq | {"paraphrase"}
    assert tasks["toxicity"]["chance"]["my"] == 0.5 and tasks["sentiment"]["chance"]["ms"] == pytest.approx(1 / 3)


def test_every_new_pair_has_a_pull_source_or_says_why_not():
    table = load_table()
    by_name = {s.name: s for s in table.sources}
    folder = {"sentiment": "sentiment", "toxicity": "toxicity", "translation-en-xx": "mt", "translation-xx-en": "mt",
              "abssum": "summarization", "nli": "nli", "causal": "causal"}
    for task, langs in NEW_PAIRS.items():
        for lang in langs:
            s = by_name[f"{folder[task]}-{lang}"]
            if lang == "tl":
                assert s.host == "github" and s.commit.startswith("360c7cc") and s.licence
                assert all(table.lock[s.key(p)].verified for p in s.inputs)
            else:
                assert s.host == "unavailable" and "no revision or checksum is pinned" in s.reason
                assert "aisingapore/" in s.reason and s.licence


def test_filipino_items_score_through_ingest_and_the_board(tl_data):
    tmp, _data, env = tl_data
    items = {}
    for task in ("sentiment", "toxicity", "causal", "translation-en-xx"):
        rows = [json.loads(line) for line in sh(env, "items", "--task", task, "--lang", "tl", "--json").splitlines()]
        items[task] = {(r["item_id"], r.get("order", "ab")): r["gold"] for r in rows}
    assert items["sentiment"] == {("batayan-tl-1", "ab"): "neutral", ("batayan-tl-3", "ab"): "negative",
                                  ("batayan-tl-4", "ab"): "positive"}
    assert items["toxicity"] == {("batayan-tl-1", "ab"): "clean", ("batayan-tl-3", "ab"): "hate"}
    # label 0 → A in the file's order, and the swapped order flips it
    assert {k: v for k, v in items["causal"].items() if k[1] == "ab"} == {
        ("balanced-copa-tl-1", "ab"): "A", ("balanced-copa-tl-2", "ab"): "A",
        ("balanced-copa-tl-3", "ab"): "B", ("balanced-copa-tl-6", "ab"): "B"}
    assert items["causal"][("balanced-copa-tl-1", "ba")] == "B"
    mt_refs = [items["translation-en-xx"][(f"flores200-devtest-{i}", "ab")] for i in (0, 1)]
    assert mt_refs[0].startswith("Ang mga unang kaso ng sakit")

    def pred(task, item_id, out, order="ab"):
        return {"task": task, "lang": "tl", "item_id": item_id, "prompt_lang": "native", "order": order,
                "prediction": out}
    preds = [pred("sentiment", "batayan-tl-1", "Sagot: Neutral"),     # right
             pred("sentiment", "batayan-tl-3", "Sagot: Neutral"),     # wrong (negative)
             pred("sentiment", "batayan-tl-4", "Sagot: Positibo"),    # right
             pred("toxicity", "batayan-tl-1", "Sagot: Malinis"),      # right
             pred("toxicity", "batayan-tl-3", "Sagot: Malinis"),      # wrong (Mapoot)
             pred("causal", "balanced-copa-tl-1", "Sagot: A"), pred("causal", "balanced-copa-tl-2", "Sagot: A"),
             pred("causal", "balanced-copa-tl-3", "Sagot: A"), pred("causal", "balanced-copa-tl-6", "Sagot: B"),
             pred("translation-en-xx", "flores200-devtest-0", "Salin: " + mt_refs[0]),
             pred("translation-en-xx", "flores200-devtest-1", "Salin: Umaapaw ang tubig sa dike.")]
    path = tmp / "tl.jsonl"
    path.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in preds) + "\n", encoding="utf-8")
    assert "imported 11 predictions" in sh(env, "ingest", str(path), "--model", "Tl-1")

    board = {(r["task"], r["lang"]): r for r in json.loads(sh(env, "leaderboard", "--json"))}
    # macro F1 by hand: positive 1, negative 0 (never predicted), neutral P 1/2 R 1 → 2/3; mean 5/9
    assert board[("sentiment", "tl")]["value"] == pytest.approx(100 * 5 / 9, abs=0.01)
    # clean P 1/2 R 1 → 2/3, hate 0; mean 1/3
    assert board[("toxicity", "tl")]["value"] == pytest.approx(100 / 3, abs=0.01)
    assert board[("causal", "tl")]["value"] == pytest.approx(75.0)  # 3 of 4
    from sacrebleu.metrics import CHRF
    ref = CHRF(word_order=2).corpus_score([mt_refs[0], "Umaapaw ang tubig sa dike."], [mt_refs]).score
    assert board[("translation-en-xx", "tl")]["value"] == pytest.approx(ref, abs=0.01)
    assert 50 < ref < 100


@pytest.mark.needs_samples
def test_filipino_native_prompts_are_seahelms(tl_data):
    """SEA-HELM's `tl` templates, from the task configs `data pull` copies (`seahelm-prompts`)."""
    _tmp, data, env = tl_data
    (data / "seahelm-configs").mkdir(exist_ok=True)
    for f in ("nlu_sentiment_analysis.yaml", "safety_toxicity_detection.yaml", "nlr_causal.yaml"):
        (data / "seahelm-configs" / f).write_bytes((SAMPLES / "seahelm-configs" / f).read_bytes())
    rows = {t: json.loads(sh(env, "items", "--task", t, "--lang", "tl", "--json").splitlines()[0])
            for t in ("sentiment", "toxicity", "causal")}
    assert rows["sentiment"]["prompt_native"].startswith("Ano ang sentimyento sa sumusunod na pangungusap?")
    assert "Malinis: Walang toxicity." in rows["toxicity"]["prompt_native"]
    assert "mas maaari na sanhi?" in rows["causal"]["prompt_native"]  # `question_translated` from the entry
    assert "Clean: No toxicity." in rows["toxicity"]["prompt_en"]


@pytest.mark.parametrize("task,file", [("nli", "nli"), ("abssum", "summarization")])
def test_filipino_non_commercial_sets_read_from_a_pulled_copy(task, file):
    """No excerpt of the non-commercial Filipino XNLI / XL-Sum ships in the repository; a pulled copy is read."""
    path = SAMPLES / "bhasa" / file / "tl.jsonl"
    if not path.is_file():
        pytest.skip(f"non-commercial licence: no excerpt in the repository, and no pulled copy at {path}")
    from evaluator.datasets import load_items
    from evaluator.registry import get_task
    items = list(load_items(get_task(task), "tl", data_dir=SAMPLES))
    assert len(items) == {"nli": 600, "abssum": 100}[task]


@pytest.mark.skip(reason="SEA-HELM's Malay and Burmese items for these tasks are only on the Hugging Face Hub "
                         "(aisingapore/*) with no pinned revision, and the Hub is unreachable here: no real sample")
def test_malay_and_burmese_real_items():
    """Placeholder for a fidelity test on real Malay and Burmese items, once a pinned copy can be fetched."""


NATIVE_SCRIPT = r"""
import json
from evaluator.extract import EXTRACTORS
from evaluator.prompts import render
from evaluator.registry import get_task
from evaluator.spec import Item

out = {}
for lang, task, text in [("ms", "sentiment", "T"), ("my", "sentiment", "T"), ("ms", "toxicity", "T"),
                         ("my", "toxicity", "T"), ("my", "abssum", "T"), ("ms", "translation-en-xx", "T")]:
    item = Item(task=task, lang=lang, item_id="0", inputs={"text": text}, gold="positive")
    out[f"{lang}/{task}"] = render(get_task(task), item, "native").user
for lang, task in (("my", "nli"), ("my", "causal")):
    try:
        render(get_task(task), Item(task=task, lang=lang, item_id="0", inputs={"sentence1": "P", "sentence2": "H"},
                                    gold="A"), "native")
        out[f"{lang}/{task}"] = "rendered"
    except LookupError as e:
        out[f"{lang}/{task}"] = type(e).__name__
answers = {}
for lang, task, raw in [("ms", "sentiment", "Jawapan: Positif"), ("ms", "sentiment", "Jawapan: Netral"),
                        ("ms", "sentiment", "Jawapan: bukan positif"), ("ms", "toxicity", "Jawapan: Benci"),
                        ("my", "sentiment", "အဖြေ- အပျက်သဘော"), ("my", "sentiment", "အဖြေ- ကြားနေ"),
                        ("my", "toxicity", "အဖြေ- သန့်ရှင်း"), ("my", "toxicity", "အဖြေ- မုန်းတီးမှု"),
                        ("tl", "toxicity", "Sagot: Mapoot")]:
    t = get_task(task)
    item = Item(task=task, lang=lang, item_id="0", inputs={}, gold="x")
    answers[f"{lang}|{raw}"] = EXTRACTORS[t.extractor](raw, task=t, lang=lang, item=item).answer
print(json.dumps({"prompts": out, "answers": answers}, ensure_ascii=False))
"""


def test_malay_and_burmese_prompts_and_answer_words_are_seahelms(tmp_path):
    env = {**os.environ, "TANAW_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)}
    env.pop("TANAW_LANGUAGES_DIR", None)
    got = json.loads(sh(env, code=NATIVE_SCRIPT))
    p = got["prompts"]
    # SEA-HELM @ 6844e6c: preamble with its answer tag, a blank line, the task template
    assert p["ms/sentiment"].startswith("Apakah sentimen ayat berikut? Gunakan salah satu pilihan di bawah: "
                                        "Positif, Negatif, atau Netral.")
    assert '"Jawapan: ANSWER"' in p["ms/sentiment"] and p["ms/sentiment"].endswith("Ayat:\n```\nT\n```")
    assert "Bersih atau Benci" in p["ms/toxicity"]
    assert p["ms/translation-en-xx"].startswith("Terjemahkan teks berikut ke dalam Bahasa Melayu.")
    assert "အပြုသဘော, အပျက်သဘော, သို့မဟုတ် ကြားနေ" in p["my/sentiment"]
    assert '"အဖြေ- ANSWER"' in p["my/sentiment"] and p["my/sentiment"].endswith("ဝါကျ-\n```\nT\n```")
    assert "သန့်ရှင်း သို့မဟုတ်" in p["my/toxicity"]
    assert '"အကျဉ်းချုပ်- SUMMARY"' in p["my/abssum"]
    # Burmese letters (က/ခ/ဂ) are read as A/B/C, so NLI is asked natively; causal needs the Burmese cause/effect
    # words of SEA-HELM's Hub-only items, so it is still asked in English only
    assert p["my/nli"] == "rendered" and p["my/causal"] == "NoNativePrompt"
    assert got["answers"] == {
        "ms|Jawapan: Positif": "positive", "ms|Jawapan: Netral": "neutral", "ms|Jawapan: bukan positif": None,
        "ms|Jawapan: Benci": "hate", "my|အဖြေ- အပျက်သဘော": "negative", "my|အဖြေ- ကြားနေ": "neutral",
        "my|အဖြေ- သန့်ရှင်း": "clean", "my|အဖြေ- မုန်းတီးမှု": "hate", "tl|Sagot: Mapoot": "hate"}
