"""Model filters shared by every page (size, type, open/closed, SEA-tuned, search), kept in the URL.

    filters = model_filters()                         # sidebar widgets bound to ?size=&type=&weights=&sea=&search=
    models = filtered_models(filters, "lindsea-")     # model ids passing them (the store does the filtering)
"""
from __future__ import annotations

import streamlit as st

from services.board_view import board_rows, leader_order, preselect
from evaluator.registry import BOARDS, PROMPT_LANGS
from pages._cached import q
from pages._ui import md_escape
from store.queries.explore import SIZE_BUCKETS

ANY = "any"
KEYS = ("size", "type", "weights", "sea", "search")
"""Query-parameter names of the shared filters."""


def model_filters(container=None) -> dict:
    """Render the filters (in the sidebar by default) and return them as store query parameters."""
    box = container if container is not None else st.sidebar
    with box:
        st.markdown("**Model filters**")
        size = st.selectbox("Size", (ANY, *SIZE_BUCKETS, "unknown"), key="size", bind="query-params")
        model_type = st.selectbox("Type", (ANY, "base", "instruct", "reasoning"), key="type", bind="query-params")
        weights = st.selectbox("Weights", (ANY, "open", "closed"), key="weights", bind="query-params")
        sea = st.selectbox("SEA-tuned", (ANY, "yes", "no"), key="sea", bind="query-params")
        search = st.text_input("Search models", key="search", bind="query-params",
                               placeholder="name, family or organisation")
    return {"size": None if size == ANY else size, "model_type": None if model_type == ANY else model_type,
            "weights": None if weights == ANY else weights, "sea_tuned": None if sea == ANY else sea == "yes",
            "search": search.strip() or None}


def filtered_models(filters: dict, task_prefix: str | None = None) -> list[str]:
    """Model ids passing `filters` (and with runs of tasks starting with `task_prefix`)."""
    name, params = models_query(filters, task_prefix)
    return q(name, **params)["model_id"].tolist()


def models_query(filters: dict, task_prefix: str | None = None) -> tuple[str, dict]:
    """`filtered_models`' query as a `pages._cached.q_many` call, for a page that reads it together with its first
    query of its own (the frame's model_id column is the list)."""
    return "explore_models", {**filters, "task_prefix": task_prefix}


def first_available(order: list[str], available: set[str] | list[str]) -> str:
    """The first of `order` that is in `available` (the page's default choice), else the first of `order`."""
    return next((o for o in order if o in set(available)), order[0])


def also_available(label: str, shown: str, available: list[str]) -> str:
    """A caption naming the other choices that have results ("" when there are none), escaped: the choices may be
    values from the store."""
    others = [md_escape(a) for a in available if a != shown]
    return f"Also with results: {label} {', '.join(others)}." if others else ""


def board_leaders(family: str | None = None) -> tuple[list[str], str | None]:
    """Model ids of a board, leaders first (`services.board_view.leader_order`), and its prompt language: `family`
    on the prompt it opens on, or the board the leaderboard opens on when None."""
    rows = board_rows(q("board_models"), list(BOARDS.values()), PROMPT_LANGS, family)
    return leader_order(rows), (rows["prompt_lang"].iloc[0] if len(rows) else None)


def leaders_first(available: list[str], k: int, family: str | None = None) -> list[str]:
    """Up to `k` of `available` for a picker's default: the board's leaders first, demo baselines last."""
    models = q("board_models")
    rows = board_rows(models, list(BOARDS.values()), PROMPT_LANGS, family)
    return preselect(rows, available, k, models.loc[models["baseline"], "model"])
