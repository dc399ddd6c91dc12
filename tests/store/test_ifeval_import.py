"""SEA-HELM `if-eval` inference files, as SEA-HELM writes them, land re-scored by Tanaw's checkers; prompt-level
strict accuracy equals the value SEA-HELM's own metric code gives on the same rows.

Layout: `src/dataloaders/base_dataloader.py` at 6844e6c (`get_inference_filepath`, `write_out_dataframe`:
`inferences/{lang}/{task}/{model}_{task}_{lang}.jsonl`, pandas `to_json(orient="records", lines=True)` of the
dataset rows plus `responses` (one entry per turn) and the metric's columns). SEA-HELM's metric:
`seahelm_tasks/instruction_following/ifeval/if_eval.py` (`IFEvalMetric`, `overall_lang_normalized_acc`), run here
from the SEA-HELM mirror when this machine has it.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.instructions import CHECKERS
from services.upload import ingest_upload
from store.db import connect
from tests.unit.test_instructions import CASES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sea_ifeval"
SEAHELM_MIRROR = Path(os.environ.get("TANAW_SEAHELM_MIRROR", "/work/.mirror/aisingapore+SEA-HELM/repo"))
SEAHELM_COMMIT = "6844e6c"
IFEVAL_DIR = "seahelm_tasks/instruction_following/ifeval"

# scripted answers per item id: (response, followed strictly, followed loosely, in the required language)
ANSWERS = {
    "id": {
        11: ("Pasar pagi di kotaku selalu ramai dengan pedagang sayur, ikan segar, dan jajanan tradisional.",
             True, True, True),
        12: ("Untuk menanam cabai, siapkan benih yang baik, semai di tanah gembur, siram setiap pagi dan sore, "
             "beri pupuk kandang, lalu pindahkan bibit ke pot besar setelah tiga minggu.", False, False, True),
        13: ("Hujan turun pelan di balik jendela rumah kami, dan payung biru menunggu di sudut teras.",
             True, True, True),
        14: ("* Beras\n* Telur\n* Minyak goreng\n* Semoga daftar belanja ini membantu Anda.", False, True, True),
        15: ("Menurut saya, kucing sebenarnya bisa berenang walaupun kebanyakan tidak suka air. "
             "Jawaban saya adalah ya.", True, True, True),
        16: ("Halo Bu Sari, terima kasih sudah menjaga rumah kami selama kami pergi berlibur.\n"
             "P.S. Kue di meja itu untuk Ibu.", True, True, True),
        17: ("Nasi goreng dengan telur mata sapi dan kerupuk untuk sarapan pagi.\n******\n"
             "Bubur ayam hangat dengan daun bawang dan kecap manis.", True, True, True),
        18: ("My holiday in Bali was wonderful; we swam at the beach and ate grilled fish every evening.",
             True, True, False),
        19: ('"Bersepeda membuat tubuh lebih sehat, menghemat biaya transportasi, dan mengurangi polusi udara '
             'di kota."', True, True, True),
        20: ("Judul: Gunung yang Berbisik. Cerita ini tentang seorang pendaki yang tersesat di hutan lebat.",
             False, False, True),
    },
    "th": {
        31: ("ตลาดน้ำดำเนินสะดวกมีเรือขายผลไม้และก๋วยเตี๋ยวมากมายทุกเช้า", True, True, True),
        32: ("ปลูกข้าวโดยเตรียมดิน หว่านเมล็ด ดูแลน้ำ และเก็บเกี่ยว", None, None, None),  # not scored in Thai
        33: ("ฝนตกหนักฉันกางร่มสีแดง เพื่อนกางร่มสีฟ้า เราเดินกลับบ้านด้วยกัน", True, True, True),
        34: ("ทะเลสีฟ้าสวยงามมาก คลื่นซัดเข้าหาฝั่งตลอดทั้งวัน", False, False, True),
        35: ("Pad Thai is a stir-fried noodle dish with shrimp, tofu and peanuts, loved by everyone. ขอให้อร่อย",
             True, True, False),
        36: ("The sky looks blue because air molecules scatter the short blue wavelengths of sunlight more than "
             "the red ones.", True, True, True),
    },
}
# hand-computed prompt-level accuracy (followed and in the required language), 0-100
EXPECTED = {"id": {"strict": 60.0, "loose": 70.0, "n": 10}, "th": {"strict": 60.0, "loose": 60.0, "n": 5}}


def _inference_rows(lang: str) -> list[dict]:
    """The fixture items with SEA-HELM's inference columns added, as `write_out_dataframe` writes them."""
    rows = []
    for line in (FIXTURES / "sea-ifeval" / f"{lang}.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        response = ANSWERS[lang][row["id"]][0]
        rows.append({**row, "responses": [response], "finish_reasons": ["stop"],
                     "token_usages": [{"prompt_tokens": 40, "completion_tokens": 30, "total_tokens": 70}],
                     "reasoning_contents": [None], "errors": [None], "cleaned_responses": response,
                     "individual_scores": {"overall_lang_normalized_acc": True}})
    return rows


def _write(tmp_path: Path, lang: str) -> Path:
    path = tmp_path / "inferences" / lang / "if-eval" / f"sea-model_if-eval_{lang}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _inference_rows(lang)), "utf-8")
    return path


def _agg(db: Path, lang: str, metric: str):
    con = connect(db, read_only=True)
    try:
        return con.execute("SELECT value, n FROM aggregates WHERE model_id = 'sea-model' AND task = 'sea-ifeval' "
                           "AND lang = ? AND prompt_lang = 'native' AND metric = ?", [lang, metric]).fetchone()
    finally:
        con.close()


def test_hand_computed_expectations_follow_from_the_scripted_answers():
    for lang, answers in ANSWERS.items():
        scored = [a for a in answers.values() if a[1] is not None]
        for mode, col in (("strict", 1), ("loose", 2)):
            assert 100 * sum(a[col] and a[3] for a in scored) / len(scored) == EXPECTED[lang][mode]


@pytest.mark.parametrize("lang", ["id", "th"])
def test_seahelm_inference_file_lands_rescored_by_our_checkers(tmp_path, lang):
    path = _write(tmp_path, lang)
    upload = read_upload(path.read_bytes(), str(path.relative_to(tmp_path)), index=ItemIndex(FIXTURES))
    # Thai: the number_words row is one SEA-HELM leaves unscored, and the note says so
    notes = [(w.line, w.field, w.problem) for w in upload.warnings]
    assert notes == ([(2, "metadata.subcategory", "1 length_constraints:number_words row(s) not imported: SEA-HELM "
                       "leaves them unscored in 'th' (no spaces between words), and SEA-IFEval's cells here have no "
                       "such items")] if lang == "th" else [])
    db = tmp_path / "t.duckdb"
    out = ingest_upload(db, upload, model={"model_id": "sea-model"}, actor="test", data_dir=FIXTURES)
    assert out.status == "imported", out.errors
    want = EXPECTED[lang]
    assert _agg(db, lang, "ifeval_prompt_strict") == (pytest.approx(want["strict"]), want["n"])
    assert _agg(db, lang, "ifeval_prompt_loose") == (pytest.approx(want["loose"]), want["n"])
    # one instruction per item: instruction level equals prompt level
    assert _agg(db, lang, "ifeval_inst_strict")[0] == pytest.approx(want["strict"])
    con = connect(db, read_only=True)
    extras = dict(con.execute("SELECT item_id, extras::VARCHAR FROM predictions").fetchall())
    con.close()
    for item_id, (_, strict, loose, language) in ANSWERS[lang].items():
        if strict is None:
            assert str(item_id) not in extras  # SEA-HELM leaves number_words unscored in Thai: no item of ours
            continue
        got = json.loads(extras[str(item_id)])
        assert (got["strict"], got["loose"], got["language_ok"]) == ([strict], [loose], language), item_id


# ------------------------------------------------------------------------------ SEA-HELM's own metric code

_STUBS = {
    "src/__init__.py": "",
    "src/base_logger.py": "import logging\n\ndef get_logger(name):\n    return logging.getLogger(name)\n",
    "src/metrics/__init__.py": "",
    "src/metrics/seahelm_metric.py": "class SeaHelmMetric:\n    pass\n",
}
"""Stand-ins for the two SEA-HELM modules `if_eval.py` imports for its logger and base class (neither is used by
`calculate_metrics`, `evaluate_response` or `summarize_results`)."""


@pytest.fixture(scope="module")
def seahelm(tmp_path_factory):
    """SEA-HELM's `if_eval` module at 6844e6c, imported from the mirror into a temporary folder."""
    if not (SEAHELM_MIRROR / "HEAD").exists() and not (SEAHELM_MIRROR / ".git").exists():
        pytest.skip(f"SEA-HELM mirror not found at {SEAHELM_MIRROR} (set TANAW_SEAHELM_MIRROR)")
    root = tmp_path_factory.mktemp("seahelm")
    for rel, text in _STUBS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for name in ("__init__.py", "if_eval.py", "instruction_checkers.py"):
        target = root / IFEVAL_DIR / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name == "__init__.py":
            target.write_text("")
            continue
        target.write_bytes(subprocess.run(["git", "-C", str(SEAHELM_MIRROR), "show", f"{SEAHELM_COMMIT}:{IFEVAL_DIR}/"
                                           f"{name}"], check=True, capture_output=True).stdout)
    for pkg in ("seahelm_tasks", "seahelm_tasks/instruction_following"):
        (root / pkg / "__init__.py").write_text("")
    saved = {k: v for k, v in sys.modules.items() if k == "src" or k.startswith(("src.", "seahelm_tasks"))}
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("seahelm_tasks.instruction_following.ifeval.if_eval")
    finally:
        sys.path.remove(str(root))
        for k in [k for k in sys.modules if k == "src" or k.startswith(("src.", "seahelm_tasks"))]:
            del sys.modules[k]
        sys.modules.update(saved)


def _seahelm_metric(seahelm, path: Path, lang: str) -> dict:
    """SEA-HELM's IFEval metric on an inference file, read as `load_cached_inference_results` reads it."""
    import pandas as pd

    frame = pd.read_json(path, lines=True)
    metric = seahelm.IFEvalMetric.__new__(seahelm.IFEvalMetric)
    metric.lang, metric.response_column, metric.postprocessed_response_column = lang, "responses", "cleaned_responses"
    metric.dataloader = SimpleNamespace(dataframe=frame)
    metric.dataloader.update_individual_scores = lambda scores: None
    metric.postprocess_responses()
    return metric.calculate_metrics()


@pytest.mark.parametrize("lang", ["id", "th"])
def test_prompt_level_strict_equals_seahelm_s_own_metric(tmp_path, seahelm, lang):
    path = _write(tmp_path, lang)
    theirs = _seahelm_metric(seahelm, path, lang)
    assert theirs["overall_lang_normalized_acc"] == pytest.approx(EXPECTED[lang]["strict"])
    assert theirs["overall_count"] == EXPECTED[lang]["n"]
    upload = read_upload(path.read_bytes(), path.name, index=ItemIndex(FIXTURES))
    db = tmp_path / "t.duckdb"
    assert ingest_upload(db, upload, model={"model_id": "sea-model"}, data_dir=FIXTURES).status == "imported"
    assert _agg(db, lang, "ifeval_prompt_strict")[0] == pytest.approx(theirs["overall_lang_normalized_acc"])


def test_every_checker_agrees_with_seahelm_s_checker_class(seahelm):
    checkers = importlib.import_module("seahelm_tasks.instruction_following.ifeval.instruction_checkers")
    assert set(seahelm.CATEGORY_MAP) == set(CHECKERS)
    for inst_id, lang, kwargs, good, bad in CASES:
        for response in (good, bad):
            theirs = seahelm.CATEGORY_MAP[inst_id](category=inst_id, language=lang, response=response, **kwargs)
            ours = CHECKERS[inst_id](response, lang, **kwargs)
            assert ours == bool(theirs.evaluate_response()), (inst_id, response)
    assert checkers.COMPARISON_RELATIONS == {"exactly", "at least", "less than"}
