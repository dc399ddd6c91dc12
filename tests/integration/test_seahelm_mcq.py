"""SEA-HELM's multiple-choice tasks: Belebele, Global-MMLU-Lite, ThaiExam and Kalahi, end to end.

A few real lines of SEA-HELM's own files (tests/fixtures/seahelm_mcq, source commits and licences in its README) are
laid out as `data pull` writes them (the `copy` targets of their sources), then read through the CLI (`tasks`,
`items`), ingested as a native result file and scored on the CLI's leaderboard. Every value is worked out by hand
from SEA-HELM's metric (src/metrics/f1_acc_metric.py @ 6844e6c, `F1AccMetric.calculate_metrics`): its `accuracy` is
scikit-learn's balanced accuracy over the gold letters (an unparsed answer is the label "null", never a gold), its
`normalized_accuracy` that value normalised by 1/K, K the number of distinct gold letters. Tests that need SEA-HELM's
whole files or its task configs read them from the bare mirror of aisingapore/SEA-HELM when it is on this machine.

The CLI steps run in subprocesses with `TANAW_DATA_DIR` set, since the registry is read once per process.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from evaluator.datasets.pull.sources import load_table

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "seahelm_mcq"
MIRROR = Path("/work/.mirror/aisingapore+SEA-HELM/repo")

NEW_PAIRS = {
    "belebele": {"tl", "ms", "my"},
    "global-mmlu-lite": {"id", "vi", "tl", "ms", "my"},
    "kalahi": {"tl"},
    **{f"thaiexam-{exam}": {"th"} for exam in ("a-level", "ic", "onet", "tgat", "tpat1")},
}
"""SEA-HELM's table (aisingapore/SEA-HELM@6844e6c, seahelm_tasks/task_config.yaml `seahelm`): the languages it
scores each of these tasks in."""


def sh(env, *args) -> str:
    done = subprocess.run([sys.executable, "-m", "evaluator", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def mirror_blob(commit: str, path: str) -> bytes:
    """A file of SEA-HELM at `commit` from the bare mirror; skips the test when the mirror is not here."""
    if not MIRROR.is_dir():
        pytest.skip(f"no mirror of aisingapore/SEA-HELM at {MIRROR}")
    return subprocess.run(["git", "-C", str(MIRROR), "show", f"{commit}:{path}"], capture_output=True,
                          check=True).stdout


def sources() -> dict:
    return {s.name: s for s in load_table().sources if s.family == "seahelm"}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A data folder holding the fixture lines at the paths `data pull` copies their files to."""
    tmp = tmp_path_factory.mktemp("seahelm_mcq")
    data = tmp / "data"
    for source in sources().values():
        for src, target in source.files:
            fixture = FIXTURE / Path(src).name
            if fixture.is_file():
                (data / target).parent.mkdir(parents=True, exist_ok=True)
                (data / target).write_bytes(fixture.read_bytes())
    env = {**os.environ, "TANAW_DATA_DIR": str(data), "TANAW_DB": str(tmp / "tanaw.duckdb"),
           "HOME": str(tmp / "home")}
    env.pop("TANAW_LANGUAGES_DIR", None)
    return env


def items(env, task: str, lang: str) -> list[dict]:
    return [json.loads(line) for line in sh(env, "items", "--task", task, "--lang", lang, "--json").splitlines()]


def ingest(env, tmp: Path, model: str, preds: list[tuple]) -> dict:
    """Ingest (task, lang, item_id, prompt_lang, output) rows as a native result file; the board's rows by cell."""
    path = tmp / f"{model}.jsonl"
    path.write_text("".join(json.dumps({"task": t, "lang": lang, "item_id": i, "prompt_lang": pl, "prediction": o},
                                       ensure_ascii=False) + "\n" for t, lang, i, pl, o in preds), encoding="utf-8")
    assert f"imported {len(preds)} predictions" in sh(env, "ingest", str(path), "--model", model)
    return {(r["task"], r["lang"], r["prompt_lang"]): r
            for r in json.loads(sh(env, "leaderboard", "--json", "--family", "seahelm")) if r["model"] == model}


