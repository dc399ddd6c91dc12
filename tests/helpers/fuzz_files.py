"""Generator of malformed and hostile upload files for the fuzz test (deterministic: seeded)."""
from __future__ import annotations

import io
import json
import random
import zipfile
from typing import Iterator

from tests.helpers import upload_files as U

PAYLOADS = ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "javascript:alert(1)",
            "{{7*7}}", "'; DROP TABLE runs; --", "\u202e\u0000", "../../etc/passwd")


def _base_files() -> dict[str, bytes]:
    """One valid small file per per-item format (the mutation starting points)."""
    pacute = (U.PACUTE_SAMPLE / "inference" / "pacute-affixation-gen.jsonl").read_bytes()
    return {
        "inferences/id/sentiment/m_sentiment_id.jsonl": U.jsonl(U.seahelm_sentiment_rows(5)),
        "samples_xcopa_id_2026-03-01T10-00-00.jsonl": U.jsonl(U.lm_eval_xcopa_rows(5)),
        "pacute-affixation-gen.jsonl": b"\n".join(pacute.split(b"\n")[:5]) + b"\n",
    }


def _lines(data: bytes) -> list[dict]:
    return [json.loads(x) for x in data.splitlines() if x.strip()]


_LIST_FIELDS = {"responses", "token_usages", "finish_reasons", "resps", "filtered_resps", "reasoning_contents"}
_SCALAR_FIELDS = {"id", "doc_id", "question", "response", "thinking_trace", "doc"}


SURROGATES = ("\ud800", "\udfff", "\udbff", "\udc00", "\udfff\ud800")
"""Lone UTF-16 surrogates (and a reversed pair): JSON may escape them (`\\udfff`), UTF-8 cannot hold them."""


def with_surrogates(value, rng: random.Random, *, keys: bool = True):
    """`value` (parsed JSON) with a lone surrogate put into every string in it, and into every key unless `keys` is
    False (a summary file's task and metric names are keys; a file's first row's keys tell its format)."""
    if isinstance(value, str):
        cut = rng.randrange(len(value) + 1)
        return value[:cut] + rng.choice(SURROGATES) + value[cut:]
    if isinstance(value, dict):
        return {(with_surrogates(k, rng) if keys else k): with_surrogates(v, rng, keys=keys) for k, v in value.items()}
    if isinstance(value, list):
        return [with_surrogates(v, rng, keys=keys) for v in value]
    return value


def escaped_jsonl(rows: list[dict]) -> bytes:
    """JSONL with every non-ASCII character escaped (`json.dumps`' default), so lone surrogates can be written."""
    return "".join(json.dumps(r) + "\n" for r in rows).encode("ascii")


def _wrong_type(rng: random.Random, row: dict) -> dict:
    """The row with one typed field set to a value of the wrong type."""
    key = rng.choice(sorted((_LIST_FIELDS | _SCALAR_FIELDS) & set(row)))
    if key in _LIST_FIELDS:
        bad = rng.choice([{"x": 1}, "text", 3.5, True])
    elif key == "doc":
        bad = rng.choice(["text", [1, 2], 7])
    else:
        bad = rng.choice([[1, 2], {"k": "v"}, [], {}] + ([1.5, True] if key != "doc_id" else ["x", -3]))
    return {**row, key: bad}


