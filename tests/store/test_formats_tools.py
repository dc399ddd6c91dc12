"""The layouts the real tools write: perfect-model files score 100 on every cell, all-wrong ones at or below
chance, files that cannot be aligned are refused (files built by `tests/helpers/tool_files.py` from Tanaw's own items)."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

from evaluator.formats import detect, seahelm
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from tests.helpers import tool_files as T
from tests.helpers.upload_files import zip_bytes

ACC = {"choice_logprob": "mcq_acc"}


@pytest.fixture()
def index():
    return ItemIndex(loader=T.loader)


def cell_scores(preds) -> dict[tuple[str, str], tuple[float, int]]:
    """(task, lang) → (mean accuracy re-scored by our own scoring, rows) for mapped predictions."""
    vals = defaultdict(list)
    items = {}
    for p in preds:
        if (p.task, p.lang) not in items:
            items[(p.task, p.lang)] = {i.item_id: i for i in T.loader(p.task, p.lang)}
        task = get_task(p.task)
        res = score_prediction(task, items[(p.task, p.lang)][p.item_id], p)
        vals[(p.task, p.lang)].append(res.scores[ACC.get(task.mode, "exact_match" if task.family == "pacute"
                                                          else "accuracy")])
    return {k: (sum(v) / len(v), len(v)) for k, v in vals.items()}


def n_items(task: str, lang: str) -> int:
    return len(T.loader(task, lang))


def chance(task: str, lang: str) -> float:
    level = get_task(task).chance_level(lang)
    return 0.25 if level is None else level


SEAHELM_FILES = [
    ("inferences/id/sentiment/demo-model_sentiment_id.jsonl", lambda r: T.seahelm_sentiment("id", r), "sentiment", "id"),
    ("inferences/vi/sentiment/demo-model_sentiment_vi.jsonl", lambda r: T.seahelm_sentiment("vi", r), "sentiment", "vi"),
    ("inferences/id/causal/demo-model_causal_id.jsonl", T.seahelm_causal, "causal", "id"),
    ("inferences/id/nli/demo-model_nli_id.jsonl", T.seahelm_nli, "nli", "id"),
    ("inferences/id/mp-r/demo-model_mp-r_id.jsonl", T.seahelm_minimal_pairs, "lindsea-mp", "id"),
]


@pytest.mark.parametrize("name,build,task,lang", SEAHELM_FILES, ids=[f[2] + "-" + f[3] for f in SEAHELM_FILES])
def test_seahelm_rows_without_ids_or_with_integer_ids(index, name, build, task, lang):
    n = n_items(task, lang)
    perfect = read_upload(T.jsonl(build(T.ALL)), name, index=index)
    assert perfect.ok, perfect.errors
    assert detect.detect(name, T.jsonl(build(T.ALL))[:4000]) == "seahelm"
    assert cell_scores(perfect.predictions) == {(task, lang): (1.0, n)}
    assert {p.prompt_lang for p in perfect.predictions} == {"native"}
    assert not [w for w in perfect.warnings if "not imported" in w.problem]
    wrong = read_upload(T.jsonl(build(T.NONE)), name, index=index)
    assert wrong.ok and cell_scores(wrong.predictions)[(task, lang)][0] <= chance(task, lang)


def test_seahelm_minimal_pairs_shuffled_rows_are_order_ba(index):
    up = read_upload(T.jsonl(T.seahelm_minimal_pairs()), "demo-model_mp-r_id.jsonl", index=index)
    assert [p.order for p in up.predictions] == ["ab", "ba"] * (n_items("lindsea-mp", "id") // 2)


def test_seahelm_run_folder_with_batch_files_imports_the_inference_file(index):
    rows = T.seahelm_sentiment("id")
    base = "demo-model/run_0/inferences/id/sentiment/demo-model_sentiment_id"
    files = {f"{base}.jsonl": T.jsonl(rows), f"{base}_turn1_batch_response.jsonl": T.jsonl(T.seahelm_batch_response(rows)),
             f"{base}_turn1_batch.jsonl": b'{"custom_id": "0", "body": {"messages": []}}\n'}
    up = read_upload(zip_bytes(files), "run.zip", index=index)
    assert up.ok, up.errors
    assert len(up.predictions) == n_items("sentiment", "id") and up.model_hint == "demo-model"
    notes = [w for w in up.warnings if "batch file" in w.problem]
    assert len(notes) == 2 and all("skipped" in w.problem for w in notes)


def test_seahelm_summary_as_written_today(index):
    name = "Llama-3-8B_seahelm_results_2025-12-04T10:30:45.123456.json"
    data = json.dumps(T.seahelm_results(100.0, failed=("metaphor", "qa", "nli")), indent=2).encode()
    assert detect.detect(name, data) == "seahelm-summary"
    assert detect.detect("scores.json", data) == "seahelm-summary"
    up = read_upload(data, name, index=index)
    assert up.ok, up.errors
    assert up.model_hint == "Llama-3-8B"
    got = {(s.task, s.lang, s.metric): s.value for s in up.summary if not s.task.startswith("seahelm:")}
    # the group nodes whose parts ran and the file's totals are kept under SEA-HELM's names
    assert {s.task for s in up.summary} - {t for t, _, _ in got} == {"seahelm:translations", "seahelm:pragmatics",
                                                                      "seahelm:total"}
    assert {t for t, _, _ in got} == {"sentiment", "causal", "translation-en-xx", "translation-xx-en", "lindsea-mp",
                                      "lindsea-pragmatic-single", "lindsea-pragmatic-pair"}
    assert {(t, lang) for t, lang, _ in got if lang != "id"} == {("sentiment", "tl")}  # Filipino sentiment is ours
    assert not {m for _, _, m in got} & {"is_cached", "null_count", "inference_time_taken", "total", "error"}
    assert all(v == 100.0 for v in got.values())  # a failed task's 0 is never imported
    msgs = [w.problem for w in up.warnings]
    ours = sum(seahelm.our_task(t) is not None for t in ("metaphor", "qa", "nli"))  # metaphor: when Tanaw has it
    assert any(m.startswith("3 tasks failed in this file; not imported") and f"{ours} of them are Tanaw tasks" in m
               for m in msgs), msgs
    assert not any("language the Tanaw task lacks" in m for m in msgs)


def test_seahelm_summary_where_every_task_failed_imports_nothing(index):
    every = ("sentiment", "qa", "metaphor", "causal", "nli", "translation-en-xx", "translation-xx-en", "mp-r",
             "pragmatic-single", "pragmatic-pair")
    doc = T.seahelm_results(0.0, failed=every)
    up = read_upload(json.dumps(doc).encode(), "m_seahelm_results_2026-01-01T00:00:00.json", index=index)
    assert not up.ok and not up.summary  # its totals alone are not imported
    assert "every task in this file failed in SEA-HELM (11 failed entries)" in str(up.errors[0])
    assert any(w.problem.startswith("11 tasks failed in this file; not imported") for w in up.warnings)
    # metaphor ran: kept as self-reported (under its SEA-HELM name and version while Tanaw lacks the task)
    doc = T.seahelm_results(0.0, failed=every[:2] + every[3:])
    up = read_upload(json.dumps(doc).encode(), "m_seahelm_results.json", index=index)
    kept = {s.task for s in up.summary if s.task != "seahelm:total"}
    assert up.ok and kept == {seahelm.our_task("metaphor") or "seahelm:metaphor:v1.1"}  # Tanaw's name once it has it


def test_seahelm_logprobs_variants_mapped_but_rows_not_rescored(index):
    assert seahelm.our_task("sentiment-logprobs") == "sentiment" and seahelm.our_task("mp-r-logprobs") == "lindsea-mp"
    doc = {"id": {"nlu": {"sentiment-logprobs": {"null_count": 0, "average_cumulative_logprobs": -0.4,
                                                 "clt_se_cumulative_logprobs": 0.1,
                                                 "average_cumulative_probabilities": 67.0}}}}
    up = read_upload(json.dumps(doc).encode(), "m_seahelm_results.json", index=index)
    assert [(s.task, s.metric, s.value) for s in up.summary] == [("sentiment", "average_cumulative_probabilities", 67.0)]
    rows = read_upload(T.jsonl(T.seahelm_sentiment("id")), "m_sentiment-logprobs_id.jsonl", index=index)
    assert not rows.predictions and "cannot be re-scored" in rows.warnings[0].problem


def test_lm_eval_xcopa_options_matched_by_text_and_native(index):
    name = "samples_xcopa_id_2026-11-30T10-14-38.453472.jsonl"
    up = read_upload(T.jsonl(T.lm_eval_xcopa()), name, index=index)
    assert up.ok, up.errors
    assert cell_scores(up.predictions) == {("causal", "id"): (1.0, n_items("causal", "id"))}
    assert {p.prompt_lang for p in up.predictions} == {"native"}
    wrong = read_upload(T.jsonl(T.lm_eval_xcopa(T.NONE)), name, index=index)
    assert cell_scores(wrong.predictions)[("causal", "id")][0] == 0.0


@pytest.mark.parametrize("lang", ["th", "vi"])
def test_lm_eval_xnli_realigned_by_label_never_by_position(index, lang):
    rows = T.lm_eval_xnli(lang)
    by_position = sum("ABC"[max(range(3), key=lambda k: float(r["filtered_resps"][k][0]))] ==
                      T.NLI_LETTER[("entailment", "neutral", "contradiction")[r["doc"]["label"]]] for r in rows)
    assert by_position == 2  # what reading the arg-max position as our letter gave: 2 of 6
    up = read_upload(T.jsonl(rows), f"samples_xnli_{lang}_2026-11-30T10-14-38.453472.jsonl", index=index)
    assert up.ok, up.errors
    assert cell_scores(up.predictions) == {("nli", lang): (1.0, 6)}
    assert all(p.self_reported == {"acc": 1.0} for p in up.predictions)
    wrong = read_upload(T.jsonl(T.lm_eval_xnli(lang, T.NONE)), f"samples_xnli_{lang}_2026-11-30T10-14-38.jsonl",
                        index=index)
    assert cell_scores(wrong.predictions)[("nli", lang)][0] <= 1 / 3


def test_lm_eval_rows_that_cannot_be_aligned_are_refused(index):
    rows = T.lm_eval_xcopa()
    rows[2]["arguments"]["gen_args_1"]["arg_1"] = " sesuatu yang lain sama sekali."
    up = read_upload(T.jsonl(rows), "samples_xcopa_id_2026-11-30T10-14-38.jsonl", index=index)
    assert not up.ok and not up.predictions
    assert str(up.errors[0]).startswith("samples_xcopa_id_2026-11-30T10-14-38.jsonl:3: options: item ")
    xnli = T.lm_eval_xnli("th")
    xnli[4]["arguments"]["gen_args_2"]["arg_1"] = xnli[4]["arguments"]["gen_args_2"]["arg_1"].replace("? ไม่,", "? ผิด,")
    up = read_upload(T.jsonl(xnli), "samples_xnli_th_2026-11-30T10-14-38.jsonl", index=index)
    assert not up.ok and str(up.errors[0]).startswith("samples_xnli_th_2026-11-30T10-14-38.jsonl:5: arguments:")


def test_lm_eval_results_counts_are_not_metrics(index):
    data = json.dumps(T.lm_eval_results({"xcopa_id": 1.0, "xnli_th": 0.5, "indonli": 0.4})).encode()
    up = read_upload(data, "results_2026-11-30T10-14-38.453472.json", index=index)
    assert up.ok and up.model_hint == "demo-model"
    assert sorted((s.task, s.lang, s.metric, s.value, s.prompt_lang) for s in up.summary) == [
        ("causal", "id", "acc,none", 1.0, "native"), ("nli", "id", "acc,none", 0.4, "native"),
        ("nli", "th", "acc,none", 0.5, "native")]


def test_pacute_bench_mcq_rows_reordered_to_our_options(index):
    up = read_upload(T.jsonl(T.pacute_mcq()), "hierarchical-mcq.jsonl", index=index)
    assert up.ok, up.errors
    assert detect.detect("hierarchical-mcq.jsonl", T.jsonl(T.pacute_mcq())) == "pacute-bench"
    n = n_items("pacute-hierarchical-mcq", "tl")
    assert cell_scores(up.predictions) == {("pacute-hierarchical-mcq", "tl"): (1.0, n)}
    assert {p.prompt_lang for p in up.predictions} == {"native"}  # the question is the Filipino prompt
    # pacute-bench credits options[0], which is not the item's answer in most demo items
    assert sum(p.self_reported["is_correct"] for p in up.predictions) < n
    wrong = read_upload(T.jsonl(T.pacute_mcq(T.NONE)), "hierarchical-mcq.jsonl", index=index)
    assert cell_scores(wrong.predictions)[("pacute-hierarchical-mcq", "tl")][0] <= 0.25


def test_pacute_bench_mcq_with_other_options_is_refused(index):
    first = T.loader("pacute-hierarchical-mcq", "tl")[0]
    up = read_upload(T.jsonl(T.pacute_mcq(rename={first.options[1]: "zz"})), "hierarchical-mcq.jsonl", index=index)
    assert not up.ok and not up.predictions
    assert str(up.errors[0]).startswith("hierarchical-mcq.jsonl:1: options: item 'demo-hier-mcq-00': ")


def test_pacute_bench_gen_rows_and_results_files(index):
    up = read_upload(T.jsonl(T.pacute_gen()), "hierarchical-gen.jsonl", index=index)
    n = n_items("pacute-hierarchical-gen", "tl")
    assert up.ok and cell_scores(up.predictions) == {("pacute-hierarchical-gen", "tl"): (1.0, n)}
    per_model = json.dumps(T.pacute_results(0.9, 0.8)).encode()
    combined = json.dumps({"demo-model": T.pacute_results(0.9, 0.8)}).encode()
    for data in (per_model, combined):
        assert detect.detect("evaluation_results_20261130_110000.json", data) == "pacute-bench-summary"
        res = read_upload(data, "evaluation_results_20261130_110000.json", index=index)
        assert res.ok and res.model_hint == "demo/model"
        assert {(s.task, s.metric) for s in res.summary} >= {("pacute-hierarchical-mcq", "f1_score"),
                                                            ("pacute-hierarchical-gen", "exact_match")}
    two = json.dumps({"a": T.pacute_results(0.9, 0.8), "b": T.pacute_results(0.5, 0.5)}).encode()
    assert "results of 2 models" in str(read_upload(two, "evaluation_results_1.json", index=index).errors[0])


def test_unmatched_rows_reported_once_with_five_examples(index):
    rows = T.seahelm_sentiment("id")
    strangers = [{**rows[0], "id": 900 + k, "prompts": [{"text": f"kalimat lain nomor {k}"}]} for k in range(12)]
    up = read_upload(T.jsonl(rows + strangers), "m_sentiment_id.jsonl", index=index)
    assert up.ok and len(up.predictions) == len(rows)
    unmatched = [w for w in up.warnings if "match none of our items" in w.problem]
    assert len(unmatched) == 1 and unmatched[0].problem.startswith("12 row(s) of sentiment/id not imported")
    assert unmatched[0].problem.count("line ") == 5 and unmatched[0].line == len(rows) + 1


def test_same_premise_with_another_hypothesis_is_not_our_item(index):
    rows = T.seahelm_nli()
    other = {**rows[0], "prompts": [{"sentence1": rows[0]["prompts"][0]["sentence1"],
                                     "sentence2": "Sebuah kalimat yang tidak ada di data kami."}]}
    up = read_upload(T.jsonl([other]), "m_nli_id.jsonl", index=index)
    assert not up.ok and not up.predictions
    assert any("match none of our items" in w.problem for w in up.warnings)


def _headline(db, model: str) -> dict[tuple[str, str, str], float]:
    from store.db import connect

    con = connect(db, read_only=True)
    try:
        rows = con.execute("SELECT task, lang, prompt_lang, metric, value FROM aggregates WHERE model_id = ?",
                           [model]).fetchall()
    finally:
        con.close()
    return {(t, lang, pl): v for t, lang, pl, m, v in rows if m == get_task(t).headline_metric(lang)}


def test_perfect_files_land_as_100_and_all_wrong_at_or_below_chance(tmp_path, index):
    from services.upload import ingest_upload

    def files(right):
        run = {f"demo-model/run_0/{name}": T.jsonl(build(right)) for name, build, *_ in SEAHELM_FILES}
        return [("run.zip", zip_bytes(run)),
                ("samples_xcopa_id_2026-11-30T10-14-38.453472.jsonl", T.jsonl(T.lm_eval_xcopa(right))),
                ("hierarchical-mcq.jsonl", T.jsonl(T.pacute_mcq(right))),
                ("hierarchical-gen.jsonl", T.jsonl(T.pacute_gen(right)))]

    db = tmp_path / "t.duckdb"
    for model, right in (("perfect", T.ALL), ("wrong", T.NONE)):
        for k, (name, data) in enumerate(files(right)):
            out = ingest_upload(db, read_upload(data, name, index=index), model={"model_id": f"{model}-{k}"},
                                data_dir=T.DEMO)
            assert out.status == "imported", out.errors
    perfect = {c: v for k in range(4) for c, v in _headline(db, f"perfect-{k}").items()}
    wrong = {c: v for k in range(4) for c, v in _headline(db, f"wrong-{k}").items()}
    assert set(perfect) == set(wrong) == {
        ("sentiment", "id", "native"), ("sentiment", "vi", "native"), ("causal", "id", "native"),
        ("nli", "id", "native"), ("lindsea-mp", "id", "native"), ("pacute-hierarchical-mcq", "tl", "native"),
        ("pacute-hierarchical-gen", "tl", "native")}
    assert all(v == pytest.approx(100.0) for v in perfect.values()), perfect
    for (task, lang, _), v in wrong.items():
        assert v <= 100 * chance(task, lang), (task, lang, v)


@pytest.mark.parametrize("fmt", ["auto", "seahelm"])
def test_seahelm_run_folder_with_batch_files(tmp_path, index, fmt):
    rows = T.seahelm_nli()
    folder = tmp_path / "demo-model" / "run_0" / "inferences" / "id" / "nli"
    folder.mkdir(parents=True)
    (folder / "demo-model_nli_id.jsonl").write_bytes(T.jsonl(rows))
    (folder / "demo-model_nli_id_turn1_batch_response.jsonl").write_bytes(T.jsonl(T.seahelm_batch_response(rows)))
    up = read_upload(tmp_path / "demo-model", index=index, fmt=fmt)
    assert up.ok, up.errors
    assert len(up.predictions) == len(rows)
    assert [f.format for f in up.files] == ["seahelm", "seahelm-batch"]


def test_option_alignment_by_text_rules():
    from evaluator.formats.align import permutation, reorder

    ours = ("Barang itu rapuh.", "Barang itu kecil.")
    assert reorder((" barang itu kecil.", " barang itu rapuh."), (-1.0, -2.0), ours) == (-2.0, -1.0)
    assert reorder(("karena barang itu rapuh.", "karena barang itu kecil."), (-1.0, -2.0), ours) == (-1.0, -2.0)
    assert "not one of ours" in reorder(("barang itu besar.", "barang itu kecil."), (-1.0, -2.0), ours)
    assert isinstance(reorder(("BARANG ITU RAPUH.", "barang itu kecil."), (-1.0, -2.0), ours), str)
    # equal option texts (PACUTE has some) are one answer: paired in order, whatever their log-probabilities
    assert permutation(("pápa", "lupà", "pápa"), ("lupà", "pápa", "pápa")) == (1, 0, 2)
    assert isinstance(permutation(("pápa", "lupà", "lupà"), ("lupà", "pápa", "pápa")), str)


def test_seahelm_inference_folder_every_file_imported_or_named(index):
    """An inference folder mixing a task Tanaw re-scores, a SEA-HELM task it does not (syntax-criteria), a name
    outside SEA-HELM's table and a batch file: every file is accounted for, by rows imported, scores kept as
    self-reported or a warning naming it."""
    rows = T.seahelm_sentiment("id")
    judged = [{**r, "individual_scores": [{"normalized_accuracy": float(i % 2)}]} for i, r in enumerate(rows)]
    base = "demo-model/run_0/inferences"
    files = {f"{base}/id/sentiment/demo-model_sentiment_id.jsonl": T.jsonl(rows),
             f"{base}/id/syntax-criteria/demo-model_syntax-criteria_id.jsonl": T.jsonl(judged),
             f"{base}/id/made-up/demo-model_made-up_id.jsonl": T.jsonl(rows),
             f"{base}/id/sentiment/demo-model_sentiment_id_turn1_batch.jsonl": b'{"custom_id": "0"}\n'}
    up = read_upload(zip_bytes(files), "run.zip", index=index)
    assert up.ok, up.errors
    assert len(up.predictions) == n_items("sentiment", "id")
    assert [(s.task, s.lang, s.metric) for s in up.summary] == [
        ("seahelm:syntax-criteria:v1", "id", "item_mean_normalized_accuracy")]
    assert up.summary[0].value == pytest.approx(sum(i % 2 for i in range(len(rows))) / len(rows))
    named = {w.file.split("!")[-1].split("/")[-1]: w.problem for w in up.warnings}
    assert named["demo-model_syntax-criteria_id.jsonl"].startswith(
        f"Tanaw has no task 'syntax-criteria': {len(rows)} rows not re-scored")
    assert named["demo-model_made-up_id.jsonl"].startswith("unknown SEA-HELM task 'made-up'")
    assert "skipped" in named["demo-model_sentiment_id_turn1_batch.jsonl"]
    assert {f.name.split("/")[-1] for f in up.files} == {p.split("/")[-1] for p in files}


def test_seahelm_summary_names_outside_its_layout_are_named_never_stored(index):
    doc = {"id": {"nlu": {"sentiment": {"normalized_accuracy": 50.0}, "made-up-task": {"accuracy": 9.0},
                          "<b>node</b>": 5, "total": 50.0},
                  "<script>": {"total": 3.0}, "total": 50.0},
           "Indonesia!": {"nlu": {}}, "total": 50.0}
    up = read_upload(json.dumps(doc).encode(), "m_seahelm_results.json", index=index)
    assert up.ok
    assert sorted((s.task, s.lang, s.metric) for s in up.summary) == [
        ("seahelm:total", "id", "language"), ("seahelm:total", "id", "nlu"), ("seahelm:total", "sea", "sea"),
        ("sentiment", "id", "normalized_accuracy")]
    msgs = [w.problem for w in up.warnings]
    assert "1 task entries are not in Tanaw's table of SEA-HELM tasks (evaluator/seahelm_tasks.csv); not imported " \
           "(made-up-task/id)" in msgs
    assert "3 entries are neither a language, a task nor a score; not imported (id.nlu.<b>node</b>, " \
           "id.<script>, Indonesia!)" in msgs