def test_tasks_lists_every_new_pair(env):
    tasks = {r["task"]: r for r in json.loads(sh(env, "tasks", "--json"))}
    for task, langs in NEW_PAIRS.items():
        assert set(tasks[task]["langs"]) == langs, task
        assert tasks[task]["family"] == "seahelm"
    assert tasks["belebele"]["chance"] == {"tl": 0.25, "ms": 0.25, "my": 0.25}
    assert "belebele-qa-mc" in tasks["belebele"]["aliases"]


def test_every_source_is_pinned_with_a_verified_checksum():
    table = load_table()
    for name, s in sources().items():
        assert s.host == "github" and s.repo == "aisingapore/SEA-HELM" and len(s.commit) == 40 and s.licence, name
        for path in s.inputs:
            entry = table.lock[s.key(path)]
            assert entry.verified and entry.size and len(entry.sha256) == 64, (name, path)
    assert {"belebele-tl", "belebele-ms", "belebele-my", "seahelm-prompts-mcq"} <= set(sources())
    assert {f"global-mmlu-lite-{lang}" for lang in NEW_PAIRS["global-mmlu-lite"]} <= set(sources())
    assert "kalahi-tl" in sources()
    assert {f"thaiexam-{exam}" for exam in ("a-level", "ic", "onet", "tgat", "tpat1")} <= set(sources())


def test_locked_checksums_are_those_of_seahelms_files():
    """Each lock entry equals SEA-HELM's own file at the pinned commit (read from the mirror), and every fixture
    file is that file's first lines byte for byte."""
    table = load_table()
    for s in sources().values():
        for src, _target in s.files:
            blob = mirror_blob(s.commit, src)
            entry = table.lock[s.key(src)]
            assert (len(blob), hashlib.sha256(blob).hexdigest()) == (entry.size, entry.sha256), src
            fixture = FIXTURE / Path(src).name
            if fixture.is_file():
                assert blob.startswith(fixture.read_bytes()), fixture.name


def test_belebele_scores_as_seahelm(env, tmp_path):
    gold = {lang: {r["item_id"]: r["gold"] for r in items(env, "belebele", lang)} for lang in ("tl", "ms", "my")}
    # `label` is the option index: 1 → B, 0 → A, 3 → D
    assert gold["tl"] == {"0": "B", "1": "A", "2": "D", "3": "A"}
    assert gold["ms"] == {"0": "A", "1": "A", "2": "B", "3": "B"}
    assert gold["my"] == {"0": "A", "1": "A", "2": "B", "3": "B"}
    row = items(env, "belebele", "tl")[0]
    assert row["options"][3] == "Masamang lagay ng panahon"
    assert row["prompt_en"].startswith("You will be given one paragraph, one question and four answer options.")
    assert row["prompt_en"].endswith("Question: Ano ang pinaniniwalaang dahilan ng pagbagsak?\nA: Pangit na daan\n"
                                     "B: Masamang sunog\nC: Mabundok na lupain\nD: Masamang lagay ng panahon")
    board = ingest(env, tmp_path, "Belebele-1", [
        ("belebele", "tl", "0", "native", "Sagot: B"), ("belebele", "tl", "1", "native", "Sagot: A"),
        ("belebele", "tl", "2", "native", "Sagot: D"), ("belebele", "tl", "3", "native", "Sagot: C"),
        ("belebele", "ms", "0", "native", "Jawapan: A"), ("belebele", "ms", "1", "native", "Saya tidak pasti."),
        ("belebele", "ms", "2", "native", "Jawapan: B"), ("belebele", "ms", "3", "native", "Jawapan: A"),
        ("belebele", "my", "0", "en", "Answer: A"), ("belebele", "my", "1", "en", "Answer: **B**"),
        ("belebele", "my", "2", "en", "B"), ("belebele", "my", "3", "en", "Answer: D")])
    tl, ms, my = board[("belebele", "tl", "native")], board[("belebele", "ms", "native")], \
        board[("belebele", "my", "en")]
    # tl: recall A 1/2 (item 3 answered C), B 1, D 1 -> balanced accuracy 5/6 (plain accuracy would be 3/4);
    # SEA-HELM normalised: (5/6 - 1/4) / (3/4) = 7/9
    assert tl["metric"] == "balanced_accuracy" and tl["value"] == pytest.approx(100 * 5 / 6)
    assert tl["normalized"] == pytest.approx(100 * 7 / 9) and tl["chance"] == pytest.approx(25.0)
    # ms: an unparsed answer is SEA-HELM's "null" label, wrong for its gold: recall A 1/2, B 1/2 -> 1/2; (1/2-1/4)/(3/4)
    assert ms["value"] == pytest.approx(50.0) and ms["normalized"] == pytest.approx(100 / 3)
    assert ms["parse_fail_rate"] == pytest.approx(0.25)
    # my (English prompt): recall A 1/2, B 1/2
    assert my["value"] == pytest.approx(50.0) and my["parse_fail_rate"] == 0


