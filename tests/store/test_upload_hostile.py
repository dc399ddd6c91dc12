"""Uploads as the world sends them (docs/security.md, "Uploads and rendering"): every line-ending style and a BOM,
U+2028 inside strings, answers repeated across the files of one upload, numbers outside a column's range or
not representable, the error cap and the CPU budget. Items come from a stand-in index (no shared data needed)."""
from __future__ import annotations

import dataclasses
import io
import json
import zipfile

import pytest

from evaluator.formats.limits import DEFAULT_LIMITS, INT32_MAX
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.spec import Item

GOLD = ("positive", "negative", "neutral")


def _items(task: str, lang: str, data_dir=None) -> list[Item]:
    if (task, lang) != ("sentiment", "id"):
        raise KeyError(f"no stand-in items for {task}/{lang}")
    return [Item("sentiment", "id", f"s{i}", {"text": f"kalimat nomor {i}"}, GOLD[i % 3]) for i in range(1, 11)]


@pytest.fixture
def index():
    return ItemIndex(loader=_items)


def native_row(i: int, prediction: str = "Positif", **extra) -> dict:
    return {"task": "sentiment", "lang": "id", "item_id": f"s{i}", "prompt_lang": "en", "prediction": prediction,
            **extra}


def lines(rows: list[dict], end: str = "\n") -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + end for r in rows).encode()


def seahelm_row(i: int, response: str = "Jawaban: Positif", **extra) -> dict:
    return {"id": f"s{i}", "label": GOLD[i % 3], "metadata": {"language": "id"},
            "prompts": [{"text": f"kalimat nomor {i}"}], "responses": [response], "cleaned_responses": [response],
            **extra}


def zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
@pytest.mark.parametrize("fmt", ["native", "seahelm"])
def test_every_line_ending_imports_every_row(index, end, fmt):
    rows = [native_row(i) for i in range(1, 11)] if fmt == "native" else [seahelm_row(i) for i in range(1, 11)]
    name = "preds.jsonl" if fmt == "native" else "m_sentiment_id.jsonl"
    up = read_upload(lines(rows, end), name, index=index)
    assert up.errors == [] and len(up.predictions) == 10
    assert [p.line for p in up.predictions] == list(range(1, 11))


@pytest.mark.parametrize("fmt", ["native", "seahelm"])
def test_bom_and_u2028_inside_a_string_keep_the_file_valid_and_line_numbers_right(index, fmt):
    odd = "Positif\u2028(baris baru)\u0085\u2029"
    if fmt == "native":
        rows, name = [native_row(1), native_row(2, odd), native_row(3)], "preds.jsonl"
    else:
        rows, name = [seahelm_row(1), seahelm_row(2, odd), seahelm_row(3)], "m_sentiment_id.jsonl"
    data = b"\xef\xbb\xbf" + lines(rows, "\r\n")
    up = read_upload(data, name, index=index)
    assert up.errors == [] and len(up.predictions) == 3
    assert up.predictions[1].output.endswith(odd)
    bad = b"\xef\xbb\xbf" + lines(rows[:2]) + b"\n" + b'{"task": oops}\n'
    up = read_upload(bad, name, index=index)
    assert [(e.file, e.line) for e in up.errors] == [(name, 4)]  # blank line 3 counted, U+2028 not a break


def test_conflicting_answers_across_zip_members_are_refused(index):
    a = lines([native_row(i, "Positif") for i in range(1, 11)])
    b = lines([native_row(i, "Negatif") for i in range(1, 11)])
    up = read_upload(zipped({"part1/preds.jsonl": a, "part2/preds.jsonl": b}), "two.zip", index=index)
    assert not up.ok and len(up.errors) == 10
    assert str(up.errors[0]) == ("two.zip!part2/preds.jsonl:1: id: conflicts with two.zip!part1/preds.jsonl:1 "
                                 "(item 's1', run 1): the outputs differ, so the upload is ambiguous")


def test_identical_answers_across_files_are_imported_once_with_a_warning(index, tmp_path):
    a = lines([native_row(i) for i in range(1, 11)])
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.jsonl").write_bytes(a)
    (tmp_path / "x" / "b.jsonl").write_bytes(lines([native_row(3)]))
    up = read_upload(tmp_path / "x", index=index)
    assert up.ok and len(up.predictions) == 10
    assert "b.jsonl:1: id: duplicate of a.jsonl:3 (item 's3', run 1); identical, the first is kept" in \
        [str(w) for w in up.warnings]
    # different run folders are different runs, not duplicates
    up = read_upload(zipped({"run_1/p.jsonl": a, "run_2/p.jsonl": lines([native_row(1, "Negatif")])}), "r.zip",
                     index=index)
    assert up.errors == [] and sorted({p.run for p in up.predictions}) == [1, 2]


