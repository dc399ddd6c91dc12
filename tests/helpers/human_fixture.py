"""A tiny store for human-evaluation tests: Thai translation and Tamil summarisation, two models, made-up text."""
from __future__ import annotations

import json

from store import db

MODELS = ("org/alpha-7b", "org/beta-9b")
"""Model ids: neither may ever appear in the annotation page's HTML."""
TASKS = {"translation-en-xx": "th", "abssum": "ta"}


def human_store(path) -> None:
    """Write models, items, runs and predictions (6 items per task; beta skips item 5 of the translation)."""
    con = db.connect(path)
    for m in MODELS:
        con.execute("INSERT INTO models (model_id, origin) VALUES (?, 'evaluated')", [m])
    for task, lang in TASKS.items():
        for n in range(6):
            source = f"source sentence {n}" if task != "abssum" else f"บทความ article {n} கட்டுரை"
            ref = f"ประโยคอ้างอิง {n}" if lang == "th" else f"சுருக்கம் {n}"
            con.execute("INSERT INTO items (task, lang, item_id, inputs, gold) VALUES (?, ?, ?, ?, ?)",
                        [task, lang, f"{task}-{n}", json.dumps({"text": source}, ensure_ascii=False),
                         json.dumps(ref, ensure_ascii=False)])
        for m_no, m in enumerate(MODELS):
            run = f"run-{m_no}-{task}"
            con.execute("INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, source) "
                        "VALUES (?, ?, ?, ?, 'native', 'evaluated')", [run, m, task, lang])
            for n in range(6):
                if m_no == 1 and n == 5 and task != "abssum":
                    continue
                con.execute("INSERT INTO predictions (run_id, item_id, output, answer) VALUES (?, ?, ?, ?)",
                            [run, f"{task}-{n}", "raw", f"คำแปล {m_no}-{n}" if lang == "th" else f"வெளியீடு {m_no}-{n}"])
                con.execute("INSERT INTO scores VALUES (?, ?, 'ab', ?, ?)",
                            [run, f"{task}-{n}", "chrf" if task != "abssum" else "rougeL", 40.0 + 10 * m_no + n])
    con.close()


TABLE_MARKS = (("systems", "correct_of_n"), ("by_language", "campaigns"), ("alpha", "units"), ("tau", "tau"),
               ("quality", "caught_corrupted"), ("reported", "source"))
"""Each Human evaluation page table by a column only it has (checked in this order)."""


def human_tables(at) -> dict:
    """The tables a run AppTest of the Human evaluation page shows, by what they hold: systems, by_language, alpha,
    tau, quality, reported (the ESA table is left out; a table the page did not draw is absent)."""
    out: dict = {}
    for d in at.dataframe:
        name = next((n for n, col in TABLE_MARKS if col in d.value.columns), None)
        if name:
            out.setdefault(name, d.value)
    return out


def schema_before_v7(con) -> None:
    """Apply migrations 1-6 only to an empty DuckDB connection: a store as written before V7 (and V8's copy of the
    ratings), for the migration tests."""
    from store.schema import MIGRATIONS

    for version, statements in MIGRATIONS:
        if version <= 6:
            for stmt in statements:
                con.execute(stmt)
            con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