def test_native_prompts_are_seahelms(env, tmp_path):
    """The native templates come from SEA-HELM's configs at 6844e6c as `data pull` copies them
    (`seahelm-prompts-mcq`): the preamble with its answer tag, a blank line, the task template."""
    s = sources()["seahelm-prompts-mcq"]
    data = Path(env["TANAW_DATA_DIR"])
    for src, target in s.files:
        (data / target).parent.mkdir(parents=True, exist_ok=True)
        (data / target).write_bytes(mirror_blob(s.commit, src))
    tl, ms, my = (items(env, "belebele", lang)[0]["prompt_native"] for lang in ("tl", "ms", "my"))
    assert tl.startswith("Bibigyan ka ng isang talata, isang tanong, at apat na pagpipiliang sagot.")
    assert '\n"Sagot: ANSWER"\n' in tl and "\n\nTalata:\n```\nLumipat ang mga hukbong Coalition" in tl
    assert tl.endswith("Tanong: Ano ang pinaniniwalaang dahilan ng pagbagsak?\nA: Pangit na daan\nB: Masamang sunog\n"
                       "C: Mabundok na lupain\nD: Masamang lagay ng panahon")
    assert ms.startswith("Kamu akan diberi satu perenggan") and '"Jawapan: ANSWER"' in ms
    # SEA-HELM's Burmese templates label the options with Burmese letters
    assert '"အဖြေ- ANSWER"' in my and "\nက- " in my and "\nဃ- " in my
    mmlu = {lang: items(env, "global-mmlu-lite", lang)[0]["prompt_native"] for lang in NEW_PAIRS["global-mmlu-lite"]}
    assert mmlu["id"].startswith('Jawablah hanya dengan menggunakan format berikut ini.\n"Jawaban: ANSWER"\n')
    assert mmlu["vi"].startswith('Chỉ trả lời bằng cách sử dụng định dạng sau.\n"Câu trả lời: ANSWER"\n')
    assert mmlu["tl"].startswith('Sumagot gamit ang sumusunod na format.\n"Sagot: ANSWER"\n')
    assert mmlu["ms"].startswith('Jawab hanya menggunakan format berikut.\n"Jawapan: ANSWER"\n')
    assert "\nက- " in mmlu["my"] and mmlu["tl"].endswith("A: Mas maliwanag\nB: Mas mataas sa langit\nC: Lumabo\n"
                                                         "D: Mababa sa langit")
    kalahi = items(env, "kalahi", "tl")[0]
    assert kalahi["prompt_native"].startswith("Piliin ang pinaka-angkop na sagot sa sumusunod na tanong.\n\n"
                                              'Sumagot gamit ang sumusunod na format.\n"Sagot: ANSWER"\n')
    assert kalahi["prompt_native"].endswith("\nAnong maaari kong gawin?\n\nA: Nakakabastos sa mga namatayan ang "
                                            "pagsusugal. Pagsabihan mo ang mga nagsusugal na itigil ang kanilang "
                                            "ginagawa.\nB: Maaari kang sumali sa pagsusugal dahil normal ito sa lamay "
                                            "upang manitiling gising sa pagbabantay sa patay.\nC: Mas mainam na "
                                            "ayawan ang kanilang pagyaya dahil makikita ng mga namatayan ang iyong "
                                            "pagbigay-galang.\nD: Huwag kang sumali dahil salungat ito sa iyong "
                                            "paniniwala. Hindi naman nakababastos ang direktang pagtanggi sa pagyaya "
                                            "ng mga nagsusugal.\n```")
    assert kalahi["prompt_en"] is None  # SEA-HELM asks Kalahi in Filipino only
    a_level, ic = (items(env, t, "th")[0] for t in ("thaiexam-a-level", "thaiexam-ic"))
    assert a_level["prompt_native"].startswith('ตอบคำถามโดยเลือกหนึ่งในตัวเลือกที่ให้ไป\n\nจงตอบตามรูปแบบดังต่อไปนี้:\n'
                                               '"คำตอบ: ANSWER"\n')
    assert "ตัวอักษร A, B, C, D หรือ E เท่านั้น" in a_level["prompt_native"] and "\nE: " in a_level["prompt_native"]
    assert "ตัวอักษร A, B, C หรือ D เท่านั้น" in ic["prompt_native"] and "\nE: " not in ic["prompt_native"]
    assert ic["prompt_native"].endswith("\nD: มีการใช้เงินลงทุนน้อยกว่าเมื่อเทียบกับเงินที่ใช้ลงทุนโดยตรงในสินค้าอ้างอิง")
    assert a_level["prompt_en"] is None  # SEA-HELM asks ThaiExam in Thai only

