"""Tanaw's answer extraction against SEA-HELM's own, on the same outputs: agreement per output style.

SEA-HELM's metric classes (`seahelm_tasks/seahelm_metric.py` and the sentiment, toxicity, NLI, causal and LINDSEA
classes at a given commit) are read from a git checkout or mirror of aisingapore/SEA-HELM (e.g. the one the
`fetch` tool writes) into a temporary folder and imported; `sklearn` is stubbed because extraction does not use it.
As SEA-HELM's pipeline does for reasoning models, its side gets `response.split("</think>")[-1]`.

For every label of every (task, language) cell the script writes one output per style (clean tag, lower-case,
English tag, markdown, negated, echoed choices, two tags agreeing / disagreeing, closed and unclosed `<think>`,
NFD) and prints, per style, how often both read the same answer (unparsed = SEA-HELM's null label) and an example
where they differ. Differences are Tanaw's stated rules (`evaluator.extract.RULES`) or SEA-HELM's exact-match map.

    python benchmarks/extraction_vs_seahelm.py --seahelm /work/.mirror/aisingapore+SEA-HELM/repo [--commit 360c7cc]
"""
from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
import types
import unicodedata
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.extract import EXTRACTORS  # noqa: E402
from evaluator.languages import LANGUAGES  # noqa: E402
from evaluator.registry import get_task  # noqa: E402
from evaluator.spec import Item  # noqa: E402

FILES = {
    "sentiment": ("seahelm_tasks/nlu/sentiment_analysis/sentiment_analysis.py", "SentimentAnalysisMetric"),
    "toxicity": ("seahelm_tasks/safety/toxicity_detection/toxicity_detection.py", "ToxicityDetectionMetric"),
    "nli": ("seahelm_tasks/nlr/nli/nli.py", "NLIMetric"),
    "causal": ("seahelm_tasks/nlr/causal/causal_reasoning.py", "CausalReasoningMetric"),
    "lindsea-mp": ("seahelm_tasks/lindsea/syntax/minimal_pairs.py", "MinimalPairsMetric"),
    "lindsea-pragmatic-pair": ("seahelm_tasks/lindsea/pragmatics/pragmatic_reasoning.py",
                               "PragmaticReasoningSentencePairMetric"),
}
SUPPORT = ("base_logger.py", "seahelm_tasks/seahelm_metric.py")
TOXICITY_IDS = {"id": ("clean", "abusive", "hate"), "vi": ("clean", "offensive", "hate"),
                "th": ("non-toxic", "toxic")}
"""SEA-HELM's toxicity class ids → Tanaw labels (id/vi: 0 clean, 1 abusive/offensive, 2 hate; th: 1 = Y = toxic)."""
NLI_IDS = {"entailment": "A", "contradiction": "B", "neutral": "C"}


def materialise(checkout: Path, commit: str, into: Path) -> None:
    """Write SEA-HELM's metric files at `commit` into `into`, with an sklearn stub."""
    for rel in (*SUPPORT, *(f for f, _ in FILES.values())):
        text = subprocess.run(["git", f"--git-dir={_git_dir(checkout)}", "show", f"{commit}:{rel}"], check=True,
                              capture_output=True, text=True).stdout
        path = into / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    stub = types.ModuleType("sklearn.metrics")
    for name in ("accuracy_score", "balanced_accuracy_score", "classification_report", "confusion_matrix",
                 "f1_score"):
        setattr(stub, name, None)
    sys.modules["sklearn"] = types.ModuleType("sklearn")
    sys.modules["sklearn.metrics"] = stub
    sys.path.insert(0, str(into))


def _git_dir(checkout: Path) -> Path:
    return checkout / ".git" if (checkout / ".git").exists() else checkout


def seahelm_reader(task: str, lang: str):
    """A function output → Tanaw-vocabulary answer (None = SEA-HELM's null label) using SEA-HELM's own class."""
    import pandas as pd

    module_path, cls_name = FILES[task]
    cls = getattr(importlib.import_module(module_path[:-3].replace("/", ".")), cls_name)
    metric = cls(inference_df=pd.DataFrame(), task_config={"null_label": "none"}, task=task, lang=lang)

    def read(output: str):
        value = metric.extract_response([output.split("</think>")[-1].strip()])
        if value == "none":
            return None
        if task == "sentiment":
            return value
        if task == "toxicity":
            ids = TOXICITY_IDS[lang]
            return ids[value] if lang != "th" else ("toxic" if value == 1 else "non-toxic")
        if task == "nli":
            return NLI_IDS[value]
        if task == "lindsea-pragmatic-pair":
            return "true" if value == 1 else "false"
        return "AB"[value]
    return read


