"""Compare: the same item across 2-4 systems (model × prompt language), with prompts, raw outputs and scores."""
from __future__ import annotations

import json

import streamlit as st

from pages._cached import q, q_many
from pages._chat_compare import show as show_conversations
from pages._entry import ensure_app
from services.board_view import compare_cell, compare_default
from pages._filters import board_leaders, model_filters, models_query
from pages._ui import answer_text, empty_state, frame, mark, md_code, md_escape, table, word_diff
from services.compare import instruction_outcomes, run_card_diff, run_cards
from store.queries.compare import LABELS, SLICES

ensure_app()

SLICE_NAMES = {"all": "all items", "a_right_b_wrong": "A right, B wrong", "a_wrong_b_right": "A wrong, B right",
               "all_wrong": "all wrong", "any_wrong": "any wrong", "unparseable": "unparseable output",
               "prompt_disagree": "EN and native prompt disagree"}

# The pairs table shows two decimals (the sentence above it rounds to one).
PAIR_COLUMNS = {"n": st.column_config.NumberColumn("n", format="%d", help="items both systems answered"),
                "diff": st.column_config.NumberColumn("A − B", format="%+.2f", help="points, 0-100 scale"),
                "ci_low": st.column_config.NumberColumn("95% CI low", format="%+.2f"),
                "ci_high": st.column_config.NumberColumn("95% CI high", format="%+.2f"),
                "p_value": st.column_config.NumberColumn("p", format="%.4f")}

st.title("Compare generations")
st.caption("Pick a task and language, then 2-4 systems (a model with the English or native prompt). Each item shows "
           "the prompt as sent, the reference, each raw output, the extracted answer and its score. An item is "
           "right for a system when every answer (option orders, runs) scored 1.")

# queries that need only what is chosen so far go together (`q_many`: at the same time)
models, cells = q_many(models_query(model_filters()), ("compare_cells", {}))
allowed = set(models["model_id"])
if not q("chat_cells").empty and st.radio("Compare", ("Scored items", "Conversations"), horizontal=True,
                                           key="view", bind="query-params") == "Conversations":
    show_conversations(allowed)
    st.stop()
if cells.empty or not allowed:
    empty_state("Nothing to compare yet.", "Ingest results for at least one model (and clear the model filters).")
    st.stop()

# opens on a cell where the board's two leaders both have results, the two of them side by side
leaders, lead_prompt = board_leaders()
scored = q("cell_models")
opening = compare_cell(scored[scored["models"].map(lambda ms: bool(set(ms) & allowed))], leaders)
tasks = sorted(cells["task"].unique())
c1, c2, c3 = st.columns([2, 1, 1])
task = c1.selectbox("Task", tasks, key="task", bind="query-params",
                    index=tasks.index(opening[0]) if opening and opening[0] in tasks else 0)
langs = sorted(cells.loc[cells["task"] == task, "lang"])
lang = c2.selectbox("Language", langs, key="lang", bind="query-params",
                    index=langs.index(opening[1]) if opening and (task, opening[1]) == opening else 0)
metrics, systems_df = q_many(("compare_metrics", {"task": task, "lang": lang}),
                             ("compare_systems", {"task": task, "lang": lang}))
if metrics.empty:
    empty_state(f"{md_escape(task)} ({md_escape(lang)}) has no per-item scores.",
                "Open-ended tasks are compared on the Cultural page.")
    st.stop()
metric = c3.selectbox("Metric", metrics["metric"].tolist(), key="metric", bind="query-params",
                      help="Headline metric first; right/wrong needs a 0/1 metric.")

options = [s for s, m in zip(systems_df["system"], systems_df["model_id"]) if m in allowed]
opening_systems = compare_default(systems_df[systems_df["model_id"].isin(allowed)], leaders, lead_prompt or "en")
systems = st.multiselect("Systems (model|prompt language), in order A, B, C, D", options, default=opening_systems,
                         key="sys", bind="query-params", max_selections=len(LABELS))
if not systems:
    empty_state("No system selected.", "Choose two to four systems above.")
    st.stop()
chosen = tuple(systems)

c4, c5 = st.columns([1, 2])
slice_ = c4.selectbox("Show items", SLICES, key="slice", bind="query-params",
                      help="; ".join(f"{k}: {v}" for k, v in SLICE_NAMES.items()))
search = c5.text_input("Search inputs and outputs", key="q", bind="query-params")
search = search.strip()
cell = {"task": task, "lang": lang, "systems": chosen}
wanted = {"compare_items": {**cell, "metric": metric, "prompts": slice_ == "prompt_disagree"}, "compare_runs": cell}
if len(chosen) >= 2:
    wanted["compare_pair_tests"] = {**cell, "metric": metric}
if search:
    wanted["compare_search"] = {**cell, "search": search}
got = dict(zip(wanted, q_many(*wanted.items())))
answered, runs, tests = got["compare_items"], got["compare_runs"], got.get("compare_pair_tests")
matched = tuple(got["compare_search"]["item_id"]) if search else ()
sliced = q("compare_slice", items=answered, slice=slice_, search=search or None, matched=matched)
st.markdown(f"**{len(sliced)} items** ({md_escape(SLICE_NAMES[slice_])}) · " + " · ".join(
    f"{label} = {md_escape(s)}" for label, s in zip(LABELS, chosen)))
