"""Issue 14: the one-pass check of a well-formed native row accepts exactly the rows the full check accepts,
with the same Prediction; every other row goes through the full check and gets its errors (file, line, field)."""
from __future__ import annotations

import random

import evaluator.formats.native as native
from evaluator.registry import ALIASES

VALUES = [None, "", " ", "A", "causal", "nli", "id", "th", "xx", "en", "native", 0, 1, -1, 2**31, 2**31 - 1, True,
          1.0, [], {}, "ab", "ba", "cb", [1.0, -2.0], *list(ALIASES)[:3]]
KEYS = ["task", "lang", "item_id", "prompt_lang", "prediction", "run", "order", "reasoning", "prompt", "scores",
        "option_logprobs", "bogus"]


def test_the_fast_path_accepts_what_the_full_check_accepts(monkeypatch):
    rng = random.Random(14)
    base = {"task": "causal", "lang": "id", "item_id": "x1", "prompt_lang": "en", "prediction": "A", "run": 3}
    rows = []
    for _ in range(3000):
        row = dict(base)
        for _ in range(rng.randint(0, 3)):
            key = rng.choice(KEYS)
            if rng.random() < 0.15:
                row.pop(key, None)
            else:
                row[key] = rng.choice(VALUES)
        rows.append(row)
    fast = [native._well_formed(row, 7) for row in rows]
    monkeypatch.setattr(native, "_well_formed", lambda obj, line: None)
    for row, got in zip(rows, fast):
        want, errors = native._check(row, "f.jsonl", 7)
        if got is not None:
            assert got == want and not errors, row
        elif row.get("option_logprobs") is None:
            assert want is None and errors and all(e.line == 7 for e in errors), row
