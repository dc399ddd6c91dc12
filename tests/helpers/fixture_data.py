"""A complete data directory of items written for Tanaw's tests, in the layout `evaluator.datasets` reads.

Every loader of the registry gets a file (BHASA, LINDSEA, cultural, PACUTE, SEA-HELM multiple choice) and every prompt pack a stand-in
(`lindsea/<lang>/prompts.yaml`, `seahelm-configs/*.yaml`), so the core tests (pages, runner, resume, Hub, scale,
browser, llama.cpp) run on a fresh clone with nothing beside it. The items are synthetic: short sentences built
from templates, not benchmark data, and their sizes mirror what the tests need (e.g. 40 Indonesian morphology
pairs in four categories of 10, 600 PACUTE hierarchy items with 100 per level). `data_dir()` writes them once per
test process; `write(root)` writes them anywhere.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import yaml

MARK = "fixture"
"""Every native prompt stand-in starts with `[fixture ...]`, so a test can tell it from a real pack."""
BHASA_N = 24
"""Items per BHASA (task, language) file."""
LANGS4 = ("id", "vi", "th", "ta")
WORDS = {  # a few everyday words per language, combined into short sentences
    "id": ("Rumah itu besar", "Makanan ini enak", "Hari ini hujan", "Bukunya baru", "Kopi itu pahit",
           "Pasar sudah ramai"),
    "vi": ("Ngôi nhà rất lớn", "Món ăn này ngon", "Hôm nay trời mưa", "Cuốn sách mới", "Cà phê đắng",
           "Chợ đã đông"),
    "th": ("บ้านหลังนี้ใหญ่", "อาหารนี้อร่อย", "วันนี้ฝนตก", "หนังสือเล่มใหม่", "กาแฟขม", "ตลาดคนเยอะ"),
    "ta": ("வீடு பெரியது", "உணவு சுவையானது", "இன்று மழை", "புத்தகம் புதியது", "காபி கசப்பு", "சந்தை நிறைந்தது"),
}
SENTIMENT = {"id": ("positive", "negative", "neutral"), "vi": ("negative", "neutral", "positive"),
             "th": ("positive", "neutral", "negative"), "ta": ("positive", "negative")}
TOXICITY = {"id": ("Clean", "Abusive", "Hate"), "vi": ("CLEAN", "OFFENSIVE", "HATE"), "th": ("Non-toxic", "Toxic")}
LANG_NAMES = {"id": "Indonesian", "ta": "Tamil"}
FLORES = {"id": "ind_Latn", "vi": "vie_Latn", "th": "tha_Thai", "ta": "tam_Taml"}
THAI_SEARCH_WORD = "อนามัย"
"""Appears in Thai sentiment items 0 and 9 only (the Compare page's search test)."""
THAI_SEARCH_IDS = ("sentiment-th-0", "sentiment-th-9")


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _sentence(lang: str, i: int) -> str:
    words = WORDS[lang]
    return f"{words[i % len(words)]} {i}."


def _bhasa(root: Path) -> None:
    for lang in LANGS4:
        n = range(BHASA_N)
        sents = [_sentence(lang, i) for i in n]
        if lang == "th":
            sents = [f"{s} ซื้อแต่ผ้า{THAI_SEARCH_WORD}" if i in (0, 9) else s for i, s in enumerate(sents)]
        labels = SENTIMENT[lang]
        _jsonl(root / "bhasa/sentiment" / f"{lang}.jsonl",
               [{"id": f"sentiment-{lang}-{i}", "text": sents[i], "label": labels[i % len(labels)],
                 "label_en": labels[i % len(labels)]} for i in n])
        if lang in TOXICITY:
            tox = TOXICITY[lang]
            _jsonl(root / "bhasa/toxicity" / f"{lang}.jsonl",
                   [{"id": f"toxicity-{lang}-{i}", "text": sents[i], "label": tox[i % len(tox)],
                     "label_en": tox[i % len(tox)]} for i in n])
        _jsonl(root / "bhasa/qa" / f"{lang}.jsonl",
               [{"id": f"qa-{lang}-{i}", "title": f"t{i}", "context": f"{sents[i]} Kota{i} ada di sini.",
                 "question": f"Q{i}?", "answers": {"text": [f"Kota{i}"], "answer_start": [len(sents[i]) + 1]}}
                for i in n])
        _jsonl(root / "bhasa/mt" / f"{lang}.jsonl",
               [{"id": f"mt-{lang}-{i}", "source_lang": "eng_Latn", "target_lang": FLORES[lang],
                 "source": f"Sentence number {i} is short.", "target": sents[i]} for i in n])
        _jsonl(root / "bhasa/summarization" / f"{lang}.jsonl",
               [{"id": f"sum-{lang}-{i}", "url": f"https://example.org/{i}", "title": sents[i],
                 "text": " ".join(_sentence(lang, i + k) for k in range(4)), "summary": sents[i]} for i in n])
        nli = ("entailment", "contradiction", "neutral")
        _jsonl(root / "bhasa/nli" / f"{lang}.jsonl",
               [{"id": f"nli-{lang}-{i}", "premise": sents[i], "hypothesis": _sentence(lang, i + 1),
                 "label": nli[i % 3], "label_en": nli[i % 3]} for i in n])
        _jsonl(root / "bhasa/causal" / f"{lang}.jsonl",
               [{"id": f"causal-{lang}-{i}", "idx": i, "premise": sents[i], "choice1": _sentence(lang, i + 1),
                 "choice2": _sentence(lang, i + 2), "question": ("cause", "effect")[i % 2], "label": i % 2,
                 "changed": False, "question_consensus": ("cause", "effect")[i % 2], "question_mismatch": False}
                for i in n])
    for lang in ("id", "th"):
        rows = []
        for i in range(BHASA_N):
            name = f"Nama{i}"
            text = f"{name} {_sentence(lang, i)}"
            rows.append({"id": f"ner-{lang}-{i}", "text": text,
                         "entities": [{"text": name, "type": "PERSON", "start": 0, "end": len(name)}]})
        _jsonl(root / "bhasa/ner" / f"{lang}.jsonl", rows)


MP_FILES = {  # stem -> categories (blocks of 10 items each), per language
    "id": {"morphology": ("prefix_men_on_control_verbs", "prefix_ber_on_nouns", "suffix_kan_benefactive",
                          "suffix_i_locative"),
           "argument_structure": ("dative_without_preposition",), "filler-gap_dependencies": ("relative_clauses",),
           "NPIs_and_negation": ("bukan_versus_tidak",)},
    "ta": {"morphology": ("case_suffixes", "verb_agreement", "plural_marking"),
           "argument_structure": ("causatives",), "filler-gap_dependencies": ("relative_participles",),
           "NPIs_and_negation": ("negative_verbs",)},
}


def _lindsea(root: Path) -> None:
    for lang, files in MP_FILES.items():
        base = root / "lindsea" / lang
        for stem, categories in files.items():
            rows = [{"id": k * 10 + j, "linguistic_phenomenon": stem, "category": cat, "subcategory": "",
                     "correct": f"{_sentence(lang, k * 10 + j)} (benar)",
                     "wrong": f"{_sentence(lang, k * 10 + j)} (salah)"}
                    for k, cat in enumerate(categories) for j in range(10)]
            _jsonl(base / "syntax" / f"{stem}.jsonl", rows)
        _jsonl(base / "pragmatics/pragmatic_reasoning_pair.jsonl",
               [{"id": i, "linguistic_phenomenon": "presuppositions",
                 "category": ("change_of_state", "factives")[i % 2],
                 "text": _sentence(lang, i), "conclusion": _sentence(lang, i + 1),
                 "label": ("True", "False")[i % 2]} for i in range(24)])
        _jsonl(base / "pragmatics/pragmatic_reasoning_single.jsonl",
               [{"id": i, "linguistic_phenomenon": "scalar_implicatures", "category": "quantifiers",
                 "lexical_item": "some/all", "text": _sentence(lang, i), "question": "true or false",
                 "question_translated": "benar atau salah", "choices": "True or False",
                 "choices_translated": "Benar atau Salah", "label": ("True", "False")[i % 2]} for i in range(12)])
        _jsonl(base / "semantics/coref_binary_choice.jsonl",
               [{"id": i, "linguistic_phenomenon": "coreference", "category": "binding", "text": _sentence(lang, i),
                 "choice1": "X", "choice2": "Y", "label": "AB"[i % 2]} for i in range(12)])
        _jsonl(base / "semantics/coref_open_ended.jsonl",
               [{"id": i, "linguistic_phenomenon": "coreference", "category": "binding", "text": _sentence(lang, i),
                 "question": "who is it", "question_translated": "siapa itu", "label": f"Nama{i}"}
                for i in range(12)])
        _jsonl(base / "semantics/translation.jsonl",
               [{"id": i, "category": "lexical", "text": _sentence(lang, i), "reference": f"Sentence {i}.",
                 "target_language": "English", "target_language_translated": "Inggris"} for i in range(12)])
        if lang == "id":
            _jsonl(base / "semantics/coref_pronoun_resolution.jsonl",
                   [{"id": i, "linguistic_phenomenon": "coreference", "category": "pronouns",
                     "text": _sentence(lang, i), "label": f"Nama{i}"} for i in range(12)])
        (base / "prompts.yaml").write_text(yaml.safe_dump(_lindsea_pack(lang), allow_unicode=True), "utf-8")


def _lindsea_pack(lang: str) -> dict:
    """A stand-in LINDSEA prompt pack with the placeholders of the real one (its own wording)."""
    def pair(en: str, native: str) -> dict:
        return {"en": {"system": f"You are an {LANG_NAMES[lang]} linguist", "human": en},
                "translated": {"system": f"[{MARK} {lang}] linguist", "human": f"[{MARK} {lang}] {native}"}}
    return {
        "syntax": {"minimal_pairs": pair("Which sentence is acceptable?\nA: {correct}\nB: {wrong}\nAnswer A or B.",
                                         "A: {correct}\nB: {wrong}\nA/B?")},
        "semantics": {
            "translation": pair("Translate into {target_language}: {text}", "{target_language_translated}: {text}"),
            "coref_pronoun_resolution": pair("Who is meant in: {text}", "{text}"),
            "coref_open_ended": pair("In '{text}', {question}?", "'{text}', {question_translated}?"),
            "coref_binary_choice": pair("{text}\nA: {choice1}\nB: {choice2}\nAnswer A or B.",
                                        "{text}\nA: {choice1}\nB: {choice2}"),
        },
        "pragmatics": {
            "pragmatic_reasoning_single": pair("Is this {question}? {text}\nAnswer {choices}.",
                                               "{question_translated}? {text} ({choices_translated})"),
            "pragmatic_reasoning_pair": pair("Situation: {text}\nStatement: {conclusion}\nTrue or False?",
                                             "{text}\n{conclusion}\nTrue/False?"),
        },
    }


CULTURAL = {
    "id": [("language", "proverbs", "Air beriak tanda tak dalam"), ("food", "dishes", "rendang"),
           ("arts", "music", "angklung"), ("language", "proverbs", "Bersatu kita teguh"),
           ("customs", "greetings", "salim")],
    "ta": [("language", "proverbs", "ஒற்றுமையே பலம்"), ("language", "proverbs", "கற்றது கைமண் அளவு"),
           ("language", "proverbs", "சிறு துளி பெரு வெள்ளம்"), ("food", "dishes", "பொங்கல்"),
           ("arts", "music", "நாதஸ்வரம்")],
}
"""(aspect, category, target) of each probe; the prompt asks what the target means."""
CULTURAL_PROMPT = {"id": "Apa arti '{target}'?", "ta": "{target} என்பதன் பொருள் என்ன?"}


def _cultural(root: Path) -> None:
    for lang, probes in CULTURAL.items():
        _jsonl(root / "cultural" / lang / "cultural_representation.jsonl",
               [{"id": i, "aspect": a, "category": c, "target": t, "prompt": CULTURAL_PROMPT[lang],
                 "follow_up_prompt": None} for i, (a, c, t) in enumerate(probes)])


WORDS_TL = ("kain", "bahay", "aral", "inom", "lakad", "sulat", "basa", "tawa", "kanta", "luto")


def _mcq_prompt(i: int, word: str) -> dict:
    options = [f"um{word}", word, f"in{word}", f"ka{word}"]
    shift = i % 4
    order = options[shift:] + options[:shift]
    return {"text_en": f"Which option has the prefix um- ({i})?", "text_tl": f"Alin ang may laping um- ({i})?",
            "mcq_options": {"correct": options[0], "incorrect1": options[1], "incorrect2": options[2],
                            "incorrect3": options[3]},
            **{f"choice{k + 1}": o for k, o in enumerate(order)}}


def _pacute(root: Path) -> None:
    bench = root / "pacute" / "benchmarks"
    for data in ("affixation", "composition", "manipulation", "morphological_extraction", "morphological_production",
                 "syllabification"):
        ids = data not in ("composition", "manipulation")  # as upstream main: these two files have no ids
        mcq, gen = [], []
        for i in range(24):
            word = WORDS_TL[i % len(WORDS_TL)]
            prompt = _mcq_prompt(i, word)
            label = "ABCD"[[prompt[f"choice{k}"] for k in range(1, 5)].index(f"um{word}")]
            mcq.append({"category": data, "subcategory": "prefix", "prompts": [prompt], "label": label,
                        **({"id": f"{data}_mcq_{i:05d}"} if ids else {})})
            gen.append({"category": data, "subcategory": "prefix",
                        "prompts": [{"text_en": f"Add um- to '{word}' ({i}).",
                                     "text_tl": f"Lagyan ng um- ang '{word}' ({i})."}],
                        "label": f"um{word}", **({"id": f"{data}_gen_{i:05d}"} if ids else {})})
        _jsonl(bench / f"{data}_mcq.jsonl", mcq)
        _jsonl(bench / f"{data}_gen.jsonl", gen)
    for fmt in ("mcq", "gen"):
        rows = []
        for i in range(600):  # 100 per level; answers are numbers, so a wrong word never contains them
            level, word = i // 100, WORDS_TL[i % len(WORDS_TL)] * (1 + i % 3)
            answer = str(len(word) + level)
            row = {"level": level, "category": f"level{level}", "subcategory": "letter_count",
                   "prompt_en": f"How many letters has '{word}', plus {level}?",
                   "prompt_tl": f"Ilang titik mayroon ang '{word}', dagdagan ng {level}?", "answer": answer,
                   "word": word, "metadata": {"plus": level}, "id": f"hierarchical_{fmt}_{i:05d}"}
            if fmt == "mcq":
                others = [str(int(answer) + d) for d in (1, 2, 3)]
                row["options"] = [answer, *others] if i % 2 else [*others[:1], answer, *others[1:]]
            rows.append(row)
        _jsonl(bench / f"hierarchical_{fmt}.jsonl", rows)
    for data in ("langgame", "multi_digit_addition"):
        for fmt in ("mcq", "gen"):
            rows = []
            for i in range(24):
                if data == "langgame":
                    q, a, opts = f"Which word contains '{WORDS_TL[i % 10][0]}'? ({i})", f" {WORDS_TL[i % 10]}", \
                        [f" {WORDS_TL[i % 10]}", " zzz", " qqq", " xxx"]
                else:
                    q, a = f"What is {100 + i} + {200 + i}?", str(300 + 2 * i)
                    opts = [a, str(301 + 2 * i), str(299 + 2 * i), str(310 + 2 * i)]
                rows.append({"question": q, "answer": a, **({"options": opts} if fmt == "mcq" else {}),
                             "id": f"{data}_{fmt}_{i:05d}"})
            _jsonl(bench / f"{data}_{fmt}.jsonl", rows)
    _jsonl(bench / "cute_gen.jsonl",
           [{"question": f"Spell '{WORDS_TL[i % 10]}' with spaces ({i}).", "answer": " ".join(WORDS_TL[i % 10]),
             "task_type": ("spell", "reverse")[i % 2], "id": f"cute_gen_{i:05d}"} for i in range(24)])


SEAHELM_MCQ_N = 8
"""Items per SEA-HELM multiple-choice (task, language) file, in SEA-HELM's own layout."""


def _seahelm_mcq(root: Path) -> None:
    """SEA-HELM-layout files for Belebele, Global-MMLU-Lite, Kalahi and the ThaiExam exams: numbered questions
    whose gold letter cycles through the options."""
    from evaluator.datasets.seahelm_mcq import THAI_EXAMS

    n = range(SEAHELM_MCQ_N)
    for lang in ("tl", "ms", "my"):
        _jsonl(root / "seahelm" / "belebele" / f"{lang}.jsonl",
               [{"id": i, "label": i % 4, "prompts": [{"text": f"Passage {i}.", "question": f"Question {i}?",
                                                       **{f"choice{k}": f"Option {k} of {i}" for k in range(1, 5)}}]}
                for i in n])
    for lang in ("id", "vi", "tl", "ms", "my"):
        _jsonl(root / "seahelm" / "global-mmlu-lite" / f"{lang}.jsonl",
               [{"id": i, "label": "ABCD"[i % 4],
                 "metadata": {"cultural_sensitivity_label": ("CS", "CA")[i % 2], "subject_category": "STEM",
                              "subject": "astronomy"},
                 "prompts": [{"question": f"Question {i}?", **{f"option_{k}": f"Option {k} of {i}" for k in "abcd"}}]}
                for i in n])
    _jsonl(root / "seahelm" / "kalahi" / "tl.jsonl",
           [{"id": i, "label": "ABCD"[i % 4], "metadata": {"category": "ethics", "topic": "social etiquette"},
             "prompts": [{"question": f"Sitwasyon {i}.", "mcq": "\n".join(f"{k}: Sagot {k} {i}" for k in "ABCD")}]}
            for i in n])
    for exam in THAI_EXAMS:
        letters = "abcd" if exam == "ic" else "abcde"
        _jsonl(root / "seahelm" / "thai-exam" / f"{exam}.jsonl",
               [{"id": i, "label": letters[i % len(letters)].upper(), "metadata": {"subject": exam},
                 "prompts": [{"question": f"คำถาม {i}", **{k: f"ตัวเลือก {k} {i}" for k in letters}}]} for i in n])


def _seahelm_packs(root: Path) -> None:
    """Stand-in SEA-HELM configs: per language, `[fixture <lang>]` + the task's English template."""
    from evaluator.registry import TASKS

    packs: dict[str, dict] = {}
    for task in TASKS.values():
        if not (task.native_pack or "").startswith("seahelm:") or task.prompt_en is None:
            continue
        _, file, key = task.native_pack.split(":")
        langs = {lang: {"max_tokens": task.max_tokens,
                        "prompt_template": {"template": f"[{MARK} {lang}] {task.prompt_en.user}"}}
                 for lang in task.langs}
        packs.setdefault(file, {})[key] = {"name": key, "languages": langs}
    for file, body in packs.items():
        path = root / "seahelm-configs" / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(body, allow_unicode=True, sort_keys=False), "utf-8")


def write(root: Path) -> Path:
    """Write the whole fixture data directory under `root`; returns `root`."""
    root = Path(root)
    _bhasa(root)
    _lindsea(root)
    _cultural(root)
    _pacute(root)
    _seahelm_mcq(root)
    _seahelm_packs(root)
    (root / "README.md").write_text("Synthetic items written for Tanaw's tests (tests/helpers/fixture_data.py).\n", "utf-8")
    return root


_BUILT: list[Path] = []
SHARED_ENV = "TANAW_TEST_FIXTURE_DATA"
"""Set by the process that wrote the folder, so the Python subprocesses it starts read it instead of writing their
own copy."""


def data_dir() -> Path:
    """The fixture data directory: written once per test run in a temporary folder that the writing process removes
    when it exits; its subprocesses reuse it."""
    if not _BUILT:
        shared = os.environ.get(SHARED_ENV)
        if shared and (Path(shared) / "README.md").is_file():
            _BUILT.append(Path(shared))
        else:
            root = Path(tempfile.mkdtemp(prefix="tanaw-fixture-data-"))
            atexit.register(shutil.rmtree, root, ignore_errors=True)
            os.environ[SHARED_ENV] = str(root)
            _BUILT.append(write(root))
    return _BUILT[0]
