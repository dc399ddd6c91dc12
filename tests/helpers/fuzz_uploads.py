"""More hostile uploads for the fuzz test (seeded): native files, odd line endings and BOMs, numbers outside a
column's range, answers that conflict across the files of one zip, error floods, summaries, and every earlier
hostile file again as a zip member; model names that only look like an existing one. Also valid files re-encoded
(CR, CRLF, BOM, U+2028 in strings) that must import in full."""
from __future__ import annotations

import json
import random
import unicodedata
from typing import Iterator

from evaluator.datasets import load_items
from tests.helpers import upload_files as U
from tests.helpers.fuzz_files import PAYLOADS, escaped_jsonl, hostile_files, with_surrogates

SEAHELM = "inferences/id/sentiment/m_sentiment_id.jsonl"
LM_EVAL = "samples_xcopa_id_2026-03-01T10-00-00.jsonl"
PACUTE = "pacute-affixation-gen.jsonl"
NATIVE = "native-preds.jsonl"


def base_files() -> dict[str, bytes]:
    """One valid small per-item file per format (each maps every row onto our items)."""
    pacute = (U.PACUTE_SAMPLE / "inference" / PACUTE).read_bytes()
    native = [{"task": "sentiment", "lang": "id", "item_id": it.item_id, "prompt_lang": "en",
               "prediction": "Jawaban: Positif"} for it in load_items("sentiment", "id", limit=5, data_dir=U.DATA)]
    return {SEAHELM: U.jsonl(U.seahelm_sentiment_rows(5)), LM_EVAL: U.jsonl(U.lm_eval_xcopa_rows(5)),
            PACUTE: b"\n".join(pacute.split(b"\n")[:5]) + b"\n", NATIVE: U.jsonl(native)}


def summary_files() -> dict[str, bytes]:
    found = sorted(U.PACUTE_SAMPLE.glob("evaluation_results*.json"))
    return {"m_seahelm_results.json": U.seahelm_results(), "results_2026-03-01T10-00-00.json": U.lm_eval_results(),
            **({found[0].name: found[0].read_bytes()} if found else {})}


def rows_of(data: bytes) -> list[dict]:
    return [json.loads(x) for x in data.split(b"\n") if x.strip()]


def reencode(data: bytes, rng: random.Random, *, bom: bool | None = None) -> bytes:
    """The same rows with random line ends (LF, CRLF, CR or a mix) and maybe a BOM and blank lines."""
    out = []
    for line in (x for x in data.split(b"\n") if x.strip()):
        out.append(line + rng.choice([b"\n", b"\r\n", b"\r", b"\r\n\r\n", b"\n\n"]))
    return (b"\xef\xbb\xbf" if (rng.random() < 0.5 if bom is None else bom) else b"") + b"".join(out)


def _answer_keys(row: dict) -> list[str]:
    return [k for k in ("prediction", "responses", "response", "filtered_resps") if k in row]


def _changed_answer(row: dict, payload: str) -> dict:
    """The row answering differently (so a second copy of it conflicts)."""
    row = dict(row)
    for k in _answer_keys(row):
        if k == "filtered_resps":
            flipped = [[v, f] for (v, f) in reversed(row[k])]
            row[k] = flipped if flipped != row[k] else [[-99.0, False]] + row[k][1:]
            row["resps"] = [[x] for x in row[k]]
        elif isinstance(row[k], list):
            row[k] = [f"Jawaban: Netral {payload}"]
        else:
            row[k] = f"zzz {payload}"
    return row


def _huge(rng: random.Random, name: str, rows: list[dict]) -> list[dict]:
    """One numeric field set to a value outside its INTEGER column, or (float fields) not representable."""
    big = rng.choice([2**31, 10**30, int("9" * 400)])  # integer columns: run numbers, ids, token counts
    huge = rng.choice([int("9" * 400), -(10**400)])  # no double holds these
    r = dict(rows[rng.randrange(len(rows))])
    if name == NATIVE:
        r.update(rng.choice([{"run": big}, {"option_logprobs": [-0.5, huge]}]))
    elif name == SEAHELM:
        r.update(rng.choice([{"token_usages": [{"prompt_tokens": big, "completion_tokens": 1}]},
                             {"individual_scores": {"normalized_accuracy": huge}}]))
    elif name == LM_EVAL:
        r.update(rng.choice([{"doc_id": big}, {"filtered_resps": [[huge, False], [-1.0, False]]}]))
    else:
        r.update({"exact_match": huge})
    return rows + [r]