def slices(env, model: str, task: str, lang: str, prompt_lang: str) -> dict:
    """The stored drill-down nodes of one cell by phenomenon: (items, items right) of the per-item accuracy."""
    import duckdb
    con = duckdb.connect(env["TANAW_DB"], read_only=True)
    try:
        rows = con.execute("SELECT phenomenon, sum(n), sum(correct) FROM drill_nodes "
                           "WHERE model_id = ? AND task = ? AND lang = ? AND prompt_lang = ? "
                           "AND metric = 'accuracy' GROUP BY phenomenon", [model, task, lang, prompt_lang]).fetchall()
    finally:
        con.close()
    return {p: (int(n), float(c)) for p, n, c in rows}


def test_global_mmlu_lite_scores_as_seahelm_with_its_cultural_slice(env, tmp_path):
    rows = {lang: items(env, "global-mmlu-lite", lang) for lang in ("id", "tl", "my")}
    # the Burmese file writes the gold with SEA-HELM's Burmese letters: ခ → B, က → A
    for lang in rows:
        assert {r["item_id"]: r["gold"] for r in rows[lang]} == {"0": "B", "1": "A", "2": "A", "3": "B"}, lang
    assert [r["metadata"]["phenomenon"] for r in rows["tl"]] == ["culturally sensitive", "culturally agnostic",
                                                                   "culturally agnostic", "culturally sensitive"]
    assert [(r["metadata"]["category"], r["metadata"]["subcategory"]) for r in rows["tl"]][::2] == [
        ("STEM", "astronomy"), ("Business", "business_ethics")]
    assert rows["tl"][0]["prompt_en"].startswith('Answer only using the following format.\n"Answer: ANSWER"\n')
    assert "\n\nQuestion:\n```\nKapag naglalakbay pahilaga mula sa Estados Unidos" in rows["tl"][0]["prompt_en"]
    assert rows["tl"][0]["prompt_en"].endswith("A: Mas maliwanag\nB: Mas mataas sa langit\nC: Lumabo\n"
                                               "D: Mababa sa langit")
    t = "global-mmlu-lite"
    board = ingest(env, tmp_path, "Mmlu-1", [
        (t, "tl", "0", "native", "Sagot: B"), (t, "tl", "1", "native", "Sagot: D"),
        (t, "tl", "2", "native", "Sagot: D"), (t, "tl", "3", "native", "Sagot: B"),
        (t, "id", "0", "native", "Jawaban: B"), (t, "id", "1", "native", "Jawaban: A"),
        (t, "id", "2", "native", "Saya tidak tahu."), (t, "id", "3", "native", "Jawaban: B"),
        (t, "my", "0", "en", "Answer: B"), (t, "my", "1", "en", "Answer: A"),
        (t, "my", "2", "en", "Answer: A"), (t, "my", "3", "en", "Answer: C"),
        # SEA-HELM's Burmese prompt asks for the Burmese letters after its tag "အဖြေ-": ခ is B, က A, ဂ C
        (t, "my", "0", "native", "အဖြေ- ခ"), (t, "my", "1", "native", "အဖြေ- ဂ"),
        (t, "my", "2", "native", "အဖြေ- က"), (t, "my", "3", "native", "အဖြေ- ခ")])
    # tl: recall A 0/2, B 2/2 -> 1/2, normalised (1/2 - 1/4)/(3/4) = 1/3
    tl = board[(t, "tl", "native")]
    assert tl["metric"] == "balanced_accuracy" and tl["value"] == pytest.approx(50.0)
    assert tl["normalized"] == pytest.approx(100 / 3) and tl["chance"] == pytest.approx(25.0)
    # id: the unparsed answer is wrong for its gold A: recall A 1/2, B 2/2 -> 3/4
    assert board[(t, "id", "native")]["value"] == pytest.approx(75.0)
    assert board[(t, "id", "native")]["parse_fail_rate"] == pytest.approx(0.25)
    # my: recall A 2/2, B 1/2 -> 3/4; native (Burmese letters): A 1/2, B 2/2 -> 3/4, every answer read
    assert board[(t, "my", "en")]["value"] == pytest.approx(75.0)
    assert board[(t, "my", "native")]["value"] == pytest.approx(75.0)
    assert board[(t, "my", "native")]["parse_fail_rate"] == 0
    # the cultural slice: tl was right on both culturally sensitive questions and on neither agnostic one
    assert slices(env, "Mmlu-1", t, "tl", "native") == {"culturally sensitive": (2, 2.0),
                                                         "culturally agnostic": (2, 0.0)}
    assert slices(env, "Mmlu-1", t, "my", "en") == {"culturally sensitive": (2, 1.0), "culturally agnostic": (2, 2.0)}


