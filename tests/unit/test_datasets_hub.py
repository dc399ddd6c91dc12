"""Hub loader against a local stand-in of the Hub's resolve endpoint (127.0.0.1), through real `hf_hub_download`."""
from __future__ import annotations

import hashlib
import re
import shutil
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from evaluator.datasets import DatasetError, load_hub_items, load_items
from tests.helpers.samples import SAMPLES

DATA = SAMPLES
pytestmark = pytest.mark.needs_samples

REPO_ID = "tanaw/seabench-sample"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
FILES = ("bhasa/causal/th.jsonl", "lindsea/id/syntax/morphology.jsonl", "lindsea/id/syntax/argument_structure.jsonl",
         "lindsea/id/syntax/filler-gap_dependencies.jsonl", "lindsea/id/syntax/NPIs_and_negation.jsonl")


class _Hub(BaseHTTPRequestHandler):
    """Serves `/datasets/<repo>/resolve/<commit>/<path>` from a folder, with the headers the Hub sends."""

    root: Path
    requests: list[str]

    def _resolve(self, with_body: bool) -> None:
        self.requests.append(f"{self.command} {self.path}")
        match = re.fullmatch(r"/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", unquote(urlparse(self.path).path))
        if not match or match.group(1) != REPO_ID:
            return self._error("RepoNotFound")
        if match.group(2) != COMMIT:
            return self._error("RevisionNotFound")
        path = self.root / match.group(3)
        if not path.is_file():
            return self._error("EntryNotFound")
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def _error(self, code: str) -> None:
        self.send_response(404)
        self.send_header("X-Error-Code", code)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self) -> None:  # noqa: N802 (http.server naming)
        self._resolve(with_body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._resolve(with_body=True)

    def log_message(self, *args) -> None:
        pass


@contextmanager
def local_hub(root: Path):
    handler = type("Hub", (_Hub,), {"root": root, "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler.requests
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DATA / rel, root / rel)
    return root


def test_hub_items_equal_local_items(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    cache = tmp_path / "cache"
    with local_hub(repo) as (endpoint, requests):
        items = load_hub_items(REPO_ID, "causal", "th", revision=COMMIT, cache_dir=cache, endpoint=endpoint)
        mp = load_hub_items(REPO_ID, "lindsea-mp", "id", revision=COMMIT, cache_dir=cache, endpoint=endpoint)
    assert items == load_items("causal", "th", data_dir=DATA)
    assert sum(1 for it in items if it.warnings) == 51
    assert len(mp) == 380 and mp[0].item_id == "morphology-0"
    assert any(r.startswith("GET /datasets/tanaw/seabench-sample/resolve/") for r in requests)
    snapshot = cache / "datasets--tanaw--seabench-sample" / "snapshots" / COMMIT / "bhasa" / "causal" / "th.jsonl"
    assert snapshot.is_file()

    # Offline afterwards: the cached snapshot still serves the same items, without a request.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert load_hub_items(REPO_ID, "causal", "th", revision=COMMIT, cache_dir=cache, limit=3) == items[:3]


def test_offline_without_cache_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DatasetError, match=r"hf:tanaw/seabench-sample@0123.*:bhasa/causal/th\.jsonl: "
                                           r"Hugging Face Hub unreachable \(HF_HUB_OFFLINE is set\)"):
        load_hub_items(REPO_ID, "causal", "th", revision=COMMIT, cache_dir=tmp_path / "cache")


def test_missing_file_repo_and_revision(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    cache = tmp_path / "cache"
    with local_hub(repo) as (endpoint, _):
        with pytest.raises(DatasetError, match=r"bhasa/causal/id\.jsonl: file not found in the dataset repo"):
            load_hub_items(REPO_ID, "causal", "id", revision=COMMIT, cache_dir=cache, endpoint=endpoint)
        with pytest.raises(DatasetError, match="repository or revision not found"):
            load_hub_items("tanaw/nope", "causal", "th", revision=COMMIT, cache_dir=cache, endpoint=endpoint)
        with pytest.raises(DatasetError, match="repository or revision not found"):
            load_hub_items(REPO_ID, "causal", "th", revision="f" * 40, cache_dir=cache, endpoint=endpoint)


def test_revision_must_be_pinned():
    with pytest.raises(DatasetError, match="pinned 40-hex commit"):
        load_hub_items(REPO_ID, "causal", "th", revision="main")


def test_load_items_reads_an_hf_data_source(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    with local_hub(repo) as (endpoint, requests):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        monkeypatch.setenv("TANAW_DATA_DIR", f"hf:{REPO_ID}@{COMMIT}")
        items = load_items("lindsea-mp", "id", limit=5)
    assert [it.item_id for it in items] == [f"morphology-{i}" for i in range(5)]
    assert len([r for r in requests if r.startswith("GET")]) == 4  # the four syntax files, once each


class _NotAHub(BaseHTTPRequestHandler):
    """Answers like a captive portal or a misconfigured mirror: 200 without the Hub's headers."""

    def do_HEAD(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD

    def log_message(self, *args) -> None:
        pass


def test_endpoint_that_is_not_a_hub_is_reported_as_unreachable(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotAHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(DatasetError, match=r"Hugging Face Hub unreachable \(FileMetadataError: .*X-Repo-Commit"):
            load_hub_items(REPO_ID, "causal", "th", revision=COMMIT, cache_dir=tmp_path / "cache",
                           endpoint=f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
