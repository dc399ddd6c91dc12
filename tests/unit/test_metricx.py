"""MetricX-24: SEA-HELM's conversion of its 0-25 error score, the unavailable reasons (missing extra, checkpoint or
tokenizer), and a cell scored by a stand-in model whose error scores are fixed: per-item values and the cell mean
equal hand values, through `aggregate_cell` and through the `ingest` CLI."""
from __future__ import annotations

import importlib.util
import json
import math

import duckdb
import numpy as np
import pytest

from cli.main import main as cli
from evaluator.aggregate import aggregate_cell
from evaluator.metrics import METRICS, metricx, translation
from evaluator.metrics.metricx import metricx_input, metricx_item_scores, metricx_score, metricx_unavailable
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item, Prediction
from evaluator.stats import bootstrap_draws
from tests.helpers.samples import REPO

DEMO = REPO / "data" / "demo"
EXTRA = ("torch", "transformers", "sentencepiece")


class StandIn:
    """A loaded MetricX-24 stand-in: fixed error scores in input order; it records the inputs it was given."""

    def __init__(self, errors):
        self.fixed, self.seen = list(errors), []

    def errors(self, texts):
        self.seen.extend(texts)
        return self.fixed[:len(texts)]


def _extra(monkeypatch, installed: bool):
    """The MetricX extra looks installed, or not, whatever this machine holds."""
    real = importlib.util.find_spec
    monkeypatch.setattr(translation.importlib.util, "find_spec",
                        lambda name, *a: (object() if installed else None) if name in EXTRA else real(name, *a))


def _installed(monkeypatch):
    _extra(monkeypatch, True)


@pytest.fixture()
def checkpoint(tmp_path, monkeypatch):
    """An installed extra and a checkpoint directory holding an mT5 tokenizer file."""
    _installed(monkeypatch)
    ckpt = tmp_path / "metricx-24-hybrid-large-v2p6"
    ckpt.mkdir()
    (ckpt / "spiece.model").write_bytes(b"\0")
    monkeypatch.setenv("TANAW_METRICX_CHECKPOINT", str(ckpt))
    monkeypatch.delenv("TANAW_METRICX_TOKENIZER", raising=False)
    return ckpt


def test_conversion_is_seahelms_normalisation_of_the_error_score():
    # SEA-HELM: normalize_score(x, 25, 0) = max((x - 25) / (0 - 25), 0); shown x100
    assert metricx_score(0.0) == 1.0
    assert metricx_score(25.0) == 0.0
    assert metricx_score(5.0) == pytest.approx(0.8)  # (5 - 25) / -25
    assert metricx_score(2.5) == pytest.approx(0.9)
    assert metricx_score(30.0) == 0.0  # clipped at 0, as SEA-HELM's max(…, 0)
    spec = METRICS["metricx24"]
    assert spec.display == "MetricX-24" and spec.higher_is_better and "lower better" in spec.description
    assert get_task("translation-en-xx").headline_metric("id") == "chrf++"


def test_missing_extra_names_the_install_command_and_the_variable(monkeypatch):
    _extra(monkeypatch, False)
    assert metricx_unavailable() == ("the torch, transformers, sentencepiece packages are not installed "
                                     "(pip install -r requirements-metricx.txt, then set TANAW_METRICX_CHECKPOINT)")


def test_missing_checkpoint_or_tokenizer_is_named(monkeypatch, tmp_path):
    _installed(monkeypatch)
    monkeypatch.delenv("TANAW_METRICX_CHECKPOINT", raising=False)
    monkeypatch.delenv("TANAW_METRICX_TOKENIZER", raising=False)
    assert metricx_unavailable().startswith("TANAW_METRICX_CHECKPOINT is not set (path to a local MetricX-24 "
                                            "checkpoint directory")
    monkeypatch.setenv("TANAW_METRICX_CHECKPOINT", str(tmp_path / "absent"))
    assert metricx_unavailable() == f"no checkpoint directory at TANAW_METRICX_CHECKPOINT={tmp_path / 'absent'}"
    monkeypatch.setenv("TANAW_METRICX_CHECKPOINT", str(tmp_path))
    assert metricx_unavailable().startswith(f"no mT5 tokenizer (spiece.model) in {tmp_path}")
    tok = tmp_path / "mt5-xl"
    tok.mkdir()
    (tok / "spiece.model").write_bytes(b"\0")
    monkeypatch.setenv("TANAW_METRICX_TOKENIZER", str(tok))
    assert metricx_unavailable() is None


def _pairs(task, rows):
    out = []
    for iid, source, gold, output in rows:
        item = Item(task=task.name, lang="id", item_id=iid, inputs={"text": source}, gold=gold)
        pred = Prediction(task=task.name, lang="id", item_id=iid, prompt_lang="en", output=output)
        out.append((item, score_prediction(task, item, pred)))
    return out


def test_stand_in_model_item_values_and_cell_mean_are_the_hand_values(checkpoint, monkeypatch):
    task = get_task("translation-en-xx")
    model = StandIn([2.5, 10.0, 25.0, 0.0])
    monkeypatch.setattr(metricx, "_metricx_model", lambda ckpt, tok: model)
    rows = [("1", "Good morning.", "Selamat pagi.", "Selamat pagi."),
            ("2", "Thank you.", "Terima kasih.", "Makasih."),
            ("3", "The river.", "Sungai itu.", "Gunung."),
            ("4", "One.", "Satu.", "Satu.")]
    pairs = _pairs(task, rows)
    triples = [(r.answer, item.gold, {"inputs": item.inputs}) for item, r in pairs]
    assert metricx_item_scores(triples) == pytest.approx([0.9, 0.6, 0.0, 1.0])  # 1 - e/25
    assert model.seen[:2] == ["source: Good morning. candidate: Selamat pagi. reference: Selamat pagi.",
                              "source: Thank you. candidate: Makasih. reference: Terima kasih."]
    cs = {c.metric: c for c in aggregate_cell(task, "id", pairs)}["metricx24"]
    assert cs.status == "ok" and cs.value == pytest.approx(62.5)  # mean of 90, 60, 0, 100
    seg = np.array([0.9, 0.6, 0.0, 1.0])
    means = seg[bootstrap_draws(4156, 1000, 4)].mean(axis=1)
    assert (cs.ci_low, cs.ci_high) == pytest.approx(tuple(100 * np.percentile(means, [2.5, 97.5])))
    assert cs.normalized == pytest.approx(62.5) and not cs.is_headline