table(sliced, f"compare_{task}_{lang}_{slice_}", height=240)
if tests is not None:
    ab = tests[tests["pair"] == "A vs B"]
    if ab.empty or not ab.iloc[0]["n"]:
        st.caption("No paired test for A and B: they share no scored item on this cell.")
    else:
        t = ab.iloc[0].to_dict()
        p_text = "p < 0.001" if t["p_value"] < 0.001 else f"p = {t['p_value']:.3f}"
        counts = (f"; only A right on {t['a_only']}, only B right on {t['b_only']}"
                  if t["method"] == "mcnemar-exact" else "")
        st.markdown(f"**Paired test, A vs B on all {t['n']} items of the cell both answered** "
                    f"({md_escape(t['method'])}): A − B = "
                    f"{t['diff']:+.1f} points (95% CI {t['ci_low']:+.1f} to {t['ci_high']:+.1f}), {p_text}{counts}.")
    st.caption("Computed once when the results were stored, on every item of this task and language both systems "
               "answered: the item filter and the search only narrow the table above. A test on items picked by "
               "their outcome (\"A right, B wrong\") or by a search would measure the picking, not the systems.")
    if len(chosen) > 2 and not tests.empty:
        table(tests.drop(columns=["a_only", "b_only"]), f"paired_tests_{task}_{lang}", columns=PAIR_COLUMNS)

diff = run_card_diff(task, lang, chosen, runs)
with st.expander(f"Run cards: {len(diff)} settings differ" if len(chosen) > 1 else "Run card", expanded=len(diff) > 0):
    if len(chosen) > 1:
        st.caption("Harness, source, file, date and generation settings (prompt template hash where stored) of "
                   "each system's run on this cell; only the settings that differ are listed.")
        if diff.empty:
            st.caption("The selected systems' run cards are identical.")
        else:
            table(diff, f"run_card_diff_{task}_{lang}")
    cards = run_cards(task, lang, chosen, runs)
    for system, card in cards.items():
        st.markdown(f"**{md_escape(system)}**: " + " · ".join(f"{md_escape(k)} {md_code(v)}" for k, v in card.items()))

if sliced.empty:
    empty_state("No item matches.", "Widen the item filter or clear the search.")
    st.stop()

failing = q("compare_slice_ids", items=answered, slice="any_wrong", search=search or None, matched=matched)
ids = sliced["item_id"].tolist()


def _next_failing() -> None:
    current = st.session_state.get("item")
    later = [i for i in failing if current is None or i > current]
    if later or failing:
        st.session_state["item"] = (later or failing)[0]


c6, c7 = st.columns([3, 1])
item_id = c6.selectbox("Item", ids, key="item", bind="query-params")
c7.button("Next failing item", on_click=_next_failing, disabled=not failing, icon=":material/skip_next:")

item, outputs = q_many(("compare_item", {"task": task, "lang": lang, "item_id": item_id}),
                       ("compare_outputs", {**cell, "item_id": item_id, "metric": metric, "runs": runs}))
if item.empty:
    st.stop()
meta = item.iloc[0]
with st.container(border=True):
    st.markdown(f"**Item {md_code(item_id)}** · gold: {md_code(json.loads(meta.gold) if meta.gold else '')}"
                + (f" · flags: {md_escape(meta.warnings)}" if meta.warnings else ""))
    st.code(json.dumps(json.loads(meta.inputs), ensure_ascii=False, indent=1), language=None, wrap_lines=True)

first_output: dict[str, str] = {}
cols = st.columns(len(chosen))
for col, label, system in zip(cols, LABELS, chosen):
    rows = outputs[outputs["label"] == label]
    with col:
        st.markdown(f"**{label} · {md_escape(system)}**")
        if rows.empty:
            st.caption("No answer to this item.")
        for r in rows.itertuples():
            st.markdown(f"order {md_escape(r.ord)} · run {r.run_no} · {mark(r.right)} · score "
                        f"{'–' if r.score != r.score else f'{r.score:.2f}'} · answer: {answer_text(r.answer)}")
            with st.expander("Prompt as sent"):
                st.code(r.prompt if isinstance(r.prompt, str) else "(not recorded)", language=None, wrap_lines=True)
            st.code(r.output if isinstance(r.output, str) else "(no text output: scored by option log-probability)",
                    language=None, wrap_lines=True)
            followed = instruction_outcomes(r.extras)
            if followed is not None:
                st.caption("Instructions (failed first); a response in another language follows none.")
                frame(followed, hide_index=True)
            if isinstance(r.output, str):
                first_output.setdefault(label, r.output)

if {"A", "B"} <= set(first_output):
    st.markdown("**Word-level difference, A vs B** (first answer of each; red only in A, green only in B)")
    da, db = word_diff(first_output["A"], first_output["B"], lang)
    st.markdown(f"A: {da or '(empty)'}")
    st.markdown(f"B: {db or '(empty)'}")