def _native_bad(rng: random.Random, rows: list[dict]) -> list[dict]:
    r = dict(rows[rng.randrange(len(rows))])
    change = rng.choice([{"lang": "xx"}, {"prompt_lang": "klingon"}, {"order": "zz"}, {"run": 0}, {"run": "1"},
                         {"prediction": 5}, {"task": "no-such-task"}, {"item_id": " "}, {"option_logprobs": []},
                         {"option_logprobs": ["a"]}, {"option_logprobs": [True]}, {"extra_field": 1},
                         {"reasoning": ["x"]}, {"task": None}])
    r.update(change)
    if rng.random() < 0.3:
        r.pop(rng.choice(["task", "lang", "item_id", "prompt_lang", "prediction"]), None)
    return rows + [r]


def _summary_bad(rng: random.Random, data: bytes) -> bytes:
    kind = rng.choice(["truncated", "deep", "nan", "not_object", "types", "bom_cr_truncated"])
    if kind == "truncated":
        return data[: rng.randrange(1, len(data) - 1)]
    if kind == "deep":
        return b'{"results": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    if kind == "nan":
        return data.replace(b"55.0", b"NaN").replace(b"0.8333", b"Infinity").replace(b"{", b'{"x": 1e999, ', 1)
    if kind == "not_object":
        return rng.choice([b"[1, 2]", b'"text"', b"null"])
    if kind == "types":
        return json.dumps({"results": [1, 2], "id": "x", "benchmarks": 5, "hf_model_name": []}).encode()
    return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r")[:-2]


def _zip(entries: dict[str, bytes]) -> bytes:
    return U.zip_bytes(entries)


KINDS = ("line_ends_conflict", "cross_file_conflict", "huge_number", "u2028_outside_string", "error_flood",
         "native_bad", "wrapped_hostile", "summary_bad", "nul_byte", "cr_truncated", "surrogates_everywhere")
SURROGATE_KINDS = ("lone_surrogate", "surrogates_everywhere")
"""Kinds whose every refusal names a lone surrogate (hostile_files' and ours)."""


def more_hostile(n: int = 520, seed: int = 11) -> Iterator[tuple[str, str, bytes]]:
    """Yield (kind, upload name, bytes): `n` uploads, every one of which must be refused."""
    rng = random.Random(seed)
    base, summaries = base_files(), summary_files()
    names = list(base)
    earlier = list(hostile_files(60, seed=seed))
    for count in range(n):
        kind = KINDS[count % len(KINDS)]
        name = rng.choice(names)
        rows = rows_of(base[name])
        payload = rng.choice(PAYLOADS)
        if kind == "line_ends_conflict":
            if name == PACUTE:  # pacute-bench's retry imports with a warning (tests/unit/test_pacute_import_rules.py)
                name = names[(names.index(name) + 1) % len(names)]
                rows = rows_of(base[name])
            dup = rows[0] if name == NATIVE else _changed_answer(rows[0], payload)
            data = reencode(U.jsonl(rows + [dup]), rng)
        elif kind == "cross_file_conflict":
            other = [_changed_answer(r, payload) for r in rows]
            data = _zip({f"run_1/a/{name}": base[name], f"run_1/b/{name}": reencode(U.jsonl(other), rng)})
            name = f"conflict-{count}.zip"
        elif kind == "huge_number":
            data = reencode(U.jsonl(_huge(rng, name, rows)), rng)
        elif kind == "u2028_outside_string":
            line = "{\u2028".encode() + U.jsonl(rows[:1]).rstrip(b"\n")[1:]  # outside any string
            data = base[name] + line + b"\n"
        elif kind == "error_flood":
            bad = b'{"id": [1], "responses": 5, "cleaned_responses": 1}\n' * rng.randrange(20, 120)
            data = _zip({f"run_1/m{i}/m_sentiment_id.jsonl": bad for i in range(rng.randrange(3, 40))})
            name = f"flood-{count}.zip"
        elif kind == "native_bad":
            name = NATIVE
            data = reencode(U.jsonl(_native_bad(rng, rows_of(base[NATIVE]))), rng)
        elif kind == "wrapped_hostile":
            inner_kind, inner_name, inner = earlier[count % len(earlier)]
            if inner_name.endswith(".zip"):
                inner_name = "inner.zip"
            data = _zip({f"run_{rng.randrange(1, 4)}/{inner_name}": inner})
            name = f"wrapped-{inner_kind}-{count}.zip"
        elif kind == "summary_bad":
            name = rng.choice(sorted(summaries))
            data = _summary_bad(rng, summaries[name])
        elif kind == "nul_byte":
            pos = rng.randrange(1, len(base[name]) - 1)
            data = base[name][:pos] + rng.choice([b"\x00", b"\x01", b"\x1b"]) + base[name][pos:]
        elif kind == "surrogates_everywhere":  # every string of every row, or of a summary document
            if rng.random() < 0.3:
                name = rng.choice(sorted(summaries))
                data = json.dumps(with_surrogates(json.loads(summaries[name]), rng)).encode("ascii")
            else:
                data = reencode(escaped_jsonl([with_surrogates(r, rng, keys=False) for r in rows]), rng)
        else:  # cr_truncated: CR line ends, last row cut mid-way
            text = base[name].replace(b"\n", b"\r").rstrip(b"\r")
            data = text[: text.rfind(b"\r") + 1 + rng.randrange(1, 20)]
        if kind in ("huge_number", "native_bad", "nul_byte", "line_ends_conflict", "surrogates_everywhere") and \
                rng.random() < 0.4:
            data = _zip({f"run_1/{name}": data})  # the same, as a zip member
            name = f"{kind}-{count}.zip"
        yield kind, name, data