def test_numbers_outside_a_column_or_unrepresentable_are_field_errors(index):
    huge = "9" * 400
    data = (lines([native_row(1, run=INT32_MAX), native_row(2, run=INT32_MAX + 1)]) +
            ('{"task": "sentiment", "lang": "id", "item_id": "s3", "prompt_lang": "en", "prediction": "A", '
             f'"option_logprobs": [-0.5, {huge}]}}\n').encode() +
            lines([native_row(4, run=10**30)]))
    up = read_upload(data, "preds.jsonl", index=index)
    assert [str(e) for e in up.errors] == [
        "preds.jsonl:2: run: 2147483648 is out of range (1 to 2147483647)",
        "preds.jsonl:3: option_logprobs[1]: must be a finite number of ordinary size",
        "preds.jsonl:4: run: a huge number is out of range (1 to 2147483647)"]
    tokens = seahelm_row(1, token_usages=[{"prompt_tokens": 2**31, "completion_tokens": 4}])
    up = read_upload(lines([tokens, seahelm_row(2, individual_scores={"accuracy": int(huge)})]),
                     "m_sentiment_id.jsonl", index=index)
    assert [str(e) for e in up.errors] == [
        "m_sentiment_id.jsonl:1: token_usages[0].prompt_tokens: 2147483648 is out of range (0 to 2147483647)",
        "m_sentiment_id.jsonl:2: individual_scores.accuracy: number is not finite or too large to represent"]


def test_errors_stop_at_100_with_a_count_of_what_was_not_checked(index):
    bad = lines([native_row(1, run=0)]) * 1000
    up = read_upload(bad, "preds.jsonl", index=index)
    assert len(up.errors) == 101
    assert str(up.errors[-1]) == "preds.jsonl:101: stopped after 100 errors; 900 more line(s) from here on not checked"
    # the 1.1 MB zip of many bad members: one cap for the whole upload, not one per member
    members = {f"run_1/m{i}_sentiment_id.jsonl": lines([{**seahelm_row(1), "id": [1]}]) * 200 for i in range(300)}
    up = read_upload(zipped(members), "many.zip", index=index)
    assert len(up.errors) == 102
    assert str(up.errors[-2]).endswith("stopped after 100 errors; 100 more line(s) from here on not checked")
    assert str(up.errors[-1]) == "many.zip: stopped after 101 errors; 299 more file(s) not checked"


def test_cpu_budget_refuses_instead_of_running_on(index):
    limits = dataclasses.replace(DEFAULT_LIMITS, max_cpu_seconds=0.0)
    up = read_upload(lines([native_row(i) for i in range(1, 11)]), "preds.jsonl", index=index, limits=limits)
    assert not up.ok
    assert "refused: checking took more than 0 s of CPU" in str(up.errors[0])


def test_row_cap_refuses_oversized_uploads(index):
    limits = dataclasses.replace(DEFAULT_LIMITS, max_rows=5)
    up = read_upload(lines([seahelm_row(i) for i in range(1, 11)]), "m_sentiment_id.jsonl", index=index,
                     limits=limits)
    assert [str(e) for e in up.errors] == ["m_sentiment_id.jsonl:6: more than 5 rows in this upload; split it"]


def test_a_parser_crash_is_an_error_with_an_id_not_a_traceback(index, monkeypatch, caplog):
    from evaluator.formats import read

    def boom(*a, **k):
        raise ZeroDivisionError("secret internals")

    monkeypatch.setitem(read.PARSERS, "seahelm", boom)
    up = read_upload(lines([seahelm_row(1)]), "m_sentiment_id.jsonl", index=index)
    assert not up.ok and len(up.errors) == 1
    msg = str(up.errors[0])
    assert msg.startswith("m_sentiment_id.jsonl: could not be checked (internal error ") and "secret" not in msg
    error_id = msg.rsplit(" ", 1)[-1].rstrip(")")
    assert any(error_id in r.getMessage() and r.exc_info for r in caplog.records)


def test_archive_header_refusals_are_capped_too(index):
    up = read_upload(zipped({f"run_1/inner{i}.zip": b"PK" for i in range(300)}), "nested.zip", index=index)
    assert len(up.errors) == 101
    assert str(up.errors[-1]) == "nested.zip: … and 200 more errors not shown"


def test_line_splitting_matches_a_reference_whatever_the_chunking():
    """`split_lines` over random chunks equals normalising the line ends and splitting (line numbers included)."""
    import random

    from evaluator.formats.source import split_lines

    rng = random.Random(3)
    for _ in range(3000):
        parts = []
        for _ in range(rng.randrange(0, 10)):
            parts += [rng.choice([b"ab", b" x ", b"", b"  ", "\u2028y".encode(), b"z" * 12, b"\t"]),
                      rng.choice([b"\n", b"\r", b"\r\n", b"\n\n", b"\r\r\n", b"\n\r"])]
        data = (b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + b"".join(parts) + rng.choice([b"", b"tail"])
        size = rng.randrange(1, 8)
        chunks = [data[i:i + size] for i in range(0, len(data), size)]
        normal = data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        want = [(n, raw.strip()) for n, raw in enumerate(normal, start=1) if raw.strip()]
        assert [(n, raw.strip()) for n, raw, _ in split_lines(chunks, 100)] == want, (data, size)
        short = list(split_lines(chunks, 5))
        assert [n for n, _, _ in short] == [n for n, _ in want]
        assert all((raw is None) == (length > 5) for _, raw, length in short)