def test_global_mmlu_lite_whole_files_hold_both_halves():
    """SEA-HELM's whole files at the pinned commit (from the mirror): 400 questions per language, 200 of each
    cultural label, 100 of each gold letter; its one null question is flagged, not dropped."""
    from evaluator.datasets import load_items
    from evaluator.registry import get_task

    s = sources()
    with tempfile.TemporaryDirectory() as tmp:
        for lang in NEW_PAIRS["global-mmlu-lite"]:
            ((src, target),) = s[f"global-mmlu-lite-{lang}"].files
            (Path(tmp) / target).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / target).write_bytes(mirror_blob(s[f"global-mmlu-lite-{lang}"].commit, src))
            got = load_items(get_task("global-mmlu-lite"), lang, data_dir=tmp)
            assert len(got) == 400
            assert Counter(i.metadata["phenomenon"] for i in got) == {"culturally sensitive": 200,
                                                                      "culturally agnostic": 200}
            assert Counter(i.gold for i in got) == {"A": 100, "B": 100, "C": 100, "D": 100}
            # one Burmese question is null in SEA-HELM's file: kept (SEA-HELM scores it too) and flagged
            flagged = {i.item_id: i.warnings for i in got if i.warnings}
            assert flagged == ({"202": ("empty-input: question",)} if lang == "my" else {}), lang


def test_kalahi_scores_as_seahelm(env, tmp_path):
    rows = items(env, "kalahi", "tl")
    assert {r["item_id"]: r["gold"] for r in rows} == {"1103000100": "B", "1103000101": "C", "1103000116": "A",
                                                        "2104000100": "A"}
    assert rows[0]["options"][1].startswith("Maaari kang sumali sa pagsusugal")
    assert {(r["metadata"]["category"], r["metadata"]["subcategory"]) for r in rows} == {
        ("ethics", "social etiquette")}
    board = ingest(env, tmp_path, "Kalahi-1", [
        ("kalahi", "tl", "1103000100", "native", "Sagot: B"), ("kalahi", "tl", "1103000101", "native", "Sagot: C"),
        ("kalahi", "tl", "1103000116", "native", "Sagot: B"), ("kalahi", "tl", "2104000100", "native", "Sagot: A")])
    row = board[("kalahi", "tl", "native")]
    # recall A 1/2, B 1, C 1 -> 5/6 (plain accuracy 3/4); normalised (5/6 - 1/4)/(3/4) = 7/9
    assert row["metric"] == "balanced_accuracy" and row["value"] == pytest.approx(100 * 5 / 6)
    assert row["normalized"] == pytest.approx(100 * 7 / 9)


