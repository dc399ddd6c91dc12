"""`data pull` against local stand-ins: every family written, a changed file refused, resume, offline, Hub, app.

The stand-in sources are small files written for Tanaw: the fixture items (tests/helpers/fixture_data.py) served as
the verbatim LINDSEA / cultural / PACUTE files, and short rows in the formats of two converted BHASA sources
(NusaX-Senti's CSV as in IndoNLP/nusax@75b0be5 `datasets/sentiment/indonesian/test.csv`, and SEA-HELM's XL-Sum
JSON Lines as in aisingapore/SEA-HELM@360c7cc `.../abstractive_summarization/data/id_xlsum_100sample.jsonl`).
"""
from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path

import pytest

from cli.main import main as cli
from evaluator.datasets import PULL_MANIFEST, available_cells, load_items
from evaluator.datasets.pull import PullError, pull
from evaluator.datasets.pull.sources import LockEntry, Source, Table, load_table
from tests.helpers import fixture_data
from tests.helpers.raw_standin import RawStandin
from tests.helpers.samples import SAMPLES

COMMIT = "1" * 40
NUSAX_CSV = ("id,text,label\n7,\"Makanannya enak, pelayanannya ramah\",positive\n"
             "8,Antreannya panjang sekali,negative\n9,Toko itu buka jam delapan,neutral\n").encode()
XLSUM = "".join(json.dumps({"id": f"demo-sum-{i}", "label": f"Ringkasan {i}.",
                            "prompts": [{"text": f"Artikel nomor {i} tentang pasar pagi."}],
                            "metadata": {"language": "id", "url": f"https://example.org/{i}",
                                         "title": f"Judul {i}"}}) + "\n" for i in range(3)).encode()


def _verbatim(root: Path, family_dir: str) -> list[tuple[str, str]]:
    return [(str(p.relative_to(root)), str(p.relative_to(root)))
            for p in sorted((root / family_dir).rglob("*")) if p.is_file()]


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    """(table, served files) for one source per family plus an unavailable one."""
    root = fixture_data.write(tmp_path_factory.mktemp("upstream"))
    sources = [
        Source("sentiment-id", "bhasa", "NusaX-like", "github", "CC BY-SA 4.0", "test", "test/nusax", COMMIT,
               "nusax", "id", ("sentiment/test.csv",), "bhasa/sentiment/id.jsonl"),
        Source("summarization-id", "bhasa", "XL-Sum-like", "github", "CC BY-NC-SA 4.0", "test", "test/seahelm",
               COMMIT, "seahelm_xlsum", "id", ("xlsum/id.jsonl",), "bhasa/summarization/id.jsonl"),
        Source("lindsea-id", "lindsea", "LINDSEA-like", "github", "CC BY 4.0", "all", "test/lindsea", COMMIT,
               "copy", files=tuple(_verbatim(root, "lindsea/id"))),
        Source("cultural", "cultural", "cultural-like", "github", "CC BY 4.0", "all", "test/cultural", COMMIT,
               "copy", files=tuple(_verbatim(root, "cultural"))),
        Source("pacute", "pacute", "PACUTE-like", "github", "MIT", "all", "test/pacute", COMMIT, "copy",
               files=tuple(_verbatim(root, "pacute"))),
        Source("ner-vi", "bhasa", "VLSP-like", "unavailable", "registration-only", "test",
               reason="registration-only release"),
    ]
    served = {}
    for s in sources:
        for path in s.inputs:
            data = {"sentiment/test.csv": NUSAX_CSV, "xlsum/id.jsonl": XLSUM}.get(path)
            served[f"{s.repo}/{COMMIT}/{path}"] = data if data is not None else (root / path).read_bytes()
    lock = {}
    for s in sources:
        for path in s.inputs:
            data = served[f"{s.repo}/{COMMIT}/{path}"]
            lock[s.key(path)] = LockEntry(len(data), hashlib.sha256(data).hexdigest(), True)
    return Table(sources, lock), served


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_writes_every_family_with_licences(stand_in, tmp_path):
    table, served = stand_in
    with RawStandin(served) as server:
        report = pull(tmp_path / "data", table=table, base_url=server.url, cache=tmp_path / "cache",
                      progress=False)
    dest = tmp_path / "data"
    assert set(report.written) == {"sentiment-id", "summarization-id", "lindsea-id", "cultural", "pacute"}
    assert report.unavailable == {"ner-vi": "registration-only release"}
    cells = set(available_cells(dest))
    assert {("sentiment", "id"), ("abssum", "id"), ("lindsea-mp", "id"), ("cultural-representation", "ta"),
            ("pacute-hierarchical-mcq", "tl")} <= cells
    items = load_items("sentiment", "id", data_dir=dest)
    assert [(i.item_id, i.gold) for i in items] == [("nusax-id-7", "positive"), ("nusax-id-8", "negative"),
                                                    ("nusax-id-9", "neutral")]
    assert len(load_items("lindsea-mp", "id", data_dir=dest)) == 70  # verbatim: 40 + 10 + 10 + 10 pairs
    manifest = json.loads((dest / PULL_MANIFEST).read_text("utf-8"))
    assert manifest["sources"]["summarization-id"]["licence"] == "CC BY-NC-SA 4.0"
    assert manifest["sources"]["ner-vi"]["unavailable"] == "registration-only release"
    assert manifest["sources"]["sentiment-id"]["files"]["sentiment/test.csv"]["verified_by_lock"] is True
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".data.")]  # no staging left behind


