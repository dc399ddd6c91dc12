"""About → Methodology: how every task is asked and scored, generated from the registries (no hand-kept prose)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from evaluator.registry import FAMILIES as FAMILY_NAMES
from pages._entry import ensure_app

ensure_app()

from pages._cached import q
from services import methodology as docs

DIFFERENCES = "Differences from pacute-bench and SEA-HELM"
LEAKAGE = "Data leakage"
SECTIONS = ("Metrics", "Tasks", "Answer extraction", "Aggregation", "ROUGE-L variants", LEAKAGE, DIFFERENCES)
NO_FIGURES = ("The sample figures have not been computed (`python scripts/build_methodology_figures.py` with the "
              "public samples beside the repository).")
FAMILIES = ("all", *FAMILY_NAMES)
WRAP = {"description": st.column_config.TextColumn(width="large"),
        "reference": st.column_config.TextColumn(width="medium"),
        "reads": st.column_config.TextColumn(width="large")}


def _table(rows: list[dict], **kw) -> None:
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config=WRAP, **kw)


st.title("Methodology")
st.caption("Generated from Tanaw's task registry and metric registry: what is listed here is what is computed.")
section = st.radio("Section", SECTIONS, key="section", horizontal=True, bind="query-params",
                   label_visibility="collapsed")

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
                "an `<answer>` block is preferred, then the text after the answer tags, then the whole output. "
                "Case, markdown and punctuation around an answer are ignored. The words of each language come "
                "from its entry in `evaluator/languages/`.")
    for r in docs.extractor_rows():
        st.markdown(f"- **{r['extractor']}** ({r['tasks']}): {r['reads']}")
    st.subheader("Rules for hard cases")
    for name, rule in docs.extraction_rules():
        st.markdown(f"- **{name}**: {rule}")
    st.subheader("Accepted answer words")
    _table(docs.answer_words(), height=360)
elif section == "Aggregation":
    for note in docs.aggregation_notes():
        st.markdown(f"- {note}")
    st.markdown(docs.rollup_example())
    st.subheader("Ranks")
    st.markdown("Ranks on the leaderboard follow the **interval-overlap rule** (as LMArena ranks), not a bootstrap: "
                "each overall score gets a 95% interval propagated from its cells' own intervals (the overall is a "
                "fixed weighted mean of the cells; their errors are treated as independent), a model's best rank is "
                "1 + the number of models whose interval lies wholly above its own, and its worst rank the number "
                "of models whose interval reaches its own. The table shows the best rank, the range best–worst, and "
                "*tied with #1* for every model that could be first. Ranks are computed over every evaluated and "
                "uploaded model when results are stored (`evaluator.ranking`); demo runs and baselines are never "
                "ranked. PACUTE's overall is its main suite; the controls (LangGame, multi-digit addition, CUTE) "
                "are shown beside it as a ceiling and never averaged in.")
elif section == "ROUGE-L variants":
    st.markdown(docs.ROUGE_NOTE)
    rows = docs.rouge_table()
    if rows:
        st.markdown("Baseline on the shared XL-Sum samples, using each article's **title** as its summary "
                    "(mean per-item ROUGE-L F1, 0-100):")
        shown = [{k: ("Thai only" if v is None else f"{v:.2f}" if isinstance(v, float) else v) for k, v in r.items()}
                 for r in rows]
        st.dataframe(pd.DataFrame(shown), hide_index=True)
    else:
        st.info(NO_FIGURES)
elif section == LEAKAGE:
    from services.leakage import methodology_rows

    st.markdown("Signals that a cell's score may be memorised rather than earned (BHASA §3.6.9: GPT-4 reproduced 8 "
                "FLORES-200 references word for word and named a boy an XL-Sum article never names). Each signal "
                "lists the items it flags; the leaderboard shows a badge with the evidence and the cell's score on "
                "the unflagged items beside its full score. **A flag never changes a rank.** A model card that "
                "declares a benchmark's data (`python -m evaluator declare`) flags that benchmark's cells "
                "(signal `declared`), and the `leakage` run mode's probes add their own rows.")
    st.markdown("False positives are counted on models that cannot have seen the data: the demo models (the demo "
                "items were written for Tanaw; the baselines' translations copy the source), the same answers "
                "moved to other items, and other items' references given as answers "
                "(`python benchmarks/bench_leakage_fpr.py`).")
    _table(methodology_rows())
else:
    st.markdown("Where Tanaw deliberately scores differently from pacute-bench (the PACUTE paper's code) and "
                "SEA-HELM (the BHASA paper's successor), with the count each difference makes on the public "
                "samples. Figures are computed once by `scripts/build_methodology_figures.py`, not on this page.")
    st.table(pd.DataFrame(docs.differences()), hide_index=True, border="horizontal")
    n, rows = docs.pacute_differences()
    st.subheader("PACUTE generation: re-scoring pacute-bench's released results")
    st.markdown("Exact match after normalising case, surrounding whitespace and leading/trailing hyphens of affix "
                "strings, after Unicode NFC (PACUTE paper §5); only the answer is read: without a closed "
                "`<answer>` block, the text after the last closed reasoning block, and nothing when reasoning "
                "never closes. *Normalised* columns re-score pacute-bench's own extracted answers with the same "
                "normalisation: per benchmark they equal Tanaw's except where a reflection never closed.")
    if n:
        _table(docs.pacute_benchmarks())
        c1, c2 = st.columns(2)
        c1.metric("Items re-scored", f"{n:,}", help="8 generative benchmarks (gpt-4.1-nano); exact and contains")
        c2.metric("Flags that differ from the released ones", f"{sum(r['items'] for r in rows):,}",
                  help="each with its rule, explained under the next table")
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        with st.expander("Each item whose flag differs from the released one"):
            _table(docs.pacute_difference_items())
        remaining = docs.pacute_remaining()
        st.markdown(f"Per-item differences left after normalising pacute-bench's answers: **{len(remaining)}**.")
        if remaining:
            _table(remaining)
    else:
        st.info(NO_FIGURES)
    st.subheader("PACUTE: imported pacute-bench results, item by item")
    st.markdown("For every model imported from pacute-bench's own files, the items whose Tanaw score differs from "
                "the tool's released flag (the figures behind the paper's tables), by the rule that explains it; "
                "counted from the stored rows.")
    counted = docs.pacute_rule_counts(q("pacute_rule_rows"))
    if counted:
        st.dataframe(pd.DataFrame(counted), hide_index=True)
    else:
        st.info("No pacute-bench results are imported.")
    for key, text in docs.pacute_rules().items():
        st.markdown(f"- **{key}**: {text}")
    st.subheader("PACUTE multiple choice")
    st.markdown(f"- **Ties**: {docs.MCQ_TIE_RULE}\n"
                "- **F1** (`mcq_f1`): as the paper reports it and pacute-bench computes it, the gold is the "
                "positive class, so precision is 1 and F1 = 2·acc/(1 + acc).\n"
                "- **Normalised accuracy** (`mcq_norm_acc`): Tanaw uses each item's own number of options k; "
                "pacute-bench uses one k per benchmark (4), so its values differ where items have 2 options.\n"
                "- **Hierarchical MCQ**: pacute-bench's loader scores `options[0]` as the gold while the file's "
                "`answer` differs in most items; the paper's hierarchical MCQ rows (shown under *Reported in the "
                "papers* on the leaderboard) were scored against that other gold and are not comparable with "
                "Tanaw's cell, which uses `answer`.")
