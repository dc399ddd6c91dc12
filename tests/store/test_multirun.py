"""A model run 8 times, as SEA-HELM runs it, imports as one cell with 8 runs and is scored by SEA-HELM's multi-run
rule: each question's mean over the runs, then the mean over questions; a 95% interval from a bootstrap over
questions stratified by gold class (checked against a hand-seeded numpy reference); the run-to-run spread and the
low-class-support flag in the cell's note; rank ranges from those intervals.

The folders follow SEA-HELM's own layout (`aisingapore/SEA-HELM` at 6844e6c, `src/seahelm_evaluation.py`
`create_seahelm_run_folders`: `{output_dir}/{model}/run_{run_number}/inferences/{lang}/{task}/
{model}_{task}_{lang}.jsonl`, run numbers from 0); the rows are `tests/helpers/tool_files.seahelm_sentiment`'s,
built from Tanaw's demo items.
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pytest

from evaluator.aggregate import BOOTSTRAP_SEED, N_BOOTSTRAP
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.ranking import rank_ranges
from tests.helpers import tool_files as T
from tests.helpers.upload_files import zip_bytes

RUNS = 8
FILE = "inferences/id/sentiment/{model}_sentiment_id.jsonl"


def pattern(model: str) -> np.ndarray:
    """(runs × items) whether each run answers each demo item right: a fixed draw per model."""
    n = len(T.loader("sentiment", "id"))
    p = 0.75 if model == "strong" else 0.45
    return np.random.default_rng(sum(map(ord, model))).random((RUNS, n)) < p


def run_files(model: str, right: np.ndarray) -> dict[str, bytes]:
    return {f"{model}/run_{r}/{FILE.format(model=model)}": T.jsonl(T.seahelm_sentiment("id", lambda i, r=r:
                                                                                         bool(right[r, i])))
            for r in range(RUNS)}


def write_folder(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


@pytest.fixture()
def index():
    return ItemIndex(loader=T.loader)


def _ingest(db: Path, upload, model: str):
    from services.upload import ingest_upload

    out = ingest_upload(db, upload, model={"model_id": model}, data_dir=T.DEMO)
    assert out.status == "imported", out.errors


def _rows(db: Path, sql: str, params: list) -> list[tuple]:
    from store.db import connect

    con = connect(db, read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _aggregate(db: Path, model: str, metric: str) -> dict:
    cols = ["value", "ci_low", "ci_high", "n", "n_runs", "note"]
    (row,) = _rows(db, f"SELECT {', '.join(cols)} FROM aggregates WHERE model_id = ? AND task = 'sentiment' "
                       "AND lang = 'id' AND prompt_lang = 'native' AND metric = ?", [model, metric])
    return dict(zip(cols, row))


def reference_interval(right: np.ndarray, golds: list[str]) -> tuple[float, float]:
    """The stratified percentile bootstrap by hand: items in id order, per gold class (sorted) a block of
    `numpy.random.default_rng(seed).integers` draws of that class's items, the statistic the mean of the drawn
    questions' per-question means over runs."""
    per_question = right.mean(axis=0)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    total = np.zeros(N_BOOTSTRAP)
    for label in sorted(set(golds)):
        members = np.array([k for k, g in enumerate(golds) if g == label])
        picks = members[rng.integers(0, len(members), size=(N_BOOTSTRAP, len(members)))]
        total += per_question[picks].sum(axis=1)
    stats = total / len(golds)
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return 100 * lo, 100 * hi


def _sorted_items() -> tuple[list[int], list[str]]:
    """Positions of the demo items in the bootstrap's order (sorted ids) and their golds in that order."""
    items = T.loader("sentiment", "id")
    order = sorted(range(len(items)), key=lambda k: items[k].item_id)
    return order, [items[k].gold for k in order]