def native_words(task: str, lang: str) -> dict[str, str]:
    """Tanaw answer → the word a model would write for it in `lang` (first native word, else the letter)."""
    spec = get_task(task)
    if spec.extractor == "letter":
        return {x: x for x in spec.labels[lang]}
    entry = LANGUAGES[lang]
    if spec.extractor == "true_false":
        return {"true" if v else "false": w for w, v in reversed(list(entry.polarity_words.items()))
                if w not in ("ya", "tidak", "ஆம்", "இல்லை")}
    words = {lab: w for w, lab in reversed(list({**entry.single_letter_labels, **entry.label_words}.items()))}
    return {lab: words[lab] for lab in spec.labels[lang] if lab in words}


def styles(task: str, lang: str) -> dict[str, list[tuple[str, str | None]]]:
    """Style → [(output, the answer it intends)]; intended None = not an answer (negated, echoed, disagreeing)."""
    entry = LANGUAGES[lang]
    tag = entry.answer_tag
    words = native_words(task, lang)
    labels = list(words)
    neg = (entry.negation_before or ("",))[0]
    after = (entry.negation_after or ("",))[0]
    either = f" {(entry.or_words or ('or',))[0]} "
    out: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for i, lab in enumerate(labels):
        word, other = words[lab], words[labels[(i + 1) % len(labels)]]
        out["clean tag"].append((f"{tag}: {word.title()}", lab))
        out["lower-case"].append((f"{tag}: {word}".lower(), lab))
        out["English tag"].append((f"Answer: {word.title()}", lab))
        out["markdown"].append((f"**{tag}:** **{word.title()}**", lab))
        out["answer, then reason"].append((f"{tag}: {word.title()} - {entry.name} text, one reason.", lab))
        negated = f"{word} {after}" if after else f"{neg} {word}"
        out["negated"].append((f"{tag}: {negated.strip().title()}", None))
        out["echoed choices"].append((f"{tag}: {word.title()}{either}{other.title()}", None))
        out["two tags agree"].append((f"{tag}: {word.title()}\n\n{tag}: {word.title()}", lab))
        out["two tags disagree"].append((f"{tag}: {other.title()}\n\n{tag}: {word.title()}", None))
        out["closed <think>"].append((f"<think>{tag}: {other}?</think>\n{tag}: {word.title()}", lab))
        out["unclosed <think>"].append((f"<think>{tag}: {word.title()}", None))
        out["NFD"].append((unicodedata.normalize("NFD", f"{tag}: {word.title()}"), lab))
    return out


def tanaw_reader(task: str, lang: str):
    spec = get_task(task)
    gold = "True" if spec.extractor == "true_false" else "x"
    item = Item(task=task, lang=lang, item_id="0", inputs={}, gold=gold, options=("a", "b"))
    return lambda output: EXTRACTORS[spec.extractor](output, task=spec, lang=lang, item=item).answer


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seahelm", required=True, type=Path, help="git checkout or bare mirror of SEA-HELM")
    ap.add_argument("--commit", default="360c7cc")
    args = ap.parse_args()
    cells = [(t, lang) for t in FILES for lang in get_task(t).langs if lang in ("id", "vi", "th", "ta")]
    with tempfile.TemporaryDirectory() as tmp:
        materialise(args.seahelm, args.commit, Path(tmp))
        rows: dict[str, list[tuple[str, str, str, str | None, str | None, str | None]]] = defaultdict(list)
        for task, lang in cells:
            theirs, ours = seahelm_reader(task, lang), tanaw_reader(task, lang)
            for style, outputs in styles(task, lang).items():
                for output, meant in outputs:
                    rows[style].append((task, lang, output, meant, ours(output), theirs(output)))
    print(f"SEA-HELM @ {args.commit} vs Tanaw, {len(cells)} cells (task × language)\n")
    print(f"{'style':<20}{'n':>5}{'agree':>8}{'Tanaw right':>13}{'SEA-HELM right':>16}  example of a difference")
    for style, found in rows.items():
        agree = sum(o == t for *_, o, t in found)
        ours_ok = sum(o == m for *_, m, o, _ in found)
        theirs_ok = sum(t == m for *_, m, _, t in found)
        diff = next((r for r in found if r[4] != r[5]), None)
        example = (f"{diff[0]}/{diff[1]} {diff[2]!r}: Tanaw {diff[4]}, SEA-HELM {diff[5]}" if diff else "")
        print(f"{style:<20}{len(found):>5}{100 * agree / len(found):>7.0f}%{ours_ok:>13}{theirs_ok:>16}  "
              f"{example[:110]}")
    print("\n'right' = the intended answer, or unparsed for negated, echoed and disagreeing outputs.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
