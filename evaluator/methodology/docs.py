"""Facts for the methodology page, generated from the task registry, `METRICS` and the extractors.

Everything the page shows comes from here, so documentation cannot drift from what is computed. Sample-based
figures (ROUGE-L variants, re-scoring of pacute-bench's released results, QA F1 rules, PACUTE option counts, data
defects) are computed once by `scripts/build_methodology_figures.py` into `data/methodology_figures.json`
(`evaluator.methodology.figures`); the page reads them and never re-scores.
"""
from __future__ import annotations

import inspect
from typing import Any

from evaluator import aggregate, extract
from evaluator.methodology import figures
from evaluator.methodology.pacute_compat import RULES as PACUTE_RULES
from evaluator.metrics import METRICS
from evaluator.metrics.base import MetricSpec
from evaluator.registry import LANG_NAMES, LANGUAGES, TASKS

CHANCE_TEXT = {"task": "task chance (per language; MCQ: mean 1/k over items)", "zero": "0 (already chance-corrected "
               "or no chance floor)", "none": "not meaningful"}

ROUGE_NOTE = (
    "The BHASA paper scored summaries with XL-Sum's multilingual ROUGE package, which lower-cases, removes "
    "punctuation, and for Thai calls PyThaiNLP newmm with its default keep_whitespace=True: the spaces between "
    "Thai phrases become tokens of their own, and since they match each other they raise the LCS. Tanaw's "
    "headline `rougeL` reproduces that (it matches the XL-Sum scorer to 0.01 on the shared samples) so numbers "
    "are comparable with the paper and SEA-HELM. `rougeL_nows` (Thai only) drops the whitespace tokens and "
    "counts words only, which is what rouge-score gives with a plain word segmenter; it is lower, and arguably "
    "the more honest measure of word overlap.")