def test_a_file_whose_checksum_differs_is_refused_and_nothing_is_replaced(stand_in, tmp_path):
    table, served = stand_in
    dest = tmp_path / "data"
    with RawStandin(served) as server:
        pull(dest, table=table, base_url=server.url, cache=tmp_path / "cache1", progress=False)
    before = _snapshot(dest)
    tampered = dict(served)
    key = f"test/nusax/{COMMIT}/sentiment/test.csv"
    tampered[key] = served[key].replace(b"positive", b"negative")  # same size, other bytes
    with RawStandin(tampered) as server, pytest.raises(PullError) as err:
        pull(dest, table=table, base_url=server.url, cache=tmp_path / "cache2", progress=False)
    message = str(err.value)
    assert "sentiment-id: sentiment/test.csv: SHA-256" in message and "nothing was changed" in message
    assert "\n" not in message
    assert _snapshot(dest) == before
    assert not (tmp_path / "cache2" / "github" / "test/nusax" / COMMIT / "sentiment/test.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache1", "cache2", "data"]


def test_resumes_an_interrupted_download(stand_in, tmp_path):
    table, served = stand_in
    key = f"test/pacute/{COMMIT}/pacute/benchmarks/hierarchical_mcq.jsonl"
    size = len(served[key])
    with RawStandin(served) as server:
        server.cut_once[key] = size // 2
        with pytest.raises(PullError, match="run the pull again to resume"):
            pull(tmp_path / "data", table=table, base_url=server.url, cache=tmp_path / "cache", progress=False)
        assert not (tmp_path / "data").exists()  # nothing written on a failed pull
        part = (tmp_path / "cache" / "github" / "test/pacute" / COMMIT
                / "pacute/benchmarks/hierarchical_mcq.jsonl.part")
        kept = part.stat().st_size  # what reached the disk before the connection dropped (whole chunks)
        assert 0 < kept <= size // 2
        pull(tmp_path / "data", table=table, base_url=server.url, cache=tmp_path / "cache", progress=False)
        asks = [(rng, sent) for k, rng, sent in server.log if k == key]
    assert asks == [(None, size // 2), (f"bytes={kept}-", size - kept)]  # the rest only, not the whole file
    assert (tmp_path / "data" / "pacute/benchmarks/hierarchical_mcq.jsonl").read_bytes() == served[key]


def test_unverified_source_records_its_checksum_then_holds_later_pulls_to_it(stand_in, tmp_path):
    table, served = stand_in
    key = f"test/cultural/{COMMIT}/cultural/id/cultural_representation.jsonl"
    lock = dict(table.lock)
    lock["test/cultural@" + COMMIT + ":cultural/id/cultural_representation.jsonl"] = LockEntry(None, None, False)
    loose = Table(table.sources, lock)
    with RawStandin(served) as server:
        report = pull(tmp_path / "data", table=loose, base_url=server.url, cache=tmp_path / "c1", progress=False)
    assert report.recorded == [f"test/cultural@{COMMIT}:cultural/id/cultural_representation.jsonl"]
    changed = {**served, key: served[key] + b"\n"}
    with RawStandin(changed) as server, pytest.raises(PullError, match="size"):
        pull(tmp_path / "data", table=loose, base_url=server.url, cache=tmp_path / "c2", progress=False)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_offline_is_one_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TANAW_HOME", str(tmp_path / "home"))  # the download cache lives there
    port = _closed_port()
    rc = cli(["data", "pull", "--dest", str(tmp_path / "data"), "--base-url", f"http://127.0.0.1:{port}",
              "--no-progress", "--only", "lindsea"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert err[-1].startswith(f"data pull: cannot reach 127.0.0.1:{port}") and "offline" in err[-1]
    assert "nothing was changed" in err[-1]
    assert not (tmp_path / "data").exists()


def test_the_app_opens_on_the_pulled_data(stand_in, tmp_path, monkeypatch):
    """Pulled into ~/.tanaw/data, the data is the default: answers are scored against its gold and the Compare page
    shows its items."""
    from services.ingest import ingest_predictions
    from store import db as store_db
    from evaluator.spec import Prediction
    from tests.helpers.fixtures_store import app_test, pages_on

    table, served = stand_in
    monkeypatch.setenv("TANAW_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TANAW_DATA_DIR")
    with RawStandin(served) as server:
        report = pull(None, table=table, base_url=server.url, progress=False)
    assert report.dest == tmp_path / "home" / "data"
    answers = {"nusax-id-7": "Positif", "nusax-id-8": "Positif", "nusax-id-9": "Netral"}  # 2 of 3 right
    preds = [Prediction(task="sentiment", lang="id", item_id=k, prompt_lang="en", output=v, prompt="p")
             for k, v in answers.items()]
    con = store_db.connect(tmp_path / "app.duckdb")
    ingest_predictions(con, preds, model={"model_id": "pulled-model", "origin": "evaluated"},
                       source={"file": "answers.jsonl", "kind": "evaluated", "harness": "tanaw"})
    acc = con.execute("SELECT value FROM aggregates WHERE model_id = 'pulled-model' AND metric = 'accuracy'"
                      ).fetchone()[0]
    con.close()
    assert acc == pytest.approx(100 * 2 / 3)
    with pages_on(tmp_path / "app.duckdb"):
        at = app_test("compare", task="sentiment", lang="id", sys=["pulled-model|en"], slice="all")
        assert not at.exception
        table_shown = next(d.value for d in at.dataframe if "item_id" in d.value.columns)
        assert sorted(table_shown["item_id"]) == sorted(answers)


def test_hub_hosted_source_goes_through_huggingface_hub(tmp_path, monkeypatch):
    from tests.helpers.hub_standin import HubStandin

    with HubStandin() as hub:
        rel = "cultural/id/cultural_representation.jsonl"
        repo = hub.create_repo("tanaw/cultural-mirror", {rel: (fixture_data.data_dir() / rel).read_bytes()})
        commit = repo.refs["main"]
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        src = Source("cultural-hub", "cultural", "cultural-like", "hub", "CC BY 4.0", "all",
                     "tanaw/cultural-mirror", commit, "copy", files=((rel, rel),))
        report = pull(tmp_path / "data", table=Table([src], {}), cache=tmp_path / "cache", progress=False)
    assert report.recorded == [f"tanaw/cultural-mirror@{commit}:cultural/id/cultural_representation.jsonl"]
    assert len(load_items("cultural-representation", "id", data_dir=tmp_path / "data")) == 5


def test_the_real_table_is_complete_and_locked():
    table = load_table()
    from evaluator.datasets import loader_for
    from evaluator.registry import TASKS

    targets = {out for s in table.sources for out in s.outputs}
    unavailable = {(s.name.split("-")[0], s.name.split("-")[1]) for s in table.sources if s.host == "unavailable"}
    for task in TASKS.values():
        for lang in task.langs:
            for rel in loader_for(task, lang).files(lang):
                assert rel in targets or (rel.split("/")[1], lang) in unavailable, (task.name, lang, rel)
    for s in table.sources:
        if s.host == "github":
            assert all(table.lock[s.key(p)].verified for p in s.inputs), s.name
    assert {s.family for s in table.select("lindsea")} == {"lindsea"}
    with pytest.raises(PullError, match="no such family"):
        pull(Path("/nonexistent/never-written"), only="nope", table=table)


@pytest.mark.needs_samples
def test_lock_checksums_match_the_verbatim_public_samples():
    """The samples beside the repo copy LINDSEA, cultural, PACUTE and SEA-HELM configs byte for byte (PACUTE at the
    paper's version, pacute-bench dcab16b, is the samples' `pacute/paper-suite/benchmarks/`)."""
    table = load_table()
    checked = 0
    for s in table.sources:
        if s.convert != "copy":
            continue
        for source_path, target in s.files:
            sample = SAMPLES / (target.replace("pacute/", "pacute/paper-suite/", 1) if s.name == "pacute" else target)
            if sample.is_file():
                entry = table.lock[s.key(source_path)]
                assert hashlib.sha256(sample.read_bytes()).hexdigest() == entry.sha256, target
                checked += 1
    assert checked == 9 + 21 + 2 + 19