def valid_variants(n: int = 100, seed: int = 5) -> Iterator[tuple[str, bytes, int]]:
    """Yield (name, bytes, rows): valid files re-encoded (line ends, BOM, U+2028/U+0085 inside strings, zipped)
    that must import every row."""
    rng = random.Random(seed)
    base = base_files()
    names = sorted(base)
    for count in range(n):
        name = names[count % len(names)]
        rows = rows_of(base[name])
        for r in rows:
            for k in _answer_keys(r):
                if isinstance(r[k], str):
                    r[k] += rng.choice(["\u2028", "\u0085", "\u2029", ""])
                elif k == "responses":
                    r[k] = [r[k][0] + rng.choice(["\u2028", "\u0085", ""])]
        data = reencode(U.jsonl(rows), rng)
        if rng.random() < 0.3:
            data, name = _zip({f"run_1/{name}": data}), f"valid-{count}.zip"
        yield name, data, len(rows)


LOOKALIKE_CHANGES = (
    ("U+2011 for '-'", "-", "\u2011"), ("U+2010 for '-'", "-", "\u2010"), ("U+2212 for '-'", "-", "\u2212"),
    ("U+2013 for '-'", "-", "\u2013"), ("Cyrillic a", "a", "\u0430"), ("Cyrillic e", "e", "\u0435"),
    ("Cyrillic o", "o", "\u043e"), ("Cyrillic i", "i", "\u0456"), ("Greek omicron", "o", "\u03bf"),
    ("'1' for 'l'", "l", "1"), ("'I' for 'l'", "l", "I"), ("fullwidth e", "e", "\uff45"),
)
"""(what, character, look-alike): one-character swaps that keep a name looking the same."""
INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u202a")
"""Format characters (Unicode category Cf) that show nothing."""


def lookalike_names(name: str, n: int = 60, seed: int = 3) -> Iterator[tuple[str, str]]:
    """Yield (how, spelling) `n` times: `name` with one or two look-alike swaps, invisible characters inserted, its
    case changed, or fullwidth forms (NFKC folds them), each different from `name` and each meant to be refused."""
    rng = random.Random(seed)
    swaps = [c for c in LOOKALIKE_CHANGES if c[1] in name]
    assert swaps and all(unicodedata.category(ch) == "Cf" for ch in INVISIBLE)
    count = 0
    while count < n:
        kind = rng.choice(("swap", "two_swaps", "invisible", "case", "fullwidth"))
        if kind in ("swap", "two_swaps"):
            spelled, how = name, []
            for what, ch, look in rng.sample(swaps, 1 if kind == "swap" else min(2, len(swaps))):
                at = rng.choice([i for i, c in enumerate(spelled) if c == ch] or [0])
                spelled = spelled[:at] + look + spelled[at + 1:] if spelled[at:at + 1] == ch else spelled
                how.append(what)
            how = " and ".join(how)
        elif kind == "invisible":
            at = rng.randrange(len(name) + 1)
            mark = rng.choice(INVISIBLE)
            spelled, how = name[:at] + mark + name[at:], f"U+{ord(mark):04X} at {at}"
        elif kind == "case":
            spelled = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in name)
            how = "case changed"
        else:
            spelled = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and rng.random() < 0.5 else c for c in name)
            how = "fullwidth forms"
        if spelled != name:
            count += 1
            yield how, spelled
