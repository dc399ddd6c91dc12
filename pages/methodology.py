"""About → Methodology: how every task is asked and scored, generated from the registries (no hand-kept prose)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages._entry import ensure_app

ensure_app()

from services import methodology as docs
from store.cached import q

SECTIONS = ("Metrics", "Tasks", "Answer extraction", "Aggregation", "ROUGE-L variants", "PACUTE vs pacute-bench")
FAMILIES = ("all", "bhasa", "lindsea", "pacute", "cultural")
WRAP = {"description": st.column_config.TextColumn(width="large"),
        "reference": st.column_config.TextColumn(width="medium"),
        "reads": st.column_config.TextColumn(width="large")}


def _rouge(data_dir: str) -> list[dict]:
    """Computed by the wiring at app start (`services.methodology.refresh_figures`), never here."""
    return q("stored_figure", figure="rouge_variants", source=data_dir) or []


def _pacute(data_dir: str) -> tuple[int, list[dict]]:
    n_rows = q("stored_figure", figure="pacute_differences", source=data_dir)
    return tuple(n_rows) if n_rows else (0, [])


def _table(rows: list[dict], **kw) -> None:
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config=WRAP, **kw)


st.title("Methodology")
st.caption("Generated from Tanaw's task registry and metric registry: what is listed here is what is computed.")
section = st.radio("Section", SECTIONS, key="section", horizontal=True, bind="query-params",
                   label_visibility="collapsed")
data_dir = docs.data_dir()

if section == "Metrics":
    st.markdown("Scores are stored on 0-1 and shown on 0-100. *Item* metrics are averaged over items; *corpus* "
                "metrics are computed over the whole cell (macro-F1, chrF++, strict NER F1). An answer that "
                "cannot be parsed scores as wrong and is counted in the *unparsed* rate of its cell.")
    cols = st.columns(2)
    for i, m in enumerate(docs.metric_rows()):
        with cols[i % 2].container(border=True):
            st.markdown(f"**{m['name']}** `{m['metric']}` · {m['scope']} · languages: {m['languages']}")
            st.markdown(m["description"])
            st.caption(f"Reproduces: {m['reference']}  \nChance: {m['chance']}  \n95% interval: {m['interval']}")
elif section == "Tasks":
    family = st.radio("Benchmark", FAMILIES, key="family", horizontal=True, bind="query-params")
    st.markdown("The **headline** metric is the one ranked on the leaderboard for that language (BHASA's choice "
                "per dataset). Chance is on 0-100; binary choices marked *both orders* are asked A/B and B/A.")
    rows = docs.task_rows(None if family == "all" else family)
    _table([{k: v for k, v in r.items() if k != "description"} for r in rows], height=520)
    st.subheader("What each task asks")
    for name, text in dict.fromkeys((r["task"], r["description"]) for r in rows):
        st.markdown(f"- **{name}**: {text}")
elif section == "Answer extraction":
    st.markdown("Every output first loses its `<think>` and `<reflection>` blocks (kept as the reasoning trace); "
                "an `<answer>` block is preferred, then the text after the last answer tag, then the whole "
                "output. Case, markdown and punctuation around an answer are ignored.")
    for r in docs.extractor_rows():
        st.markdown(f"- **{r['extractor']}** ({r['tasks']}): {r['reads']}")
    st.subheader("Accepted answer words")
    _table(docs.answer_words(), height=360)
elif section == "Aggregation":
    for note in docs.aggregation_notes():
        st.markdown(f"- {note}")
    st.markdown(docs.rollup_example())
elif section == "ROUGE-L variants":
    st.markdown(docs.ROUGE_NOTE)
    rows = _rouge(data_dir)
    if rows:
        st.markdown("Baseline on the shared XL-Sum samples, using each article's **title** as its summary "
                    "(mean per-item ROUGE-L F1, 0-100):")
        shown = [{k: ("Thai only" if v is None else f"{v:.2f}" if isinstance(v, float) else v) for k, v in r.items()}
                 for r in rows]
        st.dataframe(pd.DataFrame(shown), hide_index=True)
    else:
        st.info(f"The XL-Sum samples are not available under {data_dir}.")
else:
    n, rows = _pacute(data_dir)
    st.markdown("PACUTE generation is scored by exact match after normalising case, surrounding whitespace and "
                "leading/trailing hyphens of affix strings (PACUTE paper §5), and by contains-match. Re-scoring "
                "pacute-bench's released per-item results (gpt-4.1-nano sample) with Tanaw's extraction reproduces "
                "every flag except the deliberate differences counted below.")
    if n:
        c1, c2 = st.columns(2)
        c1.metric("Items re-scored", f"{n:,}", help="8 generative benchmarks; exact and contains match each")
        c2.metric("Flags that differ", f"{sum(r['items'] for r in rows):,}", help="all with a reason below")
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        for key, text in docs.pacute_reasons().items():
            count = sum(r["items"] for r in rows if r["reason"] == key)
            st.markdown(f"- **{key}** ({count} flags): {text}")
    else:
        st.info(f"The pacute-bench result sample is not available under {data_dir}.")
