"""BHASA NLP samples (`bhasa/<task>/<lang>.jsonl`, schemas in the data README section 4) as canonical items."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from evaluator.datasets import validate
from evaluator.datasets.base import Row, item_key, make_item, read_jsonl, register_loader, task_name
from evaluator.registry import get_task
from evaluator.spec import Item

NLI_LETTERS = {"entailment": "A", "contradiction": "B", "neutral": "C"}
"""NLI label → the letter the prompts ask for (A entailment, B contradiction, C neutral)."""
CAUSAL_LETTERS = {0: "A", 1: "B"}
"""XCOPA `label` (0 → choice1, 1 → choice2) → option letter."""


def _file(folder: str):
    return lambda lang: (f"bhasa/{folder}/{lang}.jsonl",)


def _rows(data_dir: Path, folder: str, lang: str) -> Iterator[Row]:
    return read_jsonl(data_dir / "bhasa" / folder / f"{lang}.jsonl")


def _label(row: Row, loader_key: str, lang: str) -> str:
    """`label_en` lower-cased, checked against the registry's closed label set for the language."""
    label = row.req("label_en").strip().lower()
    allowed = get_task(task_name(loader_key)).labels.get(lang, ())
    if label not in allowed:
        raise row.fail("label_en", f"{row.get('label_en')!r} is not one of {', '.join(allowed)}")
    return label


@register_loader("bhasa.ner", _file("ner"))
def read_ner(data_dir: Path, lang: str) -> Iterator[Item]:
    """NER: `text` (+ `tokens`/`tags` where present); gold = list of {text, type, start, end} spans."""
    for row in _rows(data_dir, "ner", lang):
        text = row.req("text")
        entities = row.req("entities", list)
        for n, ent in enumerate(entities):
            if not isinstance(ent, dict) or not {"text", "type", "start", "end"} <= set(ent) or not all(
                    isinstance(ent[k], int) and not isinstance(ent[k], bool) for k in ("start", "end")):
                raise row.fail(f"entities[{n}]", "expected {text, type, start: int, end: int}")
        gold = [{k: e[k] for k in ("text", "type", "start", "end")} for e in entities]
        inputs = {"text": text, **{k: row.data[k] for k in ("tokens", "tags") if k in row.data}}
        metadata = {"tagged_text": row.get("tagged_text")} if "tagged_text" in row.data else {}
        yield make_item("bhasa.ner", lang, item_key(row), inputs, gold, required=("text",), metadata=metadata,
                        warnings=validate.ner_warnings(text, gold))


@register_loader("bhasa.qa", _file("qa"))
def read_qa(data_dir: Path, lang: str) -> Iterator[Item]:
    """Extractive QA: `context` (also as `text`), `question`, `title`; gold = answer strings ([] = unanswerable)."""
    for row in _rows(data_dir, "qa", lang):
        context, question = row.req("context"), row.req("question")
        answers = row.req("answers", dict)
        texts = answers.get("text")
        if not isinstance(texts, list) or not all(isinstance(a, str) for a in texts):
            raise row.fail("answers.text", "expected a list of strings")
        inputs = {"context": context, "question": question, "title": row.get("title") or ""}
        # SEA-HELM's native QA templates call the paragraph `{text}`.
        yield make_item("bhasa.qa", lang, item_key(row), inputs, list(texts), required=("context", "question"),
                        aliases={"text": "context"},
                        metadata={"answer_start": list(answers.get("answer_start") or [])},
                        warnings=validate.qa_warnings(context, texts))


@register_loader("bhasa.sentiment", _file("sentiment"))
def read_sentiment(data_dir: Path, lang: str) -> Iterator[Item]:
    """Sentiment: `text`; gold = positive/negative/neutral; metadata `topic` (vi) and `en_review` (ta)."""
    for row in _rows(data_dir, "sentiment", lang):
        metadata = {k: row.data[k] for k in ("topic", "topic_en", "en_review") if k in row.data}
        if "topic_en" in metadata:
            metadata["topic"] = metadata.pop("topic_en")
        yield make_item("bhasa.sentiment", lang, item_key(row), {"text": row.req("text")},
                        _label(row, "bhasa.sentiment", lang), required=("text",),
                        metadata={**metadata, "label_original": row.get("label")})


@register_loader("bhasa.toxicity", _file("toxicity"))
def read_toxicity(data_dir: Path, lang: str) -> Iterator[Item]:
    """Toxicity: `text`; gold = the dataset's label set lower-cased (id clean/abusive/hate, ...)."""
    for row in _rows(data_dir, "toxicity", lang):
        yield make_item("bhasa.toxicity", lang, item_key(row), {"text": row.req("text")},
                        _label(row, "bhasa.toxicity", lang), required=("text",),
                        metadata={"label_original": row.get("label")})


def _translation(data_dir: Path, lang: str, key: str, to_english: bool) -> Iterator[Item]:
    for row in _rows(data_dir, "mt", lang):
        source, target = row.req("source"), row.req("target")
        text, gold = (target, source) if to_english else (source, target)
        src_code, tgt_code = row.get("source_lang"), row.get("target_lang")
        metadata = {"source_lang": tgt_code if to_english else src_code,
                    "target_lang": src_code if to_english else tgt_code}
        yield make_item(key, lang, item_key(row), {"text": text}, gold, required=("text",), metadata=metadata,
                        warnings=[] if gold.strip() else ["empty-input: reference"])