@pytest.mark.parametrize("packed", ["folder", "zip"])
def test_eight_seahelm_runs_import_as_one_cell_scored_by_the_per_question_rule(tmp_path, index, packed):
    right = pattern("strong")
    files = run_files("demo-model", right)
    source = write_folder(tmp_path / "results", files) if packed == "folder" else zip_bytes(files)
    up = read_upload(source, "results.zip" if packed == "zip" else None, index=index)
    assert up.ok, up.errors
    assert sorted({p.run for p in up.predictions}) == list(range(1, RUNS + 1))  # run_0 … run_7 → runs 1 … 8
    assert len(up.predictions) == RUNS * right.shape[1]
    db = tmp_path / "t.duckdb"
    _ingest(db, up, "demo-model")
    assert _rows(db, "SELECT run_no FROM runs WHERE model_id = 'demo-model' AND task = 'sentiment' "
                     "ORDER BY run_no", []) == [(r,) for r in range(1, RUNS + 1)]

    acc = _aggregate(db, "demo-model", "accuracy")
    assert (acc["n"], acc["n_runs"]) == (right.shape[1], RUNS)
    per_question = [sum(bool(right[r, i]) for r in range(RUNS)) / RUNS for i in range(right.shape[1])]
    assert acc["value"] == pytest.approx(100 * sum(per_question) / len(per_question), abs=1e-9)
    order, golds = _sorted_items()
    lo, hi = reference_interval(right[:, order], golds)
    assert (acc["ci_low"], acc["ci_high"]) == (pytest.approx(lo, abs=1e-9), pytest.approx(hi, abs=1e-9))
    assert "stratified by gold class" in acc["note"]
    per_run = [100 * float(right[r].mean()) for r in range(RUNS)]
    assert f"mean of 8 runs; run-to-run SD {statistics.stdev(per_run):.2f} (sample SD" in acc["note"]
    rarest = min(golds.count(g) for g in set(golds))
    assert rarest < 10 and f"low class support: the rarest gold class has {rarest} items" in acc["note"]

    # balanced accuracy, a corpus metric: each run's mean per-class recall (by hand), then the mean over runs
    items = T.loader("sentiment", "id")
    labels = sorted({i.gold for i in items})
    bacc = [np.mean([np.mean([right[r, k] for k, i in enumerate(items) if i.gold == lab]) for lab in labels])
            for r in range(RUNS)]
    got = _aggregate(db, "demo-model", "balanced_accuracy")
    assert got["value"] == pytest.approx(100 * float(np.mean(bacc)), abs=1e-9)
    assert f"run-to-run SD {statistics.stdev(100 * float(b) for b in bacc):.2f}" in got["note"]
    assert got["ci_low"] <= got["value"] <= got["ci_high"]


def test_rank_ranges_come_from_the_eight_run_intervals(tmp_path, index):
    db = tmp_path / "t.duckdb"
    for model in ("strong", "weak", "weak-twin"):
        right = pattern("weak") if model == "weak-twin" else pattern(model)
        up = read_upload(zip_bytes(run_files(model, right)), f"{model}.zip", index=index)
        _ingest(db, up, model)
    rows = _rows(db, "SELECT a.model_id, a.ci_low, a.ci_high, a.n_runs, f.rank_best, f.rank_worst "
                     "FROM aggregates a JOIN cell_field f USING (model_id, task, lang, prompt_lang, metric) "
                     "WHERE a.task = 'sentiment' AND a.is_headline ORDER BY a.model_id", [])
    assert {r[3] for r in rows} == {RUNS} and len(rows) == 3
    want = rank_ranges({m: (lo, hi) for m, lo, hi, *_ in rows})
    assert {m: (best, worst) for m, *_, best, worst in rows} == want
    assert want["weak"] == want["weak-twin"]  # the same answers: the same interval, the same rank range


def test_each_runs_results_json_gives_one_self_reported_score_the_mean_over_runs(tmp_path, index):
    # SEA-HELM writes run_{n}/results/{model}_seahelm_results_{datetime}.json in every run's folder
    # (src/seahelm_evaluation.py get_results_json_filepath at 6844e6c)
    right = pattern("strong")
    files = run_files("demo-model", right)
    for r in range(RUNS):
        files[f"demo-model/run_{r}/results/demo-model_seahelm_results_2026-06-0{r + 1}T10:00:00.000000.json"] = \
            json.dumps(T.seahelm_results(value=50.0 + r)).encode()
    up = read_upload(zip_bytes(files), "results.zip", index=index)
    assert up.ok, up.errors
    assert any("summary files of 8 runs (runs 1, 2, 3, 4, 5, 6, 7, 8): each self-reported score is the mean"
               in w.problem for w in up.warnings)
    sentiment = [s for s in up.summary if (s.task, s.lang) == ("sentiment", "id")]
    assert sentiment and {s.value for s in sentiment} == {53.5}  # every metric: the mean of 50 … 57
    assert len({s.metric for s in sentiment}) == len(sentiment)  # one score per metric, not one per run
    db = tmp_path / "t.duckdb"
    _ingest(db, up, "demo-model")
    assert _rows(db, "SELECT DISTINCT value FROM self_reported_cells WHERE model_id = 'demo-model' "
                     "AND task = 'sentiment' AND lang = 'id'", []) == [(53.5,)]
    one = read_upload(zip_bytes({k: v for k, v in files.items() if "/run_0/" in k}), "one.zip", index=index)
    assert {s.value for s in one.summary if (s.task, s.lang) == ("sentiment", "id")} == {50.0}
    assert not any("summary files of" in w.problem for w in one.warnings)
