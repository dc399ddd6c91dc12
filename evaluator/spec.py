"""Frozen records that cross module boundaries: task specs, items, prompts and per-item results."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

Mode = Literal["generate", "choice_logprob", "open", "chat"]
"""How a task is asked: free generation, option log-likelihood, open-ended (no gold, human-judged), or a multi-turn
conversation sent turn by turn (`evaluator.chat`)."""


@dataclass(frozen=True)
class PromptTemplate:
    """One prompt as sent: an optional system message and a user message with `{field}` slots."""

    user: str
    """User message template; `{field}` names an item input field."""
    system: str | None = None
    """System message template, or None when the task sends none."""
    source: str = "registry"
    """Where the template came from: "registry" (English, from the paper) or a prompt-pack path."""


@dataclass(frozen=True)
class Family:
    """A benchmark family, declared once in `evaluator/tasks/<name>/family.yaml` (or a tasks folder's)."""

    name: str
    """Family id as tasks and the store name it, e.g. "bhasa"."""
    title: str
    """Display name, e.g. "BHASA"."""
    position: int = 100
    """Order among families (lists, pages, the default run selection); ties by name."""
    board: bool = True
    """Whether the leaderboard has a tab for it (False for human-rated families)."""
    description: str = ""
    """One line for listings."""
    order: tuple[str, ...] = ()
    """Display order of its tasks; tasks not listed follow in the order their files are read."""


@dataclass(frozen=True)
class TaskSpec:
    """A task declared once, as data: what it asks, in which languages, and how it is scored."""

    name: str
    """Task id as used everywhere (CLI, store, URLs), e.g. "sentiment" or "lindsea-mp"."""
    family: str
    """Benchmark family the task belongs to (a declared `Family`)."""
    group: str
    """Competency for averages: NLU, NLG, NLR, LD (linguistic diagnostics), CULT or WS (word structure)."""
    langs: tuple[str, ...]
    """Languages the task exists in (ISO 639-1)."""
    mode: Mode
    """Generative, log-probability choice, or open-ended."""
    loader: str
    """Key of the dataset loader in `evaluator.datasets.LOADERS` ("jsonl" with `data`)."""
    extractor: str
    """Key of the answer extractor in `evaluator.extract.EXTRACTORS`."""
    metrics: tuple[str, ...]
    """Metric keys in `evaluator.metrics.METRICS`; the headline metric is chosen per language by `headline`."""
    headline: Mapping[str, str] = field(default_factory=dict)
    """Headline metric per language; languages not listed use `metrics[0]`."""
    dataset: Mapping[str, str] = field(default_factory=dict)
    """Dataset name per language, e.g. {"id": "NusaX"}."""
    labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Closed label set per language (canonical English label names) for classification tasks."""
    chance: Mapping[str, float] | float | None = None
    """Chance level of the headline metric (0-1), per language or for all; None = per item from option counts."""
    prompt_en: PromptTemplate | None = None
    """The English prompt (BHASA paper, Tables 3-10 and 29), or None when the prompt comes from a pack."""
    native_pack: str | None = None
    """Prompt-pack reference for native prompts: "lindsea:<section>.<key>" or "seahelm:<file>:<task>"."""
    temperature: float = 0.0
    """Sampling temperature (BHASA: 0 for NLU/NLR and translation, 0.3 for summarization)."""
    max_tokens: int = 128
    """Generation budget."""
    trim_tokens: Mapping[str, int] = field(default_factory=dict)
    """Per-language document token budget (paper Table 12); longer inputs are truncated and flagged."""
    both_orders: bool = False
    """Binary-choice items are asked in both option orders to control position bias."""
    logprob_of: Literal["options", "sentences"] = "options"
    """What a log-probability run compares (`evaluator.logprob_choice`): each option continuing the prompt, or, for
    minimal pairs, the option fields' own sentences without a prompt (the more probable sentence is the pick)."""
    option_fields: tuple[str, str] | None = None
    """Input fields holding options A and B; asking in order "ba" swaps them and flips the gold letter."""
    language_slots: Mapping[str, str] = field(default_factory=dict)
    """Template slots filled from the language entry (`evaluator.languages`): slot → entry field, e.g.
    {"labels": "ner_labels"}, {"label_choices": "toxicity_labels.choices"}; "en:name" reads the English entry."""
    output_tag: str | None = None
    """Kind of output tag the answer may follow (`Language.output_tags` key: "translation", "summary")."""
    rollup_as: str | None = None
    """Sub-task name this task is averaged under before its competency mean (both translation directions)."""
    gold_alternatives: bool = False
    """A string gold may list acceptable alternatives joined by "or" ("Tono or Tina (least preferred)")."""
    contains_whole_output: bool = True
    """Contains-match searches the text after the last closed reasoning block when no `<answer>` block closes
    (PACUTE); False: only the extracted answer (LINDSEA open coreference)."""
    human_protocol: str | None = None
    """Human-evaluation protocol a campaign on this task uses unless told otherwise (`evaluator.human.protocols`:
    "mt", "summarisation")."""
    copy_baseline: tuple[str, str] | None = None
    """What a trivial copy baseline answers for an open-generation task: (input field, "whole" or
    "first_sentence"); None = no copy baseline."""
    aliases: tuple[str, ...] = ()
    """Other names accepted for this task (e.g. pacute-bench benchmark names)."""
    description: str = ""
    """One line for listings and the methodology page."""
    version: int = 1
    """Bumped when items, prompts or scoring change incompatibly."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """For the generic JSON Lines loader (`loader: jsonl`, `evaluator.datasets.jsonl`): `file` (under the data
    directory, `{lang}` filled in), `id`, `gold`, `inputs` and optionally `options` (field names)."""
    source: str = field(default="", compare=False)
    """File the task was declared in (for messages naming file and field)."""

    def headline_metric(self, lang: str) -> str | None:
        """The metric ranked on the leaderboard for `lang` (None for human-rated tasks with no metric)."""
        return self.headline.get(lang, self.metrics[0] if self.metrics else None)

    def chance_level(self, lang: str) -> float | None:
        """Chance level for `lang` (0-1) or None when it depends on each item's options."""
        if isinstance(self.chance, Mapping):
            return self.chance.get(lang)
        return self.chance


@dataclass(frozen=True)
class Item:
    """One benchmark item with its gold answer, as every loader yields it."""

    task: str
    """Task id."""
    lang: str
    """Language of the item."""
    item_id: str
    """Stable id, unique within (task, lang)."""
    inputs: Mapping[str, Any]
    """Fields the prompt templates fill (text, premise, choice1, ...)."""
    gold: Any
    """Gold answer: a label, a letter, a string, a list of acceptable strings, or entity spans."""
    options: tuple[str, ...] | None = None
    """Answer options for choice tasks, in the order presented; None for free generation."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Drill-down keys: phenomenon, category, subcategory, level, source ids, ..."""
    warnings: tuple[str, ...] = ()
    """Data-quality flags found while loading (kept with the item, shown on failure pages)."""


@dataclass(frozen=True)
class Prediction:
    """One model output for one item, as it arrives from a run or an uploaded file."""

    task: str
    lang: str
    item_id: str
    prompt_lang: str
    """"en" or "native"."""
    output: str | None
    """Raw model output (untrusted text)."""
    run: int = 1
    """Run number for repeated runs."""
    option_logprobs: tuple[float, ...] | None = None
    """Summed log-probability of each option (MCQ log-likelihood mode), in `Item.options` order."""
    reasoning: str | None = None
    """Reasoning trace supplied separately (reasoning_content); `<think>` blocks are split off by extraction."""
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    finish_reason: str | None = None
    order: str = "ab"
    """Option order for binary-choice items asked in both orders: "ab" (as loaded) or "ba" (swapped)."""
    self_reported: Mapping[str, float] = field(default_factory=dict)
    """Scores found in an uploaded file; kept apart and never ranked."""
    prompt: str | None = None
    """The prompt as sent, when known."""
    line: int | None = None
    """Line of the source file this prediction came from (for error messages), when it came from a file."""


@dataclass(frozen=True)
class ItemResult:
    """A scored prediction: what the store keeps per item."""

    prediction: Prediction
    answer: str | None
    """Extracted answer; None = could not be parsed (an instruction-following failure)."""
    parsed: bool
    reasoning: str | None
    """Reasoning trace split off the output (think/reflection blocks) or given separately."""
    scores: Mapping[str, float]
    """Per-item metric values keyed by metric name."""
    extras: Mapping[str, Any] = field(default_factory=dict)
    """Per-item details a corpus metric needs (e.g. NER spans, chosen option, length normalisation)."""