def _first_line(obj: Any) -> str:
    return (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")


def _scope(m: MetricSpec) -> str:
    if m.item and (m.corpus or m.interval):
        return "item + corpus"
    return "item (mean)" if m.item else "corpus"


def metric_rows() -> list[dict[str, Any]]:
    """One row per registered metric: key, name, scope, languages, chance, interval, description, reference."""
    rows = []
    for m in METRICS.values():
        if m.interval is not None:
            ci = "reference library's bootstrap"
        elif m.binary and m.corpus is None:
            ci = "Wilson (items)"
        else:
            ci = "bootstrap over items (seed 4156)"
        rows.append({"metric": m.name, "name": m.display, "scope": _scope(m),
                     "languages": ", ".join(m.langs) or "all", "chance": CHANCE_TEXT[m.chance], "interval": ci,
                     "description": m.description, "reference": m.reference})
    return rows


def _chance(task, lang: str) -> str:
    c = task.chance_level(lang)
    return "per item (1/k)" if c is None else f"{100 * c:.1f}"


def task_rows(family: str | None = None) -> list[dict[str, Any]]:
    """One row per (task, language): family, competency, dataset, extractor, metrics, headline, chance."""
    rows = []
    for t in TASKS.values():
        if family and t.family != family:
            continue
        for lang in t.langs:
            rows.append({"task": t.name, "family": t.family, "competency": t.group,
                         "language": LANG_NAMES.get(lang, lang), "dataset": t.dataset.get(lang, ""),
                         "extractor": t.extractor, "metrics": ", ".join(m for m in t.metrics
                                                                        if not (METRICS.get(m) and METRICS[m].langs
                                                                                and lang not in METRICS[m].langs)),
                         "headline": t.headline_metric(lang) if t.metrics else "(human rating)",
                         "chance": _chance(t, lang) if t.metrics else "", "both orders": t.both_orders,
                         "description": t.description})
    return rows


def extractor_rows() -> list[dict[str, str]]:
    """One row per extractor: name, tasks using it, what it reads."""
    users: dict[str, list[str]] = {}
    for t in TASKS.values():
        users.setdefault(t.extractor, []).append(t.name)
    return [{"extractor": name, "tasks": ", ".join(users.get(name, [])), "reads": _first_line(fn)}
            for name, fn in extract.EXTRACTORS.items()]


def extraction_rules() -> tuple[tuple[str, str], ...]:
    """The extraction rules for hard cases (negation, echoed choices, several tags, unclosed reasoning, ...)."""
    return extract.RULES


def answer_words() -> list[dict[str, str]]:
    """Answer tags, label words, true/false words and negators accepted per language (from the language entries)."""
    rows = []
    for code, lang in LANGUAGES.items():
        name = LANG_NAMES.get(code, code)
        rows += [{"language": name, "kind": "answer tag", "word": f"{lang.answer_tag}:", "means": "answer follows"}]
        rows += [{"language": name, "kind": "label word", "word": w, "means": lab} for w, lab in lang.label_words.items()]
        rows += [{"language": name, "kind": "one-letter label", "word": w.upper(), "means": lab}
                 for w, lab in lang.single_letter_labels.items()]
        rows += [{"language": name, "kind": "true/false word", "word": w, "means": "true/yes" if v else "false/no"}
                 for w, v in lang.polarity_words.items()]
        rows += [{"language": name, "kind": "negator (before)", "word": w, "means": "not the next word"}
                 for w in lang.negation_before]
        rows += [{"language": name, "kind": "negator (after)", "word": w, "means": "not the word before"}
                 for w in lang.negation_after]
    return rows


def aggregation_notes() -> list[str]:
    """How cells, intervals, normalisation, roll-ups and comparisons are computed (values taken from the code)."""
    return [
        "A **cell** is one model × task × language × prompt language. Item metrics are averaged over the cell's "
        "items (per run, then over runs); corpus metrics (macro-F1, chrF++, strict NER F1, order consistency) "
        "are computed from all of the cell's answers at once.",
        "**95% intervals**: Wilson score intervals for 0/1 item scores (never collapse to a point at 0% or "
        "100%); the reference library's own bootstrap where it has one (ROUGE-L: rouge-score's "
        f"BootstrapAggregator under numpy seed {aggregate.BOOTSTRAP_SEED}, whose mid is the reported score; "
        "chrF++: sacrebleu's bootstrap); otherwise a percentile bootstrap over items "
        f"({aggregate.N_BOOTSTRAP} resamples, seed {aggregate.BOOTSTRAP_SEED}), drawing all runs and both option "
        "orders of an item together. With several runs (SEA-HELM runs every model 8 times), SEA-HELM's rule: "
        "each question's mean over the runs, then the mean over questions; every metric is bootstrapped, "
        "stratified by gold class for classification and multiple choice, and the note gives the run-to-run "
        "spread (sample SD of the per-run scores) and the standard error clustered by item. A classification or "
        f"multiple-choice cell whose rarest gold class has fewer than {aggregate.LOW_CLASS_SUPPORT} items is "
        "flagged \"low class support\" in its note.",
        "**Normalised score** = (value − chance) / (100 − chance) × 100. It is not clipped: a negative value "
        "means below chance and is marked as such. MCQ chance is the mean of 1/k over items (k options each).",
        "**Unparsed** answers score as wrong; their share is the cell's parse-failure rate, shown next to the "
        "score as an instruction-following measure.",
        "**Roll-ups**: both translation directions are averaged into one translation score first, then tasks "
        "into competencies (NLU, NLG, NLR, LD, ...) per language, competencies into a language score, and "
        "languages into the overall score; a mean covers only the cells present.",
        "**Comparing two models** on the same items: exact McNemar test when scores are 0/1, paired bootstrap "
        f"(seed {aggregate.BOOTSTRAP_SEED}) otherwise; the difference comes with a paired-bootstrap 95% interval.",
        "**Breakdowns** (e.g. PACUTE levels): *micro* = mean over the group's items; *macro* = mean over its "
        "subcategories, each weighted equally, always shown with n.",
    ]


def rouge_table() -> list[dict[str, Any]]:
    """The stored title-as-summary ROUGE-L figures (`figures.rouge_variants`)."""
    return list(figures.load().get("rouge", []))


def pacute_rules() -> dict[str, str]:
    """Rule key → explanation, for every table of differences from pacute-bench's own flags."""
    return dict(PACUTE_RULES)


def pacute_differences() -> tuple[int, list[dict[str, Any]]]:
    """(items compared, counted differences from pacute-bench's released flags), from the stored figures."""
    pb = figures.load().get("pacute_bench") or {}
    return int(pb.get("n", 0)), list(pb.get("differences", []))


def pacute_difference_items() -> list[dict[str, Any]]:
    """Every item whose flag differs from pacute-bench's released one: task, item id, metric, both flags, reason."""
    return list((figures.load().get("pacute_bench") or {}).get("items", []))


def pacute_benchmarks() -> list[dict[str, Any]]:
    """Per benchmark, 0-100: Tanaw's exact/contains match, pacute-bench's as released and re-normalised."""
    rows = []
    for b in (figures.load().get("pacute_bench") or {}).get("benchmarks", []):
        pct = {k: {m: round(100 * v / b["n"], 2) for m, v in b[k].items()} for k in ("ours", "theirs",
                                                                                     "theirs_normalised")}
        rows.append({"benchmark": b["task"], "n": b["n"], "EM Tanaw": pct["ours"]["exact_match"],
                     "EM pacute-bench": pct["theirs"]["exact_match"],
                     "EM pacute-bench normalised": pct["theirs_normalised"]["exact_match"],
                     "CM Tanaw": pct["ours"]["contains_match"], "CM pacute-bench": pct["theirs"]["contains_match"],
                     "CM pacute-bench normalised": pct["theirs_normalised"]["contains_match"]})
    return rows


def pacute_remaining() -> list[dict[str, Any]]:
    """Per-item differences left after comparing pacute-bench's answers with the paper's normalisation."""
    return list((figures.load().get("pacute_bench") or {}).get("remaining", []))


MCQ_TIE_RULE = (
    "A k-way exact tie between the highest log-probabilities scores 1/k when the gold is one of the tied options "
    "(`tied_credit`, the expected accuracy of a random tie-break), the same in any option order; the option shown "
    "as the answer is the tied one whose NFC text has the smallest SHA-256 digest. pacute-bench credits index 0 "
    "on a tie, which is always its gold.")


def _count(rows: list[dict], **match: Any) -> int:
    return sum(r["items"] for r in rows if all(r.get(k) == v for k, v in match.items()))


def _qa(lang: str) -> dict[str, Any]:
    return next((r for r in figures.load().get("qa", []) if r["lang"] == lang), {})


def _mcq_task(name: str) -> dict[str, Any]:
    return next((t for t in (figures.load().get("pacute_mcq") or {}).get("tasks", []) if t["task"] == name), {})


def differences() -> list[dict[str, str]]:
    """Tanaw's deliberate differences from pacute-bench and SEA-HELM, each with its count on the public samples."""
    n, diffs = pacute_differences()
    qa_id, qa_th = _qa("id"), _qa("th")
    syl, hier = _mcq_task("pacute-syllabification-mcq"), (figures.load().get("pacute_mcq") or {}).get(
        "hierarchical_mcq", {})
    two = (syl.get("options") or {}).get("2", 0)
    typo = next(iter(figures.load().get("defects", [])), {})
    rows = [
        ("pacute-bench", "Normalisation", "NFC, case, whitespace; affix hyphens trimmed (PACUTE paper §5: `-um-` = "
         "`um`)", "code points and hyphens compared verbatim (its earlier releases)",
         f"{_count(diffs, reason='normalisation')} flags of {n:,} gpt-4.1-nano items"),
        ("pacute-bench", "Reading the answer", "only the answer: without a closed <answer> block, the text after the "
         "last closed reasoning block", "the first line after its answer tag or of the response",
         f"{_count(diffs, reason='extraction')} flags on the gpt-4.1-nano sample"),
        ("pacute-bench", "Unclosed <reflection>", "no answer: unparsed, 0 on exact and contains match",
         "reflection's first line is the answer", f"{_count(diffs, reason='unclosed_answer')} flags"),
        ("pacute-bench", "MCQ ties", "1/k for a k-way exact tie holding the gold, in any option order",
         "index 0 (its gold) credited", "counted per imported model below"),
        ("pacute-bench", "MCQ option matching", "exact after NFC (`Rizál` ≠ `rizál`)",
         "each option as the item holds it", "same options; only Tanaw's earlier first-letter fold differed"),
        ("pacute-bench", "MCQ normalised accuracy", "each item's own option count k",
         "one k per benchmark (the largest, 4)", f"{two} syllabification MCQ items have 2 options"),
        ("pacute-bench", "Hierarchical MCQ gold", "the file's `answer`",
         "`options[0]` (its loader's ground truth)",
         f"differ in {hier.get('answer_not_options0', '?')} of {hier.get('n', '?')} items: the paper's "
         "hierarchical MCQ rows are not comparable with Tanaw's cell"),
        ("pacute-bench", "MCQ F1", "mcq_f1 = 2·acc/(1 + acc), as pacute-bench", "precision always 1",
         "same value"),
        ("SEA-HELM", "QA articles (a/an/the)", "removed in English only", "removed in English only",
         f"same rule; the SQuAD script's rule gives Indonesian {qa_id.get('f1_with_english_articles')} "
         f"instead of {qa_id.get('f1')} (gold + 20 characters)"),
        ("SEA-HELM", "Thai QA headline", "F1 after newmm (whitespace F1 kept as secondary)", "F1 after newmm",
         f"same; whitespace F1 {qa_th.get('f1')} vs newmm {qa_th.get('f1_newmm')} on the Thai sample"),
        ("SEA-HELM", "Classification headline", "the BHASA paper's macro-F1 / accuracy (ranked)",
         "normalised balanced accuracy, clipped at 0, unparsed as a null class", "shown as the `seahelm_nba` "
         "column (SEA-HELM view), never ranked"),
        ("pacute-bench", "Duplicate items", "flagged `duplicate-item`, each copy still scored", "not flagged",
         f"{syl.get('duplicate_groups', '?')} groups, {syl.get('duplicate_items', '?')} syllabification MCQ items"),
        ("SEA-HELM", "LINDSEA typo", "flagged `known-typo`, kept as the source has it", "fixed in SEA-HELM's copy",
         f"{typo.get('item_id', '?')}: '{typo.get('typo', '?')}' for '{typo.get('fix', '?')}'"),
    ]
    return [{"reference": r, "topic": t, "Tanaw": a, "reference tool": b, "count on the samples": c}
            for r, t, a, b, c in rows]