@register_loader("bhasa.mt_en_xx", _file("mt"))
def read_mt_en_xx(data_dir: Path, lang: str) -> Iterator[Item]:
    """FLORES English → lang: `text` = English source; gold = target-language reference."""
    return _translation(data_dir, lang, "bhasa.mt_en_xx", to_english=False)


@register_loader("bhasa.mt_xx_en", _file("mt"))
def read_mt_xx_en(data_dir: Path, lang: str) -> Iterator[Item]:
    """FLORES lang → English: `text` = target-language sentence; gold = the English sentence."""
    return _translation(data_dir, lang, "bhasa.mt_xx_en", to_english=True)


@register_loader("bhasa.abssum", _file("summarization"))
def read_abssum(data_dir: Path, lang: str) -> Iterator[Item]:
    """XL-Sum: `text` (article) and `title`; gold = reference summary."""
    for row in _rows(data_dir, "summarization", lang):
        inputs = {"text": row.req("text"), "title": row.get("title") or ""}
        yield make_item("bhasa.abssum", lang, item_key(row), inputs, row.req("summary"), required=("text",),
                        metadata={"url": row.get("url")})


@register_loader("bhasa.nli", _file("nli"))
def read_nli(data_dir: Path, lang: str) -> Iterator[Item]:
    """NLI: `premise`, `hypothesis` (also as `sentence1`/`sentence2`); gold = letter A/B/C."""
    for row in _rows(data_dir, "nli", lang):
        premise, hypothesis = row.req("premise"), row.req("hypothesis")
        label = row.req("label_en").strip().lower()
        if label not in NLI_LETTERS:
            raise row.fail("label_en", f"{label!r} is not entailment, contradiction or neutral")
        metadata = {"label": label, **{k: row.data[k] for k in ("annotator_type", "sentence_size") if k in row.data}}
        yield make_item("bhasa.nli", lang, item_key(row), {"premise": premise, "hypothesis": hypothesis},
                        NLI_LETTERS[label], required=("premise", "hypothesis"), metadata=metadata,
                        aliases={"sentence1": "premise", "sentence2": "hypothesis"})  # SEA-HELM native templates


def _tamil_questions(data_dir: Path) -> dict[int, str]:
    """XCOPA `idx` → question word of the Tamil file, which agrees with the reference languages (HELM's fix)."""
    path = data_dir / "bhasa" / "causal" / "ta.jsonl"
    if not path.is_file():
        return {}
    return {row.req("idx", int): row.req("question") for row in read_jsonl(path)}


@register_loader("bhasa.causal", _file("causal"))
def read_causal(data_dir: Path, lang: str) -> Iterator[Item]:
    """XCOPA: `premise`, `choice1`, `choice2`, `question` (consensus cause/effect); gold = A/B.

    The consensus is the file's `question_consensus`; files without it fall back to the Tamil file's word for the
    same `idx` when that file sits in the same data directory.
    """
    tamil: dict[int, str] | None = None
    for row in _rows(data_dir, "causal", lang):
        raw = row.req("question")
        if raw not in ("cause", "effect"):
            raise row.fail("question", f"{raw!r} is not cause or effect")
        consensus, mismatch = row.get("question_consensus"), row.get("question_mismatch")
        if consensus is None and lang != "ta":
            tamil = _tamil_questions(data_dir) if tamil is None else tamil
            consensus = tamil.get(row.get("idx"))
        question, warnings = validate.xcopa_question(raw, consensus, mismatch)
        if consensus is None and lang != "ta":
            warnings.append("xcopa-question-unchecked")
        label = row.req("label", int)
        if label not in CAUSAL_LETTERS:
            raise row.fail("label", f"{label!r} is not 0 or 1")
        choice1, choice2 = row.req("choice1"), row.req("choice2")
        inputs = {"premise": row.req("premise"), "choice1": choice1, "choice2": choice2, "question": question}
        metadata = {"question_original": raw, "idx": row.get("idx"), "changed": row.get("changed")}
        yield make_item("bhasa.causal", lang, item_key(row), inputs, CAUSAL_LETTERS[label],
                        required=("premise", "choice1", "choice2"), options=(choice1, choice2),
                        metadata=metadata, warnings=warnings)


UNAVAILABLE = {
    ("bhasa.ner", "vi"): "VLSP2018 NER is not public (registration-only release), so no sample ships for it",
    ("bhasa.ner", "ta"): "Naamapadam is only on the Hugging Face Hub (ai4bharat/naamapadam); "
                         "load it with evaluator.datasets.load_hub_items",
    **{(loader, lang): "SEA-HELM's items are only on the Hugging Face Hub (aisingapore/*) with no pinned revision, "
                       "so `data pull` cannot fetch them (see its sources table)"
       for lang, loaders in (("ms", ("sentiment", "toxicity", "mt_en_xx", "mt_xx_en")),
                             ("my", ("sentiment", "toxicity", "mt_en_xx", "mt_xx_en", "abssum", "nli", "causal")),
                             ("lo", ("sentiment", "mt_en_xx", "mt_xx_en")), ("km", ("mt_en_xx", "mt_xx_en")))
       for loader in (f"bhasa.{name}" for name in loaders)},
}
"""Known-missing (loader, lang) cells and why, quoted when their file is absent."""
