"""`results pull pacute-paper` against the local raw-file stand-in, on the verbatim public samples of pacute-bench
`results-202605/` at dcab16b (two model folders and the human baseline): each folder ingested as a labelled
source, the human baseline stored as reported rows, a checksum refusal and a dropped connection leave the store
unchanged, and the next pull resumes."""
from __future__ import annotations

import hashlib
import json

import pytest

from cli.main import main as cli
from evaluator.datasets.pull import results as results_mod
from evaluator.datasets.pull.results import RESULT_SETS, load_result_set
from services.pacute_paper import pull_paper_results
from store import db
from store.queries.pacute import PAPER_RUNS_LABEL
from tests.helpers.paper_results import paper_data_dir, served, served_files, write_manifest
from tests.helpers.raw_standin import RawStandin

pytestmark = pytest.mark.needs_samples

REPO, COMMIT = "raileymontalan/pacute-bench", "dcab16b617019bf63d56950b9e6858b9f1dfd7f2"


@pytest.fixture(scope="module")
def files():
    return served_files()


@pytest.fixture
def manifest(tmp_path, files, monkeypatch):
    """The pinned manifest's fields, listing the sample files, in place of the pinned one."""
    path = write_manifest(tmp_path / "pacute_paper.json", files)
    monkeypatch.setitem(RESULT_SETS, "pacute-paper", path)
    return path


