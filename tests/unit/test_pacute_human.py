"""The PACUTE human baseline (evaluator.pacute_human): Fleiss' kappa by statsmodels against a case worked by hand,
the workbooks read as pacute-bench's scorer reads them (scripts/score_human_baselines.py at dcab16b), the files'
own values kept beside, and malformed files refused naming file and field."""
from __future__ import annotations

import io
import json

import pytest
from openpyxl import Workbook

from evaluator.pacute_human import HumanBaselineError, baseline_rows, kappa, raw_agreement

# 4 items x 3 raters, categories A/B; per item (A, B) counts (3,0) (2,1) (0,3) (1,2).
# P_i = (sum n_ij^2 - 3) / 6 = 1, 1/3, 1, 1/3 -> P_bar = 2/3; p_A = p_B = 6/12 -> P_e = 1/2;
# kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3. All three agree on items 1 and 3: raw agreement 1/2.
HAND = [["A", "A", "A"], ["A", "A", "B"], ["B", "B", "B"], ["A", "B", "B"]]


def test_fleiss_kappa_hand_computed():
    assert kappa(HAND) == pytest.approx(1 / 3)
    assert raw_agreement(HAND) == pytest.approx(0.5)
    # the same ratings in another column order and category naming give the same kappa
    assert kappa([[{"A": 1, "B": 0}[r] for r in reversed(row)] for row in HAND]) == pytest.approx(1 / 3)


def test_fleiss_kappa_undefined_when_every_rating_is_one_category():
    assert kappa([[1, 1, 1], [1, 1, 1]]) is None and kappa([]) is None


def _scores(acc=(0.75, 0.5, 1.0)) -> bytes:
    return json.dumps({f"annotator{i}": {"syllabification_mcq": {"num_samples": 4, "accuracy": a},
                                         "syllabification_gen": {"num_samples": 2, "exact_match": a,
                                                                 "contains_match": a}}
                       for i, a in enumerate(acc, start=1)}).encode()


def _iaa(k_mcq=0.3333, k_gen=None) -> bytes:
    return json.dumps({"syllabification_mcq": {"n": 4, "kappa": k_mcq, "pct_agree": 0.5},
                       "syllabification_gen": {"n": 2, "kappa_binary": k_gen, "pct_exact_agree_raw": 0.5,
                                               "pct_exact_agree_bin": 1.0}}).encode()


def _workbook(answers_mcq: list[str], answers_gen: list[str]) -> bytes:
    """A workbook in the layout of pacute-bench's annotation sheets (generate_annotation_sheets.py at dcab16b)."""
    wb = Workbook()
    ws = wb.active
    ws.title = "README"
    mcq = wb.create_sheet("syllabification_MCQ")
    mcq.append(["item_id", "category", "correct_option", "annotator_answer", "notes"])
    for n, a in enumerate(answers_mcq):
        mcq.append([f"syllabification_mcq_{n:04d}", "syllabification", "A", a, None])
    gen = wb.create_sheet("syllabification_GEN")
    gen.append(["item_id", "reference_answer", "annotator_answer"])
    for n, a in enumerate(answers_gen):
        gen.append([f"syllabification_gen_{n:04d}", "-um-", a])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _books():
    # annotator c's answers are HAND's third column, and so on: kappa 1/3 over the four MCQ items
    cols = list(zip(*HAND))
    gen = (["UM", "um"], ["um ", "in"], ["um", "x"])  # per annotator, items 1 and 2 (reference "-um-")
    return [(f"annotation_annotator{i + 1}.xlsx", _workbook(list(cols[i]), list(gen[i]))) for i in range(3)]


def _by(rows):
    return {(r.fmt, r.system, r.metric): r for r in rows}


def test_rows_from_the_files_alone():
    rows = _by(baseline_rows(_scores(), _iaa()))
    assert rows[("mcq", "human: annotator 2", "mcq_acc")].value == pytest.approx(50.0)
    assert rows[("mcq", "human: mean of 3 annotators", "mcq_acc")].value == pytest.approx(75.0)
    k = rows[("mcq", "human: agreement of 3 annotators", "fleiss_kappa")]
    assert k.value == pytest.approx(0.3333) and "as iaa.json states it" in k.note and k.n == 4
    assert rows[("gen", "human: agreement of 3 annotators", "fleiss_kappa")].value is None
    assert rows[("gen", "human: mean of 3 annotators", "contains_match")].value == pytest.approx(75.0)


def test_kappa_recomputed_from_the_workbooks_matches_the_files_value():
    warnings: list[str] = []
    rows = _by(baseline_rows(_scores(), _iaa(), _books(), warnings.append))
    k = rows[("mcq", "human: agreement of 3 annotators", "fleiss_kappa")]
    assert k.value == pytest.approx(1 / 3) and "statsmodels" in k.note and "iaa.json states 0.3333" in k.note
    assert rows[("mcq", "human: agreement of 3 annotators", "raw_agreement")].value == pytest.approx(50.0)
    # GEN, rated right/wrong as pacute-bench does (answer trimmed and case-folded, reference without hyphens):
    # item 1 right x3, item 2 right/wrong/wrong -> P_bar = (1 + 1/3)/2 = 2/3, p_right = 4/6 -> P_e = 5/9,
    # kappa = (2/3 - 5/9) / (4/9) = 1/4; raw answers agree on neither item ("UM", "um ", "um" differ as text)
    g = rows[("gen", "human: agreement of 3 annotators", "fleiss_kappa")]
    assert g.value == pytest.approx(0.25)
    assert rows[("gen", "human: agreement of 3 annotators", "raw_agreement")].value == pytest.approx(0.0)
    # the file said undefined kappa and 50% for GEN: the difference is reported, both kept
    assert len(warnings) == 1 and warnings[0].startswith("human baseline syllabification_gen: recomputed kappa 0.2500")


@pytest.mark.parametrize("scores, iaa, message", [
    (b"{", _iaa(), "scores_per_annotator.json: not UTF-8 JSON"),
    (_scores((0.75, 1.5, 1.0)), _iaa(), "scores_per_annotator.json: annotator2.syllabification_mcq.accuracy: "
                                        "'1.5' is not a number in 0-1"),
    (_scores().replace(b"syllabification_mcq", b"hierarchical_mcq"), _iaa(),
     "scores_per_annotator.json: 'hierarchical_mcq': not a benchmark the baseline covers"),
    (_scores(), _iaa(k_mcq=3), "iaa.json: syllabification_mcq.kappa: '3' is not a kappa in -1..1"),
    (_scores().replace(b"annotator1", b"<b>x</b>"), _iaa(), "scores_per_annotator.json: '<b>x</b>': expected"),
])
def test_malformed_files_are_refused_naming_file_and_field(scores, iaa, message):
    with pytest.raises(HumanBaselineError) as err:
        baseline_rows(scores, iaa)
    assert str(err.value).startswith(message)


def test_a_damaged_workbook_is_refused_naming_it():
    books = _books()
    books[1] = (books[1][0], b"PK\x03\x04 not really a workbook")
    with pytest.raises(HumanBaselineError, match=r"^annotation_annotator2.xlsx: not a readable workbook"):
        baseline_rows(_scores(), _iaa(), books)
