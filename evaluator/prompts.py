"""Prompt rendering: English templates from the registry, native ones from prompt packs read at run time.

Prompt packs travel with the data (`TANAW_DATA_DIR`): LINDSEA's `lindsea/<lang>/prompts.yaml` and SEA-HELM task
configs in `seahelm-configs/`. A cell without a native prompt raises `NoNativePrompt` rather than inventing a
machine translation. Per-language words (language names, NER and toxicity labels, cause/effect) come from the
language entries (`evaluator.languages`); a task names the ones its templates need in `TaskSpec.language_slots`. A
language entry may carry its own prompt pack (`prompt_pack:`), used for its native prompts.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import yaml

from evaluator import languages
from evaluator.datasets import default_data_dir
from evaluator.spec import Item, PromptTemplate, TaskSpec


class NoNativePrompt(LookupError):
    """The cell has no verified native-language prompt (or no English one, for native-only probes)."""


class PromptError(ValueError):
    """A template names a field the item does not provide."""


@dataclass(frozen=True)
class Rendered:
    """A prompt ready to send, with the gold answer as it applies to this option order."""

    system: str | None
    user: str
    gold: Any
    options: tuple[str, ...] | None
    prompt_lang: str
    order: str
    source: str
    """Where the template came from (registry, pack path, item field)."""


_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")


def fill(template: str, fields: Mapping[str, Any], *, where: str = "") -> str:
    """Substitute `{name}` slots (`{{`/`}}` give literal braces; other braces and `$OPTION` are left alone)."""
    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name is None:
            return m.group(0)[0]
        if name not in fields or fields[name] is None:
            raise PromptError(f"{where}: template needs field {name!r}, which the item does not provide")
        return str(fields[name])
    return _FIELD.sub(sub, template)


@functools.lru_cache(maxsize=64)
def _yaml(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


def _data_dir(data_dir: str | Path | None) -> Path:
    if data_dir is not None:
        return Path(data_dir)
    return default_data_dir()


def seahelm_template(block: Mapping[str, Any]) -> str | None:
    """The user template of one SEA-HELM `prompt_template` block: its `template` (configs up to 360c7cc), else its
    zero-shot prompt as SEA-HELM builds it from a `preamble` and a `task_template` (configs at 6844e6c,
    src/dataloaders/base_dataloader.py): the preamble with its `{answer_tag}` filled, a blank line, the task."""
    if block.get("template"):
        return block["template"]
    preamble, task_tpl, tag = block.get("preamble"), block.get("task_template"), block.get("answer_tag")
    if not (isinstance(preamble, str) and isinstance(task_tpl, str) and isinstance(tag, str)):
        return None
    return (preamble.replace("{answer_tag}", tag) + "\n\n" + task_tpl).strip()


def pack_template(task: TaskSpec, lang: str, variant: str, data_dir: str | Path | None = None) -> PromptTemplate:
    """The template of `task.native_pack` for `lang`; `variant` is "en" or "native". Raises NoNativePrompt."""
    ref = task.native_pack
    if not ref:
        raise NoNativePrompt(f"{task.name}/{lang}: no native prompt pack is declared for this task")
    kind, _, rest = ref.partition(":")
    root = _data_dir(data_dir)
    if kind == "lindsea":
        path = root / "lindsea" / lang / "prompts.yaml"
        section, _, key = rest.partition(".")
        if not path.exists():
            raise NoNativePrompt(f"{task.name}/{lang}: prompt pack {path} not found")
        entry = (_yaml(str(path)).get(section) or {}).get(key) or {}
        t = entry.get("translated" if variant == "native" else "en")
        if not t:
            raise NoNativePrompt(f"{task.name}/{lang}: {path} has no {section}.{key} {variant} prompt")
        return PromptTemplate(user=t["human"], system=t.get("system"), source=f"{path}#{section}.{key}")
    if kind == "seahelm":
        file, _, key = rest.partition(":")
        path = root / "seahelm-configs" / file
        if not path.exists():
            raise NoNativePrompt(f"{task.name}/{lang}: prompt pack {path} not found")
        langs = (_yaml(str(path)).get(key) or {}).get("languages") or {}
        tpl = seahelm_template((langs.get(lang) or {}).get("prompt_template") or {})
        if not tpl:
            raise NoNativePrompt(f"{task.name}/{lang}: {path} has no native prompt for {key}/{lang}")
        return PromptTemplate(user=tpl, system=None, source=f"{path}#{key}.{lang}")
    if kind == "item":
        system = task.prompt_en.system if task.prompt_en else None
        return PromptTemplate(user="{" + rest + "}", system=system, source=f"item:{rest}")
    raise ValueError(f"{task.name}: unknown prompt pack kind {kind!r}")


def language_pack_template(task: TaskSpec, lang: str) -> PromptTemplate | None:
    """The native template for `task` in the language entry's own prompt pack, or None when it has none."""
    entry = languages.get(lang)
    path = entry.prompt_pack_path() if entry is not None else None
    if path is None or not path.is_file():
        return None
    t = _yaml(str(path)).get(task.name)
    if not isinstance(t, dict) or not isinstance(t.get("template"), str):
        return None
    return PromptTemplate(user=t["template"], system=t.get("system"), source=f"{path}#{task.name}")


