"""A tiny store with two models' answers to three two-turn conversations (made-up text), for the judge tests and
the Compare page."""
from __future__ import annotations

import json

from store import db

TASK, LANG = "sea-mt-bench", "id"
MODELS = ("org/chat-a", "org/chat-b")
ITEMS = {
    "1": {"turns": ["Tulis pantun tentang hujan.", "Sekarang jadikan lucu."], "baseline": ["Ref satu.", "Ref dua."],
          "baseline_model": "ref-model", "references": None},
    "2": {"turns": ["Berapa 12 kali 12?", "Bagi hasilnya dengan 3."], "baseline": ["144", "48"],
          "baseline_model": "ref-model", "references": ["144", "48"]},
    "3": {"turns": ["Sebutkan tiga pulau.", "Yang mana terbesar?"], "baseline": ["Jawa, Bali, Sumatra", "Sumatra"],
          "baseline_model": "ref-model", "references": None},
}


def answer(model: str, item_id: str, turn: int) -> str:
    """The made-up answer of a model to a turn."""
    return f"{model.split('/')[1]} menjawab {item_id}.{turn} **bukan markdown** <b>x</b>"


def chat_store(path) -> None:
    """Write the models, the conversation items, one native run per model and its turn answers."""
    con = db.connect(path)
    try:
        con.execute("INSERT OR IGNORE INTO tasks (task, family, grp, langs, mode, metrics) "
                    "VALUES (?, 'chat', 'CHAT', [?], 'chat', [])", [TASK, LANG])
        for m in MODELS:
            con.execute("INSERT INTO models (model_id, origin) VALUES (?, 'evaluated')", [m])
        for item_id, inputs in ITEMS.items():
            con.execute("INSERT INTO items (task, lang, item_id, inputs, gold) VALUES (?, ?, ?, ?, NULL)",
                        [TASK, LANG, item_id, json.dumps(inputs, ensure_ascii=False)])
        for n, m in enumerate(MODELS):
            run = f"chat-run-{n}"
            con.execute("INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, source) "
                        "VALUES (?, ?, ?, ?, 'native', 'evaluated')", [run, m, TASK, LANG])
            for item_id, inputs in ITEMS.items():
                for turn, question in enumerate(inputs["turns"], start=1):
                    con.execute("INSERT INTO predictions (run_id, item_id, ord, prompt, output) VALUES (?, ?, ?, ?, ?)",
                                [run, item_id, f"t{turn}", question, answer(m, item_id, turn)])
    finally:
        con.close()


JUDGED = {MODELS[0]: 7.0, MODELS[1]: 4.0}
"""The single-grading rating every turn of each model gets in `judged_chat_store`."""


def judged_chat_store(path) -> None:
    """`chat_store` with a judge's single-grading scores of every turn (JUDGED)."""
    chat_store(path)
    con = db.connect(path)
    try:
        for n, m in enumerate(MODELS):
            for item_id, inputs in ITEMS.items():
                for turn in range(1, len(inputs["turns"]) + 1):
                    con.execute("INSERT INTO judge_scores (run_id, item_id, ord, judge_model, template, kind, value, "
                                "verdict, sampling, call_keys, origin) VALUES (?, ?, ?, 'judge-x', ?, 'single', ?, "
                                "'', '{}', [], 'judged')",
                                [f"chat-run-{n}", item_id, f"t{turn}", f"mt-bench-single-v1@t{turn}", JUDGED[m]])
    finally:
        con.close()