def test_thaiexam_scores_each_exam_and_averages_them_as_seahelm(env, tmp_path):
    """Each exam is its own task (SEA-HELM's `thai_exam_<exam>`, chance 1/5, IC 1/4); the exams are averaged as
    SEA-HELM's `thai_exam` aggregation group averages their normalised scores."""
    gold = {t: {r["item_id"]: r["gold"] for r in items(env, t, "th")} for t in ("thaiexam-a-level", "thaiexam-ic")}
    assert gold == {"thaiexam-a-level": {"0": "E", "1": "D", "2": "D", "3": "C"},
                    "thaiexam-ic": {"0": "B", "1": "C", "2": "C", "3": "D"}}
    assert items(env, "thaiexam-ic", "th")[0]["metadata"] == {"category": "ic", "subcategory": "level3"}
    board = ingest(env, tmp_path, "Thai-1", [
        ("thaiexam-a-level", "th", "0", "native", "คำตอบ: E"), ("thaiexam-a-level", "th", "1", "native", "คำตอบ: D"),
        ("thaiexam-a-level", "th", "2", "native", "คำตอบ: A"), ("thaiexam-a-level", "th", "3", "native", "คำตอบ: C"),
        ("thaiexam-ic", "th", "0", "native", "คำตอบ: B"), ("thaiexam-ic", "th", "1", "native", "คำตอบ: B"),
        ("thaiexam-ic", "th", "2", "native", "คำตอบ: C"), ("thaiexam-ic", "th", "3", "native", "ไม่ทราบ")])
    a_level, ic = board[("thaiexam-a-level", "th", "native")], board[("thaiexam-ic", "th", "native")]
    # A-Level: recall C 1, D 1/2, E 1 -> 5/6; normalised by 1/5: (5/6 - 1/5)/(4/5) = 19/24
    assert a_level["value"] == pytest.approx(100 * 5 / 6) and a_level["normalized"] == pytest.approx(100 * 19 / 24)
    assert a_level["chance"] == pytest.approx(20.0)
    # IC: recall B 1, C 1/2, D 0 (unparsed) -> 1/2; normalised by 1/4: 1/3
    assert ic["value"] == pytest.approx(50.0) and ic["normalized"] == pytest.approx(100 / 3)
    # SEA-HELM's thai_exam: the mean of the exams' normalised scores, (19/24 + 1/3)/2 = 27/48
    averages = {(r["level"], r["key"]): r["value"] for r in json.loads(sh(env, "leaderboard", "--averages", "--json"))
                if r["model"] == "Thai-1" and r["family"] == ""}
    assert averages[("competency", "KNOW")] == pytest.approx(100 * 27 / 48)
    assert averages[("language", "th")] == pytest.approx(100 * 27 / 48)


def test_thaiexam_whole_files():
    """SEA-HELM's five exam files at the pinned commit (from the mirror): 565 questions, IC with four options, the
    options SEA-HELM's files leave empty flagged."""
    from evaluator.datasets import load_items
    from evaluator.registry import get_task

    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        for exam in ("a-level", "ic", "onet", "tgat", "tpat1"):
            s = sources()[f"thaiexam-{exam}"]
            ((src, target),) = s.files
            (Path(tmp) / target).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / target).write_bytes(mirror_blob(s.commit, src))
            got = load_items(get_task(f"thaiexam-{exam}"), "th", data_dir=tmp)
            flagged = sum(bool(i.warnings) for i in got)
            counts[exam] = (len(got), {len(i.options) for i in got}, len({i.gold for i in got}), flagged)
    # questions with an empty option (a four-option question in a five-option exam; IC 7 has two empty options)
    # are kept as SEA-HELM asks them, flagged `empty-input: <option>`
    assert counts == {"a-level": (127, {5}, 5, 4), "ic": (95, {4}, 4, 1), "onet": (162, {5}, 5, 0),
                      "tgat": (65, {5}, 5, 43), "tpat1": (116, {5}, 5, 0)}


@pytest.mark.needs_samples
def test_chance_levels_reproduce_seahelms_real_normalised_scores():
    """SEA-HELM's own summary file (tests' shared samples, real-results/seahelm) holds `accuracy` (balanced) and
    `normalized_accuracy` for every Global-MMLU-Lite subject in id, vi, tl, ms, my and every ThaiExam exam; each
    normalised value is SEA-HELM's max(0, (accuracy - chance)/(1 - chance)) with the chance these tasks declare
    (1/4; 1/5 for the five-option exams)."""
    from evaluator.registry import get_task
    from tests.helpers.samples import SAMPLES

    path = SAMPLES / "real-results" / "seahelm" / "gemma-4-E4B-it_seahelm_results.json"
    doc = json.loads(path.read_text("utf-8"))
    checked = Counter()
    for lang, competencies in doc.items():
        for name, entry in (competencies.get("knowledge") or {}).items() if isinstance(competencies, dict) else ():
            if not isinstance(entry, dict) or "accuracy" not in entry:
                continue
            task = get_task("global_mmlu_lite" if name.startswith("global_mmlu_lite_") else name)
            c = 100 * task.chance_level(lang)
            assert entry["normalized_accuracy"] == pytest.approx(max(0.0, 100 * (entry["accuracy"] - c) / (100 - c)),
                                                                 abs=1e-9), (lang, name)
            checked[task.name] += 1
    assert checked["global-mmlu-lite"] >= 5 * 40 and all(checked[f"thaiexam-{e}"] == 1
                                                        for e in ("a-level", "ic", "onet", "tgat", "tpat1"))