def test_metricx_input_is_seahelms_prompt():
    assert metricx_input("a", "b", "c") == "source: a candidate: b reference: c"


def _demo_ids():
    from evaluator.datasets import load_items

    return [i.item_id for i in load_items(get_task("translation-en-xx"), "id", data_dir=DEMO)]


def _ingest_and_export(tmp_path, capsys, outputs) -> dict:
    """Ingest a native file of the demo Indonesian translation items through the CLI, export the store through the
    CLI, and return the exported MetricX-24 aggregate row."""
    path = tmp_path / "mt.jsonl"
    path.write_text("".join(json.dumps({"task": "translation-en-xx", "lang": "id", "item_id": i, "prompt_lang": "en",
                                        "prediction": out}) + "\n" for i, out in zip(_demo_ids(), outputs)),
                    encoding="utf-8")
    db = str(tmp_path / "s.duckdb")
    assert cli(["ingest", str(path), "--model", "MT-1", "--db", db, "--data-dir", str(DEMO)]) == 0
    assert cli(["export", str(tmp_path / "export"), "--db", db]) == 0
    capsys.readouterr()
    rows = duckdb.sql(f"SELECT * FROM read_parquet('{tmp_path / 'export'}/aggregates/**/*.parquet', "
                      "hive_partitioning = true) WHERE metric = 'metricx24'").df().to_dict("records")
    assert len(rows) == 1
    return rows[0]


def test_ingest_cli_shows_the_unavailable_reason_and_keeps_chrf_the_headline(tmp_path, capsys, monkeypatch):
    _extra(monkeypatch, False)
    row = _ingest_and_export(tmp_path, capsys, ["Pasar buka pagi."] * len(_demo_ids()))
    assert row["status"] == "unavailable" and (row["value"] is None or math.isnan(row["value"]))
    assert row["note"] == ("MetricX-24 unavailable: the torch, transformers, sentencepiece packages are not installed "
                           "(pip install -r requirements-metricx.txt, then set TANAW_METRICX_CHECKPOINT)")
    assert cli(["leaderboard", "--db", str(tmp_path / "s.duckdb"), "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert [(r["task"], r["metric"], r["status"]) for r in board] == [("translation-en-xx", "chrf++", "ok")]


def test_ingest_cli_names_the_absent_checkpoint(tmp_path, capsys, monkeypatch):
    _installed(monkeypatch)
    monkeypatch.setenv("TANAW_METRICX_CHECKPOINT", str(tmp_path / "no-such-dir"))
    row = _ingest_and_export(tmp_path, capsys, ["Pasar."] * len(_demo_ids()))
    assert row["status"] == "unavailable"
    assert row["note"] == f"MetricX-24 unavailable: no checkpoint directory at TANAW_METRICX_CHECKPOINT={tmp_path / 'no-such-dir'}"


def test_ingest_cli_scores_the_cell_with_the_stand_in(tmp_path, capsys, monkeypatch, checkpoint):
    n = len(_demo_ids())
    errors = [float(k) for k in range(n)]  # 0, 1, 2, ... → 1 - k/25
    monkeypatch.setattr(metricx, "_metricx_model", lambda ckpt, tok: StandIn(errors))
    row = _ingest_and_export(tmp_path, capsys, ["Pasar."] * n)
    assert row["status"] == "ok" and row["n"] == n
    assert n == 12 and row["value"] == pytest.approx(78.0)  # mean error 5.5 of 0..11: 100 * (1 - 5.5 / 25)


def test_the_transformers_read_out_on_a_tiny_local_checkpoint(tmp_path):
    """With the extra installed: a random tiny mT5 saved locally loads offline, gives each input one error in
    [0, 25] that does not depend on the other inputs of its batch (padding and the dropped end-of-sequence token)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    spm = pytest.importorskip("sentencepiece")
    words = "saya makan nasi ikan the cat sat on a mat toi an com".split()
    corpus = tmp_path / "corpus.txt"
    rng = np.random.default_rng(0)
    corpus.write_text("\n".join(" ".join(rng.choice(words, 8)) for _ in range(500)), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "spiece"), vocab_size=40,
                                   pad_id=0, eos_id=1, unk_id=2, bos_id=-1, minloglevel=2)
    torch.manual_seed(0)
    config = transformers.MT5Config(vocab_size=250112, d_model=16, d_kv=4, d_ff=32, num_layers=2, num_heads=2)
    transformers.MT5ForConditionalGeneration(config).save_pretrained(tmp_path)
    model = metricx._MetricX(str(tmp_path), str(tmp_path))
    texts = [metricx_input("saya makan nasi", "the cat sat", "the cat sat on a mat"),
             metricx_input("ikan", "", "toi an com the cat sat on a mat on a mat"),
             metricx_input("a", "a mat", "a mat")]
    together = model.errors(texts)
    alone = [model.errors([t])[0] for t in texts]
    assert together == pytest.approx(alone, abs=1e-4) and all(0.0 <= e <= 25.0 for e in together)
