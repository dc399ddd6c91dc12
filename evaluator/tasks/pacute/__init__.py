"""PACUTE Filipino word-structure diagnostics and its controls (PACUTE paper Sections 3-5).

MCQ tasks are scored by option log-probability (argmax of the summed option log-probabilities);
GEN tasks by exact and contains match after light normalisation. The prompt is the item's own text
(`text_en`/`text_tl` or `prompt_en`/`prompt_tl`); the controls exist in English only.
"""
from evaluator.spec import PromptTemplate, TaskSpec

GEN_FORMAT = ("Reason briefly inside <reflection></reflection>, then give only the final answer inside "
              "<answer></answer>.")
"""System instruction for GEN items: the structured XML format the PACUTE paper describes (Section 3)."""

_MCQ_METRICS = ("mcq_acc", "mcq_norm_acc", "mcq_f1")
_GEN_METRICS = ("exact_match", "contains_match")

_SUITE = {
    # task stem: (data file stem, description, has native prompt)
    "affixation": ("affixation", "Affix inflection and identification (prefix, infix, suffix, circumfix)."),
    "composition": ("composition", "Spelling, character counting and word composition."),
    "manipulation": ("manipulation", "Character insertion, deletion, swapping and substitution."),
    "morphological-extraction": ("morphological_extraction",
                                 "Morphological extraction: the affix or root an inflected word was built from."),
    "morphological-production": ("morphological_production",
                                 "Morphological production: the inflected form of a root with a given affix."),
    "syllabification": ("syllabification", "Syllable counting, splitting and stress identification."),
    "hierarchical": ("hierarchical", "Six-level hierarchy L0 characters … L5 multi-step morphology."),
}
_CONTROLS = {
    "langgame": ("langgame", "LangGame control: English word games (character ceiling)."),
    "mda": ("multi_digit_addition", "Multi-digit addition control (non-linguistic ceiling)."),
    "cute": ("cute", "CUTE control: English character-level manipulation."),
}
_GEN_ONLY = {"cute"}


def _pacute_bench_name(stem: str, fmt: str) -> str:
    """The benchmark name pacute-bench uses for its result files (e.g. `pacute-affixation-gen`)."""
    if stem in _SUITE and stem != "hierarchical":
        return f"pacute-{stem}-{fmt}"
    return {"mda": "multi-digit-addition"}.get(stem, stem) + f"-{fmt}"


def _task(stem: str, fmt: str, data: str, description: str, control: bool) -> TaskSpec:
    is_mcq = fmt == "mcq"
    bench = _pacute_bench_name(stem, fmt)
    name = f"pacute-{stem}-{fmt}"
    aliases = tuple(a for a in {bench, f"{data}_{fmt}", f"{stem}-{fmt}"} if a != name)
    return TaskSpec(
        name=name, family="pacute", group="WS-control" if control else "WS", langs=("tl",),
        mode="choice_logprob" if is_mcq else "generate", loader=f"pacute.{data}_{fmt}",
        extractor="option_logprob" if is_mcq else "pacute_answer",
        metrics=_MCQ_METRICS if is_mcq else _GEN_METRICS,
        chance=None if is_mcq else 0.0, max_tokens=8 if is_mcq else 512,
        prompt_en=PromptTemplate("{text_en}", system=None if is_mcq else GEN_FORMAT, source="item:text_en"),
        native_pack=None if control else "item:text_tl", aliases=tuple(sorted(aliases)),
        dataset={"tl": f"PACUTE {data}_{fmt}"},
        description=f"{description} {'Multiple choice by log-probability.' if is_mcq else 'Generative.'}",
    )


TASKS = tuple(
    _task(stem, fmt, data, desc, control)
    for table, control in ((_SUITE, False), (_CONTROLS, True))
    for stem, (data, desc) in table.items()
    for fmt in (("gen",) if stem in _GEN_ONLY else ("mcq", "gen"))
)

PARTS = {f"pacute-{stem}-{fmt}": (stem, fmt)
         for table in (_SUITE, _CONTROLS) for stem in table
         for fmt in (("gen",) if stem in _GEN_ONLY else ("mcq", "gen"))}
"""(stem, format) of each PACUTE task, e.g. "pacute-mda-mcq" -> ("mda", "mcq"): the explorer's format choice."""
