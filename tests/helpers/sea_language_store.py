"""A store with Filipino, Malay and Burmese cells for the "By language" view, scored through the real ingest path.

- Items: sentiment and toxicity in tl, ms and my, and English -> Burmese translation, written here for the tests
  (SEA-HELM's tl/ms/my items are only on the Hugging Face Hub, see the sources table): short everyday sentences of
  our own, labelled by their meaning. Filipino also gets the real PACUTE hierarchical items of the samples (the
  pacute-bench gpt-4.1-nano inference files, `tests.helpers.board_stores.PACUTE_FILES`), linked into the data
  directory, never copied.
- Models: `sea-alpha`, `sea-beta` and `sea-gamma` answer every hand-written item with the native prompt, in the
  language's own answer words (SEA-HELM's answer tag and label words, `evaluator/languages/<lang>.yaml`), wrong
  on the item positions in `WRONG` (a wrong label, or a translation cut in half). On PACUTE,
  alpha has the file's outputs and beta the same with every fourth item's output emptied.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tests.helpers.board_stores import PACUTE_FILES
from tests.helpers.samples import SAMPLES

MODELS = ("sea-alpha", "sea-beta", "sea-gamma")
LANGS = {"tl": "Filipino", "ms": "Malay", "my": "Burmese"}

SENTIMENT = {
    "tl": [("Napakasarap ng pagkain dito at mababait ang mga tauhan.", "positive"),
           ("Sobrang tagal ng serbisyo at malamig na ang kape.", "negative"),
           ("Bukas ang tindahan mula alas-otso ng umaga.", "neutral"),
           ("Ang ganda ng tanawin mula sa bintana ng kuwarto.", "positive"),
           ("Sira ang aircon at maingay ang kalsada buong gabi.", "negative"),
           ("Nasa ikalawang palapag ang silid-aklatan.", "neutral")],
    "ms": [("Makanan di restoran ini sangat sedap dan pelayannya mesra.", "positive"),
           ("Biliknya kotor dan penghawa dingin tidak berfungsi.", "negative"),
           ("Kedai itu dibuka pada pukul sembilan pagi.", "neutral"),
           ("Pemandangan dari bukit itu sungguh indah.", "positive"),
           ("Perkhidmatan sangat lambat dan kopinya sudah sejuk.", "negative"),
           ("Perpustakaan terletak di tingkat dua.", "neutral")],
    "my": [("ဒီစားသောက်ဆိုင်က အစားအစာ အရမ်းကောင်းတယ်။", "positive"),
           ("ဝန်ဆောင်မှု အရမ်းနှေးပြီး ကော်ဖီ အေးနေပြီ။", "negative"),
           ("ဆိုင်က မနက် ကိုးနာရီမှာ ဖွင့်တယ်။", "neutral"),
           ("ဒီအခန်းက သန့်ရှင်းပြီး သက်တောင့်သက်သာ ရှိတယ်။", "positive"),
           ("ဒီဖုန်းက မကြာခင် ပျက်သွားတယ်။", "negative"),
           ("စာကြည့်တိုက်က ဒုတိယထပ်မှာ ရှိတယ်။", "neutral")],
}
TOXICITY = {
    "tl": [("Salamat sa tulong mo kahapon.", "clean"), ("Magandang umaga sa inyong lahat.", "clean"),
           ("Walang kuwenta ang mga taong tulad mo.", "hate"), ("Huwag kayong makinig sa mga hangal na iyan.", "hate")],
    "ms": [("Terima kasih atas bantuan anda semalam.", "clean"), ("Selamat pagi kepada semua.", "clean"),
           ("Orang macam kamu memang tak berguna.", "hate"), ("Jangan dengar cakap golongan bodoh itu.", "hate")],
    "my": [("ကူညီပေးတဲ့အတွက် ကျေးဇူးတင်ပါတယ်။", "clean"), ("မင်္ဂလာနံနက်ခင်းပါ။", "clean"),
           ("မင်းလို လူမျိုးက အသုံးမကျဘူး။", "hate"), ("ဒီလူတွေကို မုန်းတယ်။", "hate")],
}
TRANSLATION_MY = [("Thank you very much.", "ကျေးဇူးအများကြီးတင်ပါတယ်။"),
                  ("Good morning.", "မင်္ဂလာနံနက်ခင်းပါ။"),
                  ("Where is the library?", "စာကြည့်တိုက် ဘယ်မှာလဲ။")]

ANSWER = {  # the answer tag and label words of each language entry
    "tl": ("Sagot:", {"positive": "positibo", "negative": "negatibo", "neutral": "neutral", "clean": "malinis",
                      "hate": "mapoot"}),
    "ms": ("Jawapan:", {"positive": "positif", "negative": "negatif", "neutral": "netral", "clean": "bersih",
                        "hate": "benci"}),
    "my": ("အဖြေ-", {"positive": "အပြုသဘော", "negative": "အပျက်သဘော", "neutral": "ကြားနေ", "clean": "သန့်ရှင်း",
                     "hate": "မုန်းတီးမှု"}),
}
WRONG_LABEL = {"positive": "negative", "negative": "neutral", "neutral": "positive", "clean": "hate",
               "hate": "clean"}
WRONG = {"sea-alpha": {5}, "sea-beta": {1, 4}, "sea-gamma": {0, 2, 3}}
"""Item positions (in each hand-written list) each model answers wrong: on the six sentiment items macro F1 is
82.2 for alpha (one neutral called positive), 55.6 for beta and 44.4 for gamma; on the four toxicity items 100.0,
73.3 and 20.0."""
TRANSLATION_TAG = "ဘာသာပြန်ချက်:"
PACUTE_TASK = "pacute-hierarchical-gen"


def item_id(task: str, lang: str, k: int) -> str:
    return f"{task}-{lang}-test-{k}"


def write_items(data: Path) -> None:
    """The hand-written items in the data directory's layout, and the samples' PACUTE folder linked in."""
    for folder, table in (("sentiment", SENTIMENT), ("toxicity", TOXICITY)):
        (data / "bhasa" / folder).mkdir(parents=True, exist_ok=True)
        for lang, rows in table.items():
            (data / "bhasa" / folder / f"{lang}.jsonl").write_text("".join(
                json.dumps({"id": item_id(folder, lang, k), "text": text, "label": label, "label_en": label},
                           ensure_ascii=False) + "\n" for k, (text, label) in enumerate(rows)), encoding="utf-8")
    (data / "bhasa" / "mt").mkdir(parents=True, exist_ok=True)
    (data / "bhasa" / "mt" / "my.jsonl").write_text("".join(
        json.dumps({"id": item_id("mt", "my", k), "source": src, "target": tgt}, ensure_ascii=False) + "\n"
        for k, (src, tgt) in enumerate(TRANSLATION_MY)), encoding="utf-8")
    (data / "pacute").symlink_to(SAMPLES / "pacute", target_is_directory=True)


def answer_rows(model: str) -> list[dict]:
    """`model`'s native-prompt answers to every hand-written item, as Tanaw's native result rows."""
    rows = []
    for task, folder, table in (("sentiment", "sentiment", SENTIMENT), ("toxicity", "toxicity", TOXICITY)):
        for lang, items in table.items():
            tag, words = ANSWER[lang]
            for k, (_, label) in enumerate(items):
                said = WRONG_LABEL[label] if k in WRONG[model] else label
                rows.append({"task": task, "lang": lang, "item_id": item_id(folder, lang, k), "prompt_lang": "native",
                             "prediction": f"{tag} {words[said]}"})
    for k, (_, target) in enumerate(TRANSLATION_MY):
        out = target[: len(target) // 2] if k in WRONG[model] else target
        rows.append({"task": "translation-en-xx", "lang": "my", "item_id": item_id("mt", "my", k),
                     "prompt_lang": "native", "prediction": f"{TRANSLATION_TAG} {out}"})
    return rows


def native_predictions(rows: list[dict], model: str, data: Path) -> list:
    """Tanaw native result rows read as an upload named `<model>.jsonl` against the items under `data`."""
    from evaluator.formats.read import read_upload

    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    return list(read_upload(body, f"{model}.jsonl", data_dir=data).predictions)


def ingest(db: Path, data: Path, preds_by_model: dict[str, list]) -> Path:
    """Score and store each model's predictions (an upload of `<model>.jsonl`) through the real ingest path."""
    from services.ingest import ingest_predictions
    from store import db as store_db

    con = store_db.connect(db)
    try:
        for model, preds in preds_by_model.items():
            ingest_predictions(con, preds, model={"model_id": model, "origin": "uploaded"},
                               source={"file": f"{model}.jsonl", "kind": "upload", "harness": "test", "settings": {}},
                               data_dir=data)
    finally:
        con.close()
    return db


def sea_language_store(db: Path, data: Path) -> Path:
    """Write the items under `data` and ingest the three models' answers (module docstring) into `db`."""
    from evaluator.formats.read import read_upload

    write_items(data)
    pacute = [p for p in read_upload(PACUTE_FILES, data_dir=data).predictions if p.task == PACUTE_TASK]
    extra = {"sea-alpha": pacute,
             "sea-beta": [dataclasses.replace(p, output="") if k % 4 == 0 else p for k, p in enumerate(pacute)]}
    return ingest(db, data, {m: native_predictions(answer_rows(m), m, data) + extra.get(m, []) for m in MODELS})
