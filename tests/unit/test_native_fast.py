"""A JSON line read by orjson from its bytes reads as it does decoded first, and a row found by its id alone maps
as it does through `locate` and `align`."""
from __future__ import annotations



LINES = [b'{"task": "causal", "prediction": "A"}', b'{"a": "\xff"}', b'{"a": "\xc0\xaf"}', b'{"a": "\xed\xa0\x80"}',
         b'{"a": "\xe2\x82"}', b'{"a": "\\ud800"}', b'{"a": "\\ud83d\\ude00 \xf0\x9f\x98\x80"}', b'{"a": "\x00"}',
         b'{"a": 1}\x00', b'{"a": NaN}', b'{"a": Infinity}', b'{"a": 1e999}', b'{"a": 12345678901234567890}',
         b'{"a": 1234567890123456789}', b'{"a": -0.0, "b": 1.5e-300}', b'[1, 2]', b'"text"', b'null', b'{"a": 1} x',
         b'{"a": 1, "a": 2}', b'{"a": [[[[[[]]]]]]}', b'{"a": ' + b'[' * 40 + b']' * 40 + b'}', b'{"a": "[[[{{{"}',
         b'{"a": "\xe0\xb8\x81\xe0\xae\x95"}', b'{"a": 1,}', b"{'a': 1}", b'{"a": "\t"}', b'{"a": "\\u0000"}', b'{}']


def test_a_line_read_from_its_bytes_is_read_as_from_its_text():
    from evaluator.formats import limits as L

    tight = L.Limits(max_depth=8)
    for raw in LINES:
        for limits in (L.DEFAULT_LIMITS, tight):
            got, want = (f(raw, "f.jsonl", 3, limits) for f in (L._json_object, L._json_text_object))
            assert got[0] == want[0] and type(got[0]) is type(want[0]), raw
            assert (got[1] is None) == (want[1] is None) and str(got[1]) == str(want[1]), raw


def test_a_row_found_by_its_id_alone_maps_as_the_full_path_maps_it(monkeypatch):
    import dataclasses

    from evaluator.formats import mapping
    from evaluator.formats.parsed import ParsedRows, Row
    from evaluator.spec import Item, Prediction

    def items(task, lang, data_dir=None):
        if (task, lang) != ("causal", "id"):
            raise KeyError(f"no items for {task}/{lang}")
        return [Item("causal", "id", f"c{i}", {"premise": f"premis {i}", "choice1": "a", "choice2": "b"}, "A",
                     options=("a", "b")) for i in range(1, 6)]

    def pred(item_id, line, **kw):
        return Prediction(**{"task": "causal", "lang": "id", "item_id": item_id, "prompt_lang": "en", "output": "A",
                             "line": line, **kw})

    rows = [Row(pred("c1", 1), 1), Row(pred("c2", 2, run=2), 2), Row(pred("c9", 3), 3),  # the last: not ours
            Row(pred("c3", 4), 9),  # another line than its prediction's
            Row(pred("c4", 5), 5, label="B"), Row(pred("c5", 6, option_logprobs=(-1.0, -2.0)), 6),
            Row(pred("c1", 7, order="ba"), 7), Row(pred("c2", 8, run=2), 8),  # a repeat of line 2
            Row(pred("c1", 9), 9, own_id=False, texts=("premis 1",)),
            Row(pred("x", 10, prompt_lang="native"), 10, texts=("premis 5",), fields={"premise": "premis 5"}),
            Row(dataclasses.replace(pred("c1", 11), task="nli"), 11)]

    def mapped(some):
        parsed = ParsedRows("f.jsonl", "native")
        parsed.rows.extend(some)
        return mapping.map_rows(parsed, mapping.ItemIndex(loader=items)), parsed.warnings, parsed.errors

    cases = (rows[:5] + rows[6:], rows)  # without and with the row whose log-probabilities cannot be aligned
    fast = [mapped(some) for some in cases]
    assert sum(mapping._id_only(r, mapping.ItemIndex(loader=items).cell("causal", "id")) for r in rows[:8]) == 4
    assert len(fast[0][0]) == 6 and not fast[0][2] and fast[1][2]  # the rows mapped; the unalignable row refused
    monkeypatch.setattr(mapping, "_id_only", lambda row, cell: False)
    for some, (preds, warnings, errors) in zip(cases, fast):
        want = mapped(some)
        assert preds == want[0] and [vars(p) for p in preds] == [vars(p) for p in want[0]]
        assert [str(w) for w in warnings] == [str(w) for w in want[1]] and errors == want[2]
