"""Converters from each public source's own file format into Tanaw's layout (the one `evaluator.datasets` reads).

A converter takes the source's files as bytes (in the order the source table lists them) and the language, and
returns UTF-8 JSON Lines in the schema of `bhasa/<task>/<lang>.jsonl` (data README section 4): the whole split,
in the source's order, with the source's ids where it has them. `copy` (LINDSEA, cultural, PACUTE, prompt packs)
keeps the bytes as they are. Each parser follows the format as the pinned source file writes it.
"""
from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from typing import Callable, Iterable, Iterator


class ConvertError(Exception):
    """A source file does not have the shape its converter expects; the message names file, line and field."""


def _jsonl(rows: Iterable[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def _lines(blob: bytes, name: str) -> list[str]:
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConvertError(f"{name}: not UTF-8 at byte {e.start}") from None
    return text.replace("\r\n", "\n").split("\n")


def _json_lines(blob: bytes, name: str) -> Iterator[dict]:
    for n, line in enumerate(_lines(blob, name), start=1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                raise ConvertError(f"{name}:{n}: invalid JSON ({e.msg})") from None


def _csv(blob: bytes, name: str, encoding: str = "utf-8-sig", errors: str = "strict") -> list[dict]:
    try:
        text = blob.decode(encoding, errors=errors)
    except UnicodeDecodeError as e:
        raise ConvertError(f"{name}: not {encoding} at byte {e.start}") from None
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _need(row: dict, field: str, where: str):
    if field not in row or row[field] is None:
        raise ConvertError(f"{where}: {field}: missing")
    return row[field]


# --- NER -----------------------------------------------------------------------------------------------------

def nergrit(blobs: list[bytes], lang: str) -> bytes:
    """IndoNLU NERGrit `*_preprocess.txt`: `token<TAB>BIO-tag` lines, a blank line between sentences."""
    rows, tokens, tags = [], [], []
    for n, line in enumerate(_lines(blobs[0], "nergrit") + [""], start=1):
        if line.strip():
            parts = line.split("\t")
            if len(parts) != 2:
                raise ConvertError(f"nergrit:{n}: expected token<TAB>tag")
            tokens.append(parts[0])
            tags.append(parts[1].strip())
            continue
        if tokens:
            rows.append(_bio_item(f"nergrit-test-{len(rows)}", tokens, tags))
            tokens, tags = [], []
    return _jsonl(rows)


def _bio_item(item_id: str, tokens: list[str], tags: list[str]) -> dict:
    """Whitespace-joined text with character-offset entity spans from BIO tags."""
    starts, pos = [], 0
    for tok in tokens:
        starts.append(pos)
        pos += len(tok) + 1
    text = " ".join(tokens)
    entities: list[dict] = []
    for i, tag in enumerate(tags):
        kind = tag[2:] if len(tag) > 2 else ""
        if tag.startswith("B-") or (tag.startswith("I-") and (not entities or tags[i - 1][2:] != kind
                                                               or tags[i - 1] == "O")):
            entities.append({"type": kind, "start": starts[i], "end": starts[i] + len(tokens[i])})
        elif tag.startswith("I-"):
            entities[-1]["end"] = starts[i] + len(tokens[i])
    spans = [{"text": text[e["start"]:e["end"]], **e} for e in entities]
    return {"id": item_id, "text": text, "tokens": tokens, "tags": tags, "entities": spans}


_TAG = re.compile(r"\[(/?)([A-Z_]+)\]")


def thainer(blobs: list[bytes], lang: str) -> bytes:
    """ThaiNER 1.5.1 `test.txt`: one text per line with inline `[TYPE]...[/TYPE]` tags."""
    rows = []
    for n, line in enumerate(_lines(blobs[0], "thainer"), start=1):
        if not line.strip():
            continue
        text, entities, open_at = "", [], None
        pos = 0
        for m in _TAG.finditer(line):
            text += line[pos:m.start()]
            pos = m.end()
            if not m.group(1):
                open_at = (m.group(2), len(text))
            elif open_at and open_at[0] == m.group(2):
                entities.append({"text": text[open_at[1]:], "type": m.group(2), "start": open_at[1],
                                 "end": len(text)})
                open_at = None
        text += line[pos:]
        rows.append({"id": f"thainer151-test-{len(rows)}", "text": text, "entities": entities,
                     "tagged_text": line})
    return _jsonl(rows)


# --- QA ------------------------------------------------------------------------------------------------------

def squad(blobs: list[bytes], lang: str) -> bytes:
    """SQuAD-format JSON (XQuAD, TyDiQA-GoldP): one row per question id, first occurrence kept."""
    try:
        doc = json.loads(blobs[0].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConvertError(f"squad: invalid JSON ({e})") from None
    rows, seen = [], set()
    for article in _need(doc, "data", "squad"):
        for para in article.get("paragraphs", []):
            for qa in para.get("qas", []):
                if qa["id"] in seen:
                    continue
                seen.add(qa["id"])
                answers = qa.get("answers", [])
                rows.append({"id": qa["id"], "title": article.get("title", ""), "context": para["context"],
                             "question": qa["question"],
                             "answers": {"text": [a["text"] for a in answers],
                                         "answer_start": [a["answer_start"] for a in answers]}})
    return _jsonl(rows)


def seahelm_qa(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM IndicQA sample: `label` answer, `prompts[0].{question,text}`; offsets = first occurrence."""
    rows = []
    for r in _json_lines(blobs[0], "indicqa"):
        p = r["prompts"][0]
        answer, context = r["label"], p["text"]
        rows.append({"id": f"indicqa-{lang}-{r['id']}", "title": "", "context": context, "question": p["question"],
                     "answers": {"text": [answer], "answer_start": [context.find(answer)]}})
    return _jsonl(rows)


# --- sentiment -----------------------------------------------------------------------------------------------

def nusax(blobs: list[bytes], lang: str) -> bytes:
    """NusaX-Senti CSV: `id,text,label` (labels already positive/neutral/negative)."""
    return _jsonl({"id": f"nusax-{lang}-{r['id']}", "text": r["text"], "label": r["label"], "label_en": r["label"]}
                  for r in _csv(blobs[0], "nusax"))


VSFC_SENTIMENT = {"0": "negative", "1": "neutral", "2": "positive"}
VSFC_TOPIC = {"0": "lecturer", "1": "training_program", "2": "facility", "3": "others"}


def uit_vsfc(blobs: list[bytes], lang: str) -> bytes:
    """UIT-VSFC `sents.txt`, `sentiments.txt`, `topics.txt`: parallel lines (CRLF)."""
    sents, labels, topics = (
        [x for x in _lines(b, name) if x != ""] for b, name in zip(blobs, ("sents", "sentiments", "topics")))
    if not len(sents) == len(labels) == len(topics):
        raise ConvertError(f"uit-vsfc: {len(sents)} sentences, {len(labels)} labels, {len(topics)} topics")
    return _jsonl({"id": f"uit-vsfc-test-{i}", "text": s, "label": lab, "label_en": VSFC_SENTIMENT[lab],
                   "topic": top, "topic_en": VSFC_TOPIC[top]}
                  for i, (s, lab, top) in enumerate(zip(sents, labels, topics)))


WISESIGHT = {"pos": "positive", "neu": "neutral", "neg": "negative"}


def wisesight(blobs: list[bytes], lang: str) -> bytes:
    """Wisesight Kaggle `test.txt` + `test_label.txt`; `q` (question) rows skipped as BHASA does."""
    texts, labels = _lines(blobs[0], "test.txt"), _lines(blobs[1], "test_label.txt")
    rows = []
    for n, label in enumerate(labels):
        label = label.strip()
        if label in WISESIGHT:
            rows.append({"id": f"wisesight-test-{n}", "text": texts[n], "label": label,
                         "label_en": WISESIGHT[label]})
    return _jsonl(rows)


def seahelm_sentiment(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM IndicSentiment copy: `label`, `prompts[0].text`, `en_review`."""
    return _jsonl({"id": f"indicsentiment-{lang}-{i}", "text": r["prompts"][0]["text"], "label": r["label"],
                   "label_en": r["label"], "en_review": r.get("en_review")}
                  for i, r in enumerate(_json_lines(blobs[0], "indicsentiment")))


def _seahelm_labelled_text(blob: bytes, lang: str, dataset: str) -> bytes:
    """A SEA-HELM sentiment copy: `id`, `label` (English), `prompts[0].text`; ids `<dataset>-<lang>-<id>`."""
    rows = []
    for n, r in enumerate(_json_lines(blob, f"{dataset}-sentiment"), start=1):
        where = f"{dataset}-sentiment:{n}"
        text = _need(_need(r, "prompts", where)[0], "text", where)
        rows.append({"id": f"{dataset}-{lang}-{_need(r, 'id', where)}", "text": text, "label": r["label"],
                     "label_en": _need(r, "label", where)})
    return _jsonl(rows)


def seahelm_batayan_sentiment(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM Batayan sentiment copy (`tl_elections_sentiment.jsonl`): `id`, `label` (English), `prompts[0].text`."""
    return _seahelm_labelled_text(blobs[0], lang, "batayan")


def seahelm_nusax_sentiment(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM NusaX-Senti copies (`jv_nusax.jsonl`, `su_nusax.jsonl` @ 360c7cc): `id`, `label`, `prompts[0].text`."""
    return _seahelm_labelled_text(blobs[0], lang, "nusax")


# --- toxicity ------------------------------------------------------------------------------------------------

MLHSD_FLAGS = ("HS", "Abusive", "HS_Individual", "HS_Group", "HS_Religion", "HS_Race", "HS_Physical",
               "HS_Gender", "HS_Other", "HS_Weak", "HS_Moderate", "HS_Strong")


def mlhsd(blobs: list[bytes], lang: str) -> bytes:
    """MLHSD `re_dataset.csv` (not valid UTF-8 throughout: decoded with U+FFFD); BHASA's label mapping."""
    rows = []
    for i, r in enumerate(_csv(blobs[0], "re_dataset.csv", "utf-8", "replace")):
        flags = {k: int(r[k]) for k in MLHSD_FLAGS}
        label = "Hate" if flags["HS"] else "Abusive" if flags["Abusive"] else "Clean"
        rows.append({"id": f"mlhsd-{i}", "text": r["Tweet"], "label": label, "label_en": label,
                     "original_labels": flags})
    return _jsonl(rows)


VIHSD = {"0": "CLEAN", "1": "OFFENSIVE", "2": "HATE"}


def vihsd(blobs: list[bytes], lang: str) -> bytes:
    """ViHSD `data/vihsd.zip` → `vihsd/test.csv` (`free_text,label_id`)."""
    try:
        with zipfile.ZipFile(io.BytesIO(blobs[0])) as z:
            data = z.read("vihsd/test.csv")
    except (zipfile.BadZipFile, KeyError) as e:
        raise ConvertError(f"vihsd.zip: {e}") from None
    return _jsonl({"id": f"vihsd-test-{i}", "text": r["free_text"], "label": r["label_id"],
                   "label_en": VIHSD[r["label_id"]]} for i, r in enumerate(_csv(data, "vihsd/test.csv")))


THAITOX = {"nonhatespeech": ("Non-toxic", 0), "hatespeech": ("Toxic", 1)}


def thaitox(blobs: list[bytes], lang: str) -> bytes:
    """Thai Toxicity Tweet (third-party conversion): `Message,Hatespeech,Sentiment`."""
    rows = []
    for i, r in enumerate(_csv(blobs[0], "ThaiToxicityTweet_converted.csv")):
        label_en, flag = THAITOX[r["Hatespeech"]]
        rows.append({"id": f"thaitox-{i}", "text": r["Message"], "label": r["Hatespeech"], "label_en": label_en,
                     "is_toxic": flag})
    return _jsonl(rows)


# --- MT, summarisation, NLI, causal ---------------------------------------------------------------------------

FLORES = {"id": "ind_Latn", "vi": "vie_Latn", "th": "tha_Thai", "ta": "tam_Taml", "tl": "tgl_Latn",
          "ms": "zsm_Latn", "my": "mya_Mymr"}


SEAHELM_TOXICITY = {"tl": {0: "clean", 1: "hate"}}
"""SEA-HELM's toxicity label numbers per language (aisingapore/SEA-HELM@360c7cc,
seahelm_tasks/safety/toxicity_detection/toxicity_detection.py `label_map`: tl Malinis 0, Mapoot 1)."""


def seahelm_toxicity(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM Batayan toxicity copy (`tl_elections_hsd.jsonl`): `id`, `label` 0/1, `prompts[0].text`."""
    names, rows = SEAHELM_TOXICITY[lang], []
    for n, r in enumerate(_json_lines(blobs[0], "batayan-toxicity"), start=1):
        where = f"batayan-toxicity:{n}"
        label = _need(r, "label", where)
        if label not in names:
            raise ConvertError(f"{where}: label: {label!r} is not one of {sorted(names)}")
        rows.append({"id": f"batayan-{lang}-{_need(r, 'id', where)}",
                     "text": _need(_need(r, "prompts", where)[0], "text", where), "label": label,
                     "label_en": names[label]})
    return _jsonl(rows)


def seahelm_flores(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM FLORES-200 devtest `en_to_<code>.jsonl`: `prompts[0].text` English, `label` the translation."""
    return _jsonl({"id": f"flores200-devtest-{i}", "source_lang": "eng_Latn", "target_lang": FLORES[lang],
                   "source": r["prompts"][0]["text"], "target": r["label"]}
                  for i, r in enumerate(_json_lines(blobs[0], "flores")))


NUSAX_FLORES = {"jv": "jav_Latn", "su": "sun_Latn"}
"""FLORES-style codes of NusaX's Javanese and Sundanese."""


def seahelm_nusax_mt(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM NusaX-MT copies (`nusax/devtest/id_to_<lang>.jsonl` @ 360c7cc): `prompts[0].text` Indonesian,
    `label` the Javanese / Sundanese sentence; both directions read this file."""
    rows = []
    for n, r in enumerate(_json_lines(blobs[0], "nusax-mt"), start=1):
        where = f"nusax-mt:{n}"
        rows.append({"id": f"nusax-mt-{lang}-{_need(r, 'id', where)}", "source_lang": "ind_Latn",
                     "target_lang": NUSAX_FLORES[lang], "source": _need(_need(r, "prompts", where)[0], "text", where),
                     "target": _need(r, "label", where)})
    return _jsonl(rows)


def seahelm_xlsum(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM XL-Sum sample: `id`, `label` summary, `prompts[0].text` article, `metadata.{url,title}`."""
    return _jsonl({"id": r["id"], "url": r.get("metadata", {}).get("url"),
                   "title": r.get("metadata", {}).get("title", ""), "text": r["prompts"][0]["text"],
                   "summary": r["label"]} for r in _json_lines(blobs[0], "xlsum"))


INDONLI = {"e": "entailment", "n": "neutral", "c": "contradiction"}


def indonli(blobs: list[bytes], lang: str) -> bytes:
    """IndoNLI `test.jsonl`; BHASA scores the lay-annotated part (`annotator_type` lay)."""
    return _jsonl({"id": f"indonli-{r['pair_id']}", "premise": r["premise"], "hypothesis": r["hypothesis"],
                   "label": r["label"], "label_en": INDONLI[r["label"]], "annotator_type": r["annotator_type"],
                   "sentence_size": r["sentence_size"]}
                  for r in _json_lines(blobs[0], "indonli") if r.get("annotator_type") == "lay")


def seahelm_xnli(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM XNLI / IndicXNLI 1000-item samples: `label`, `prompts[0].{sentence1,sentence2}`."""
    prefix = "indicxnli" if lang == "ta" else "xnli"
    return _jsonl({"id": f"{prefix}-{lang}-{i}", "premise": r["prompts"][0]["sentence1"],
                   "hypothesis": r["prompts"][0]["sentence2"], "label": r["label"], "label_en": r["label"]}
                  for i, r in enumerate(_json_lines(blobs[0], "xnli")))


COPA_QUESTIONS = {"tl": {"sanhi": "cause", "bunga": "effect"}}
"""The native cause/effect words of SEA-HELM's Balanced COPA copies (`prompts[0].question_translated`)."""


def seahelm_copa(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM Balanced COPA copy (`tl_balanced_copa.jsonl`): `label` 0/1, `prompts[0].{premise, choice1,
    choice2, question_translated}`. Not XCOPA: there are no reference languages, so the file's own word is the
    consensus."""
    words, rows = COPA_QUESTIONS[lang], []
    for n, r in enumerate(_json_lines(blobs[0], "balanced-copa"), start=1):
        where = f"balanced-copa:{n}"
        p = _need(r, "prompts", where)[0]
        native = _need(p, "question_translated", where)
        if native not in words:
            raise ConvertError(f"{where}: question_translated: {native!r} is not one of {sorted(words)}")
        rows.append({"id": f"balanced-copa-{lang}-{_need(r, 'id', where)}", "idx": r["id"],
                     "premise": _need(p, "premise", where), "choice1": _need(p, "choice1", where),
                     "choice2": _need(p, "choice2", where), "question": words[native], "label": r["label"],
                     "question_consensus": words[native], "question_mismatch": False})
    return _jsonl(rows)


def xcopa(blobs: list[bytes], lang: str) -> bytes:
    """XCOPA `test.<lang>.jsonl` plus reference-language files (ta, vi): the consensus cause/effect word.

    The reference languages agree on every item (data README); `question_mismatch` flags where this language's
    file disagrees (all Thai items say `effect`)."""
    own = list(_json_lines(blobs[0], "xcopa"))
    refs = [{r["idx"]: r["question"] for r in _json_lines(b, "xcopa-reference")} for b in blobs[1:]]
    rows = []
    for r in own:
        words = {ref[r["idx"]] for ref in refs if r["idx"] in ref}
        consensus = words.pop() if len(words) == 1 else None
        rows.append({"id": f"xcopa-{lang}-test-{r['idx']}", **r, "question_consensus": consensus,
                     "question_mismatch": consensus is not None and consensus != r["question"]})
    return _jsonl(rows)


# --- metaphor, paraphrase -------------------------------------------------------------------------------------

SEAHELM_LETTERS = {"tl": {"A": "A", "B": "B"}, "my": {"က": "A", "ခ": "B"}}
"""The option letters of SEA-HELM's paraphrase files per language (its Burmese file writes က/ခ, as its prompt
asks) → Tanaw's A/B."""


def seahelm_paraphrase(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM paraphrase identification (`tl_paws.jsonl`, `my_myparaphrase.jsonl` @ 6844e6c): `id`, `label` an
    option letter (A paraphrase, B not), `text_label`, `prompts[0].{sentence1, sentence2}`."""
    letters, rows = SEAHELM_LETTERS[lang], []
    for n, r in enumerate(_json_lines(blobs[0], "paraphrase"), start=1):
        where = f"paraphrase:{n}"
        label = _need(r, "label", where)
        if label not in letters:
            raise ConvertError(f"{where}: label: {label!r} is not one of {sorted(letters)}")
        p = _need(r, "prompts", where)[0]
        rows.append({"id": f"paraphrase-{lang}-{_need(r, 'id', where)}", "sentence1": _need(p, "sentence1", where),
                     "sentence2": _need(p, "sentence2", where), "label": letters[label], "label_original": label,
                     "text_label": r.get("text_label")})
    return _jsonl(rows)


METAPHOR_LETTERS = {0: "A", 1: "B"}
"""SEA-HELM's metaphor `label` (0 → choice1, 1 → choice2) → option letter (its metric's `label_map` a 0, b 1)."""


def seahelm_metaphor(blobs: list[bytes], lang: str) -> bytes:
    """SEA-HELM metaphor (`<lang>_multilingual_fig_qa.jsonl` @ 360c7cc): `id`, `label` 0/1,
    `prompts[0].{phrase, choice1, choice2}`."""
    rows = []
    for n, r in enumerate(_json_lines(blobs[0], "metaphor"), start=1):
        where = f"metaphor:{n}"
        label = _need(r, "label", where)
        if label not in METAPHOR_LETTERS or isinstance(label, bool):
            raise ConvertError(f"{where}: label: {label!r} is not 0 or 1")
        p = _need(r, "prompts", where)[0]
        rows.append({"id": f"metaphor-{lang}-{_need(r, 'id', where)}", "phrase": _need(p, "phrase", where),
                     "choice1": _need(p, "choice1", where), "choice2": _need(p, "choice2", where),
                     "label": METAPHOR_LETTERS[label]})
    return _jsonl(rows)


CONVERTERS: dict[str, Callable[[list[bytes], str], bytes]] = {
    "nergrit": nergrit, "thainer": thainer, "squad": squad, "seahelm_qa": seahelm_qa, "nusax": nusax,
    "uit_vsfc": uit_vsfc, "wisesight": wisesight, "seahelm_sentiment": seahelm_sentiment, "mlhsd": mlhsd,
    "vihsd": vihsd, "thaitox": thaitox, "seahelm_flores": seahelm_flores, "seahelm_xlsum": seahelm_xlsum,
    "indonli": indonli, "seahelm_xnli": seahelm_xnli, "xcopa": xcopa,
    "seahelm_batayan_sentiment": seahelm_batayan_sentiment, "seahelm_toxicity": seahelm_toxicity,
    "seahelm_copa": seahelm_copa, "seahelm_paraphrase": seahelm_paraphrase, "seahelm_metaphor": seahelm_metaphor,
    "seahelm_nusax_sentiment": seahelm_nusax_sentiment, "seahelm_nusax_mt": seahelm_nusax_mt,
}
"""Converter name (the source table's `convert`) → function; `copy` is handled by the puller."""