def _digest(path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def test_the_pinned_manifest_matches_the_verbatim_samples(files):
    rs = load_result_set("pacute-paper")
    assert (rs.repo, rs.commit, rs.label) == (REPO, COMMIT, PAPER_RUNS_LABEL) == (REPO, COMMIT, "PACUTE paper runs")
    assert rs.licence.startswith("MIT (pacute-bench pyproject.toml") and "no LICENSE file" in rs.licence
    assert "arXiv:2606.15144" in rs.citation
    assert len(rs.models()) == 53 and {"gemma-4-e2b-it", "gpt-5-mini", "gpt-5.5"} <= set(rs.models())
    for path, data in files.items():
        entry = rs.files[path]
        assert entry.size == len(data) and entry.sha256 == hashlib.sha256(data).hexdigest(), path
    # the three annotation workbooks Fleiss' kappa is recomputed from
    assert sum(p.startswith("data/human_baseline_annotations/") for p in rs.files) == 3


def test_pull_ingests_each_folder_as_a_labelled_source(files, manifest, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TANAW_HOME", str(tmp_path / "home"))
    store = tmp_path / "t.duckdb"
    data = paper_data_dir(tmp_path / "data")
    with RawStandin(served(files, REPO, COMMIT)) as server:
        rc = cli(["results", "pull", "pacute-paper", "--db", str(store), "--data-dir", str(data),
                  "--base-url", server.url, "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "PACUTE paper runs (raileymontalan/pacute-bench@dcab16b): 2 model folders imported" in out
    assert "80 human-baseline rows" in out
    assert "licence: MIT (pacute-bench pyproject.toml" in out and "arXiv:2606.15144" in out
    con = db.connect(store)
    try:
        # gpt-5-mini takes the paper's spelling of the system it reports (GPT-5-Mini), not a look-alike
        labels = dict(con.execute("SELECT model_id, any_value(source_file) FROM runs WHERE NOT superseded "
                                  "AND source_file LIKE 'PACUTE paper runs%' GROUP BY ALL").fetchall())
        assert labels == {
            "gemma-4-e2b-it": "PACUTE paper runs · pacute-bench@dcab16b · results-202605/gemma-4-e2b-it",
            "GPT-5-Mini": "PACUTE paper runs · pacute-bench@dcab16b · results-202605/gpt-5-mini"}
        url = con.execute("SELECT url FROM models WHERE model_id = 'gemma-4-e2b-it'").fetchone()[0]
        assert url == f"https://github.com/{REPO}/tree/{COMMIT}/results-202605/gemma-4-e2b-it"
        # MCQ: 950 composition items, every one scored
        assert con.execute("SELECT n FROM aggregates WHERE model_id = 'gemma-4-e2b-it' AND task = "
                           "'pacute-composition-mcq' AND metric = 'mcq_acc'").fetchone()[0] == 950
        human = con.execute("SELECT system, value, note FROM reported WHERE source = 'PACUTE human baseline' "
                            "AND task = 'pacute-syllabification-mcq' ORDER BY system, metric").fetchall()
    finally:
        con.close()
    by = {(s, round(v, 4) if v is not None else None) for s, v, _ in human}
    # summary.md: 0.600 / 0.750 / 0.950, mean 0.767, kappa 0.589, agreement 60.0%
    assert by == {("human: annotator 1", 60.0), ("human: annotator 2", 75.0), ("human: annotator 3", 95.0),
                  ("human: mean of 3 annotators", 76.6667), ("human: agreement of 3 annotators", 0.5894),
                  ("human: agreement of 3 annotators", 60.0)}
    assert all(n.startswith("n=20 items; ") for _, _, n in human)

    # the same pull again changes nothing: every folder is a known upload, the baseline is replaced by itself
    with RawStandin(served(files, REPO, COMMIT)) as server:
        rc = cli(["results", "pull", "pacute-paper", "--db", str(store), "--data-dir", str(data),
                  "--base-url", server.url, "--no-progress"])
    assert rc == 0 and "0 model folders imported, 2 already there, 0 refused" in capsys.readouterr().out
    con = db.connect(store)
    try:
        assert con.execute("SELECT count(*) FROM reported WHERE source = 'PACUTE human baseline'").fetchone()[0] == 80
    finally:
        con.close()


def test_a_checksum_refusal_leaves_the_store_unchanged(files, manifest, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TANAW_HOME", str(tmp_path / "home"))
    store = tmp_path / "t.duckdb"
    db.connect(store).close()
    before = _digest(store)
    bad = "results-202605/gpt-5-mini/inference/pacute-composition-gen.jsonl"
    tampered = dict(files)
    tampered[bad] = files[bad].replace(b'"exact_match": true', b'"exact_match": fals', 1)  # same size
    assert tampered[bad] != files[bad] and len(tampered[bad]) == len(files[bad])
    with RawStandin(served(tampered, REPO, COMMIT)) as server:
        rc = cli(["results", "pull", "pacute-paper", "--db", str(store), "--data-dir",
                  str(paper_data_dir(tmp_path / "data")), "--base-url", server.url, "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert err[-1].startswith(f"results pull: {REPO}@dcab16b:{bad}: SHA-256 ")
    assert err[-1].endswith("the store was not changed")
    assert _digest(store) == before
    assert not (tmp_path / "home" / "cache" / "results" / REPO / COMMIT / bad).exists()  # discarded


def test_a_malformed_baseline_file_is_refused_naming_file_and_field(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TANAW_HOME", str(tmp_path / "home"))
    path = "results-202605/human_baseline/iaa.json"
    bad = dict(files)
    doc = json.loads(files[path])
    doc["syllabification_mcq"]["kappa"] = "0.5894"  # a string where a number belongs
    bad[path] = json.dumps(doc).encode()
    monkeypatch.setitem(RESULT_SETS, "pacute-paper", write_manifest(tmp_path / "m.json", bad))  # checksums match
    store = tmp_path / "t.duckdb"
    with RawStandin(served(bad, REPO, COMMIT)) as server:
        rc = cli(["results", "pull", "pacute-paper", "--model", "gpt-5-mini", "--db", str(store), "--data-dir",
                  str(paper_data_dir(tmp_path / "data")), "--base-url", server.url, "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert err[-1] == ("iaa.json: syllabification_mcq.kappa: '0.5894' is not a kappa in -1..1; "
                       "the store was not changed")
    assert not store.exists()


def test_an_interrupted_pull_resumes_and_writes_nothing_until_whole(files, manifest, tmp_path):
    store = tmp_path / "t.duckdb"
    cache = tmp_path / "cache"
    cut = "results-202605/gpt-5-mini/inference/pacute-manipulation-gen.jsonl"
    key = f"{REPO}/{COMMIT}/{cut}"
    size = len(files[cut])
    lines: list[str] = []
    with RawStandin(served(files, REPO, COMMIT)) as server:
        server.cut_once[key] = size // 2
        with pytest.raises(results_mod.ResultsError, match="run the pull again to resume"):
            pull_paper_results(store, data_dir=paper_data_dir(tmp_path / "data"), models=["gpt-5-mini"],
                               base_url=server.url, cache=cache, progress=False, say=lines.append)
        assert not store.exists()  # nothing written before every file is whole and checked
        kept = (cache / REPO / COMMIT / f"{cut}.part").stat().st_size
        assert 0 < kept <= size // 2
        first = {k for k, _, sent in server.log if sent}
        report = pull_paper_results(store, data_dir=paper_data_dir(tmp_path / "data"), models=["gpt-5-mini"],
                                    base_url=server.url, cache=cache, progress=False, say=lines.append)
        asks = [(rng, sent) for k, rng, sent in server.log if k == key]
        again = [k for k, _, _ in server.log[len(first) + 1:] if k in first and k != key]
    assert asks == [(None, size // 2), (f"bytes={kept}-", size - kept)]  # only the rest
    assert again == []  # files already fetched and checked are not asked for again
    assert report.outcomes["gpt-5-mini"].status == "imported"
    assert any(line.startswith("[1/") and "results-202605/" in line for line in lines)  # progress, file by file
    assert lines[0].startswith("PACUTE paper runs: raileymontalan/pacute-bench@dcab16b · licence: MIT")


def test_an_unknown_model_folder_is_one_clear_line(manifest, tmp_path, capsys):
    rc = cli(["results", "pull", "pacute-paper", "--model", "no-such-model", "--db", str(tmp_path / "t.duckdb"),
              "--base-url", "http://127.0.0.1:9", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1].startswith("pacute-paper: no model folder 'no-such-model' at dcab16b")
    assert not (tmp_path / "t.duckdb").exists()
    assert json.loads(manifest.read_text())["commit"] == COMMIT


def test_a_space_build_variable_enables_it_off_by_default():
    from tests.helpers.samples import REPO as ROOT

    docker = (ROOT / "Dockerfile").read_text("utf-8")
    assert "ARG WITH_PACUTE_RESULTS=0" in docker
    block = docker[docker.index("ARG WITH_PACUTE_RESULTS=0"):]
    assert 'if [ "$WITH_PACUTE_RESULTS" = "1" ]' in block
    assert "python -m evaluator results pull pacute-paper --no-progress" in block.split("EXPOSE")[0]
    assert "WITH_PACUTE_RESULTS=1" in (ROOT / "docs" / "deploying.md").read_text("utf-8")


def test_a_folder_takes_the_papers_spelling_of_its_system(tmp_path):
    """`gpt-5.5` is reported as `GPT-5.5` and `claude-sonnet-4-6` as `Claude-Sonnet-4.6` (a version's dots are
    dashes in pacute-bench's folder names): the runs stand under the reported name, not beside it."""
    from services.pacute_paper import _model_name
    from services.reported import ensure_reported
    from store.db import connect

    con = connect(tmp_path / "s.duckdb")
    try:
        ensure_reported(con)
        assert _model_name(con, "gpt-5.5") == "GPT-5.5"
        assert _model_name(con, "claude-sonnet-4-6") == "Claude-Sonnet-4.6"
        assert _model_name(con, "gpt2-medium") == "gpt2-medium"  # not a reported system: its own name
    finally:
        con.close()