def _zip(entries: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


def hostile_files(n: int = 520, seed: int = 7) -> Iterator[tuple[str, str, bytes]]:
    """Yield (case kind, file name, bytes): at least `n` files, every one of which must be refused or hold
    nothing importable."""
    rng = random.Random(seed)
    base = _base_files()
    names = list(base)
    bombs = [_zip({"run_1/inferences/id/sentiment/m_sentiment_id.jsonl": b"\n" * size})
             for size in (40 * 1024 * 1024, 900 * 1024)]  # over the size limit / over the compression ratio
    kinds = ["truncated", "wrong_type", "huge_line", "bad_utf8", "nan", "unknown_task", "conflicting_dup",
             "deep", "zip_bomb", "traversal", "payload_bad_row", "garbage", "empty", "not_object", "oversize",
             "payload_unknown_id", "zip_many", "bad_zip", "nested_zip", "missing_field", "lone_surrogate"]
    count = 0
    while count < n:
        kind = kinds[count % len(kinds)]
        name = rng.choice(names)
        data = base[name]
        rows = _lines(data)
        payload = rng.choice(PAYLOADS)
        if kind == "truncated":
            cut = rng.randrange(1, len(data) - 2)
            data = data[:cut].rstrip(b"\n")
            if data.endswith(b"}"):
                data = data[:-1]
        elif kind == "wrong_type":
            i = rng.randrange(len(rows))
            rows[i] = _wrong_type(rng, rows[i])
            data = U.jsonl(rows)
        elif kind == "huge_line":
            rows[0] = {**rows[0], "padding": "x" * (70 * 1024)}
            data = U.jsonl(rows)
        elif kind == "bad_utf8":
            pos = rng.randrange(len(data))
            data = data[:pos] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]) + data[pos:]
        elif kind == "nan":
            lit = rng.choice(["NaN", "Infinity", "-Infinity", "1e999"])
            data = data.replace(b"\n", b"\n" + ('{"id": "n", "responses": [%s], "doc_id": %s, "response": %s}'
                                               % (lit, lit, lit)).encode() + b"\n", 1)
        elif kind == "unknown_task":
            name = rng.choice([f"inferences/id/x/m_no-such-task{count}_id.jsonl",
                               f"samples_nosuch_{count}_2026-03-01T10-00-00.jsonl", f"bogus-bench-{count}.jsonl",
                               f"inferences/id/x/m_{payload.replace('/', '')[:20]}_id.jsonl"])
        elif kind == "conflicting_dup":
            if name == "pacute-affixation-gen.jsonl":  # pacute-bench's retry imports with a warning
                name = names[(names.index(name) + 1) % len(names)]  # (tests/unit/test_pacute_import_rules.py)
                data, rows = base[name], _lines(base[name])
            dup = dict(rows[0])
            for k in ("responses", "resps", "response"):
                if k in dup:
                    dup[k] = ["Jawaban: Netral " + payload] if k == "responses" else (
                        [["zzz"]] if k == "resps" else payload)
            if "filtered_resps" in dup:
                dup["filtered_resps"] = [[-0.1, False], [-9.0, False]] if dup["filtered_resps"][0][0] != -0.1 else \
                    [[-9.0, False], [-0.1, False]]
                dup["resps"] = [[x] for x in dup["filtered_resps"]]
            data = U.jsonl(rows + [dup])
        elif kind == "deep":
            depth = rng.choice([40, 1000, 200000])
            data = data + (b'{"id": ' + b"[" * depth + b"]" * depth + b"}\n")
        elif kind == "zip_bomb":
            name, data = "bomb.zip", bombs[(count // len(kinds)) % 2]
        elif kind == "traversal":
            bad_name = rng.choice(["../../evil.jsonl", "/etc/evil.jsonl", "C:\\evil.jsonl", "a/../../evil.jsonl",
                                   "..\\..\\evil.jsonl"])
            name, data = "traversal.zip", _zip({bad_name: base[names[0]]})
        elif kind == "payload_bad_row":
            rows[-1] = {**rows[-1], "id": {"html": payload}}
            if "doc" in rows[-1]:
                rows[-1]["doc"] = {**rows[-1]["doc"], "id": {"html": payload}}
            data = U.jsonl(rows)
        elif kind == "payload_unknown_id":  # outputs with payloads, but for items we do not have: nothing imported
            out = []
            for r in rows:
                r = {**r, "id": f"unknown-{rng.randrange(10**9)}", "prompts": [{"text": payload}],
                     "question": payload, "doc": {"id": f"zz-{rng.randrange(10**9)}", "premise": payload}}
                out.append(r)
            data = U.jsonl(out)
        elif kind == "garbage":
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
        elif kind == "empty":
            data = rng.choice([b"", b"\n\n", b"   "])
        elif kind == "not_object":
            data = rng.choice([b"[1, 2, 3]\n", b'"just a string"\n', b"null\n", b"42\n"]) + data
        elif kind == "oversize":
            name, data = name, data + b" " * (2 * 1024 * 1024)
        elif kind == "zip_many":
            name, data = "many.zip", _zip({f"run_{i}/x_{i}.jsonl": b"{}\n" for i in range(60)})
        elif kind == "bad_zip":
            z = _zip({names[0]: base[names[0]]})
            cut = rng.randrange(10, len(z) - 10)
            name, data = "broken.zip", z[:cut] + bytes(rng.randrange(256) for _ in range(20))
        elif kind == "nested_zip":
            name, data = "outer.zip", _zip({"inner.zip": _zip({names[0]: base[names[0]]})})
        elif kind == "missing_field":
            i = rng.randrange(len(rows))
            for k in ("id", "responses", "doc_id", "question", "response"):
                rows[i].pop(k, None)
            rows[i]["resps"] = None
            data = U.jsonl(rows)
        elif kind == "lone_surrogate":  # in every string field and key of one row after the first
            i = rng.randrange(1, len(rows))
            rows[i] = with_surrogates(rows[i], rng)
            data = escaped_jsonl(rows)
        yield kind, name, data
        count += 1