@pytest.mark.parametrize("task,lang,n,golds", [("belebele", "tl", 100, {"A": 25, "B": 25, "C": 25, "D": 25}),
                                               ("belebele", "ms", 895, {"A": 205, "B": 250, "C": 245, "D": 195}),
                                               ("belebele", "my", 895, {"A": 205, "B": 250, "C": 245, "D": 195}),
                                               ("kalahi", "tl", 150, {"A": 37, "B": 38, "C": 38, "D": 37})])
def test_belebele_and_kalahi_whole_files(task, lang, n, golds):
    """SEA-HELM's whole files at the pinned commit (from the mirror) load clean, every gold one of A-D."""
    from evaluator.datasets import load_items
    from evaluator.registry import get_task

    s = sources()[f"{task}-{lang}"]
    ((src, target),) = s.files
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / target).parent.mkdir(parents=True, exist_ok=True)
        (Path(tmp) / target).write_bytes(mirror_blob(s.commit, src))
        got = load_items(get_task(task), lang, data_dir=tmp)
    assert len(got) == n and len({i.item_id for i in got}) == n
    assert Counter(i.gold for i in got) == golds and not [i for i in got if i.warnings]
    assert {len(i.options) for i in got} == {4}


def test_data_pull_writes_every_seahelm_source_checked_against_the_lock(tmp_path):
    """`data pull --only seahelm` against a stand-in for raw.githubusercontent.com serving SEA-HELM's files from the
    mirror: every file passes the real lock's checksum, every new cell is then available, licences are recorded."""
    from evaluator.datasets import PULL_MANIFEST, available_cells, load_items
    from evaluator.datasets.pull import pull
    from evaluator.datasets.pull.sources import Table
    from tests.helpers.raw_standin import RawStandin

    table = load_table()
    chosen = table.select("seahelm")
    served = {f"{s.repo}/{s.commit}/{p}": mirror_blob(s.commit, p) for s in chosen for p in s.inputs}
    with RawStandin(served) as server:
        report = pull(tmp_path / "data", table=Table(chosen, table.lock), base_url=server.url,
                      cache=tmp_path / "cache", progress=False)
    dest = tmp_path / "data"
    assert set(report.written) == set(sources())
    assert {(t, lang) for t, langs in NEW_PAIRS.items() for lang in langs} <= set(available_cells(dest))
    assert len(load_items("belebele", "my", data_dir=dest)) == 895
    manifest = json.loads((dest / PULL_MANIFEST).read_text("utf-8"))
    assert manifest["sources"]["global-mmlu-lite-tl"]["licence"].startswith("Apache-2.0")
    assert all(f["verified_by_lock"] for f in manifest["sources"]["kalahi-tl"]["files"].values())
    assert (dest / "seahelm-configs" / "nlu_belebele_mcqa.yaml").is_file()


@pytest.mark.parametrize("task,config,key", [
    ("belebele", "seahelm_tasks/nlu/belebele_mcqa/config.yaml", "belebele-qa-mc"),
    ("global-mmlu-lite", "seahelm_tasks/knowledge/global_mmlu_lite/config.yaml", "global_mmlu_lite")])
def test_english_prompts_are_seahelms_en_blocks(task, config, key):
    """The English prompt is SEA-HELM's `en` block at 6844e6c, built as its zero-shot prompt (preamble with the
    answer tag, a blank line, the task template)."""
    import yaml

    from evaluator.prompts import seahelm_template
    from evaluator.registry import get_task

    doc = yaml.safe_load(mirror_blob(sources()["seahelm-prompts-mcq"].commit, config))
    assert get_task(task).prompt_en.user == seahelm_template(doc[key]["languages"]["en"]["prompt_template"])
