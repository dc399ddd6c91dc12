"""Which data directory the app and the CLI read when none is given."""
from __future__ import annotations

from evaluator.datasets import PULL_MANIFEST, REPO_ROOT, default_data_dir, pulled_data_dir


def test_env_then_pulled_data_then_shared_then_demo(monkeypatch, tmp_path):
    monkeypatch.setenv("TANAW_DATA_DIR", str(tmp_path / "given"))
    assert default_data_dir() == tmp_path / "given"
    monkeypatch.delenv("TANAW_DATA_DIR")
    monkeypatch.setenv("TANAW_HOME", str(tmp_path / "home"))
    shared = REPO_ROOT.parent / "shared" / "data"
    fallback = shared if shared.is_dir() else REPO_ROOT / "data" / "demo"
    assert default_data_dir() == fallback
    pulled = pulled_data_dir()
    assert pulled == tmp_path / "home" / "data"
    pulled.mkdir(parents=True)
    assert default_data_dir() == fallback  # a folder without the pull's manifest is not pulled data
    (pulled / PULL_MANIFEST).write_text("{}", "utf-8")
    assert default_data_dir() == pulled
