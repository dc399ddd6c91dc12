"""A small store with rows in every core table, written with plain SQL (no evaluator), for store-level tests."""
from __future__ import annotations

from store import db

MODELS = ("meta/llama 3", "org/m=2", "sea-lion")
"""Model ids, two of them with characters that partition folders must escape."""


def filled_store(path: str = ":memory:"):
    """A connection to a store holding 3 models x 2 tasks of runs, predictions, scores and aggregates."""
    con = db.connect(path)
    con.execute("INSERT INTO models (model_id, family, params_b, origin, weights, sea_tuned) VALUES "
                "(?, 'llama', 8, 'evaluated', 'open', false), (?, NULL, NULL, 'uploaded', 'closed', false), "
                "(?, 'sea', 9.5, 'demo', 'open', true)", list(MODELS))
    con.execute("INSERT INTO tasks (task, family, grp, langs, mode, metrics, headline, chance, description, version) "
                "VALUES ('sentiment', 'bhasa', 'NLU', ['id','th'], 'generate', ['macro_f1'], '{\"id\": \"macro_f1\"}', "
                "NULL, 'Sentiment', 1), ('qa', 'bhasa', 'NLU', ['th'], 'generate', ['f1'], NULL, NULL, 'QA', 2)")
    items = [("sentiment", "th", f"s{i}", '{"text": "ดีมาก %d"}' % i, '"positive"', None) for i in range(4)]
    items += [("qa", "th", f"q{i}", '{"question": "தமிழ் %d"}' % i, '["a", "b"]', '["x"]') for i in range(3)]
    con.executemany("INSERT INTO items (task, lang, item_id, inputs, gold, options, warnings) "
                    "VALUES (?, ?, ?, ?, ?, ?, ['w'])", items)
    for m_no, model in enumerate(MODELS):
        for task, ids in (("sentiment", [f"s{i}" for i in range(4)]), ("qa", [f"q{i}" for i in range(3)])):
            run = f"run-{m_no}-{task}"
            con.execute("INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, settings, source, harness) "
                        "VALUES (?, ?, ?, 'th', 'native', '{\"temperature\": 0}', 'evaluated', 'tanaw')",
                        [run, model, task])
            for k, item in enumerate(ids):
                ok = (k + m_no) % 2 == 0
                con.execute("INSERT INTO predictions (run_id, item_id, ord, prompt, output, answer, parsed, "
                            "option_logprobs, tokens_out) VALUES (?, ?, 'ab', 'p', ?, ?, ?, [-0.5, -1.25], 7)",
                            [run, item, f"<b>ตอบ</b> {k}", "positive" if ok else None, ok])
                con.execute("INSERT INTO scores VALUES (?, ?, 'ab', 'acc', ?)", [run, item, 1.0 if ok else 0.0])
            con.execute("INSERT INTO aggregates (model_id, task, lang, prompt_lang, metric, value, n, n_runs, "
                        "parse_fail_rate, is_headline, status) VALUES (?, ?, 'th', 'native', 'acc', ?, ?, 1, 0.5, "
                        "true, 'ok')", [model, task, 50.0 + m_no, len(ids)])
    con.execute("INSERT INTO self_reported VALUES ('run-0-qa', 'q0', 'f1', 0.9)")
    con.execute("INSERT INTO reported (source, task, lang, metric, system, value) VALUES "
                "('bhasa', 'qa', 'th', 'f1', 'GPT-4', 71.2), ('bhasa', NULL, 'th', 'f1', 'x', NULL)")
    con.execute("INSERT INTO ingests (source_hash, file_name, format, model_id, n_rows) "
                "VALUES ('abc', 'f.jsonl', 'native', 'org/m=2', 7)")
    return con