def template_for(task: TaskSpec, lang: str, prompt_lang: str, data_dir=None) -> PromptTemplate:
    """The template used for (task, lang, prompt_lang); LINDSEA's English prompts come from its pack."""
    if prompt_lang == "native":
        own = language_pack_template(task, lang)
        return own if own is not None else pack_template(task, lang, "native", data_dir)
    if prompt_lang != "en":
        raise ValueError(f"prompt language must be 'en' or 'native', not {prompt_lang!r}")
    if task.native_pack and task.native_pack.startswith("lindsea:"):
        try:
            return pack_template(task, lang, "en", data_dir)
        except NoNativePrompt:
            if task.prompt_en is None:
                raise
    if task.prompt_en is None:
        raise NoNativePrompt(f"{task.name}/{lang}: this probe is asked in the native language only")
    return task.prompt_en


def _swap(item: Item, task: TaskSpec, order: str) -> tuple[dict, Any, tuple | None]:
    """Inputs, gold and options for the requested option order ("ba" swaps the two options)."""
    inputs, gold, options = dict(item.inputs), item.gold, item.options
    if order == "ba":
        if not task.option_fields:
            raise ValueError(f"{task.name}: order 'ba' needs option_fields")
        a, b = task.option_fields
        inputs[a], inputs[b] = item.inputs[b], item.inputs[a]
        gold = {"A": "B", "B": "A"}.get(gold, gold)
        options = tuple(reversed(options)) if options else options
    elif order != "ab":
        raise ValueError(f"order must be 'ab' or 'ba', not {order!r}")
    return inputs, gold, options


def language_value(lang: str, source: str) -> str | None:
    """A language entry's field as template text: "ner_labels", "toxicity_labels.choices", "en:name" (English
    entry); lists are joined with ", "; None when the language or the field is missing."""
    code, _, path = source.rpartition(":")
    entry = languages.get(code or lang)
    value: Any = entry
    for part in path.split("."):
        if value is None:
            return None
        value = value.get(part) if isinstance(value, Mapping) else getattr(value, part, None)
    if isinstance(value, (tuple, list)):
        value = ", ".join(str(v) for v in value)
    return str(value) if value else None


def fields_for(task: TaskSpec, item: Item, inputs: dict, prompt_lang: str) -> dict:
    """Item inputs plus the derived slots templates use (language name, the task's `language_slots`, the
    cause/effect literal, the option block)."""
    lang = item.lang
    entry = languages.get(lang)
    f = dict(inputs)
    f.setdefault("language", languages.name_of(lang))
    f.setdefault("fewshot_examples", "")
    for slot, source in task.language_slots.items():
        value = language_value(lang, source)
        if value is not None:
            f.setdefault(slot, value)
    literals = entry.literals if entry is not None else {}
    if "question" in f and f["question"] in literals:
        f.setdefault("question_translated", literals[f["question"]])
    if task.option_fields:
        a, b = task.option_fields
        f.setdefault("sentence_pair", f"A: {f[a]}\nB: {f[b]}")
    return f


def render(task: TaskSpec, item: Item, prompt_lang: str, order: str = "ab", *, data_dir=None) -> Rendered:
    """The prompt for `item` in `prompt_lang` ("en" | "native") and option `order` ("ab" | "ba")."""
    tpl = template_for(task, item.lang, prompt_lang, data_dir)
    inputs, gold, options = _swap(item, task, order)
    fields = fields_for(task, item, inputs, prompt_lang)
    where = f"{task.name}/{item.lang}/{item.item_id} ({tpl.source})"
    system = fill(tpl.system, fields, where=where) if tpl.system else None
    return Rendered(system=system, user=fill(tpl.user, fields, where=where), gold=gold, options=options,
                    prompt_lang=prompt_lang, order=order, source=tpl.source)


def messages(r: Rendered, *, system_supported: bool = True) -> list[dict]:
    """Chat messages for a rendered prompt; without system support the system text is prepended to the user turn."""
    if r.system and system_supported:
        return [{"role": "system", "content": r.system}, {"role": "user", "content": r.user}]
    user = f"{r.system}\n\n{r.user}" if r.system else r.user
    return [{"role": "user", "content": user}]


def as_text(r: Rendered) -> str:
    """The prompt as one string (stored with each prediction, shown on the Compare page)."""
    return f"[system]\n{r.system}\n\n[user]\n{r.user}" if r.system else r.user


def available_prompt_langs(task: TaskSpec, lang: str, data_dir=None) -> dict[str, str]:
    """{"en": source or reason, "native": source or reason}: which prompt languages a cell has, and why not."""
    out = {}
    for pl in ("en", "native"):
        try:
            out[pl] = template_for(task, lang, pl, data_dir).source
        except NoNativePrompt as e:
            out[pl] = f"unavailable: {e}"
    return out
