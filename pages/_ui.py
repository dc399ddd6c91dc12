"""Small layout helpers shared by the explorer pages: downloadable tables, score columns, safe text diffs, and the
one place untrusted text (model names, task ids, outputs, rater names, Hub messages) is made safe for each place it
is shown: everything Streamlit reads as Markdown (`md_escape`, `md_code`: st.markdown, captions, alerts, toasts,
and the labels of buttons, download buttons, widgets, metrics, expanders and tabs, radio and segmented-control
options through `format_func`), Plotly labels and hover text (`plot_text`, `plot_frame`) and spreadsheet cells
(`store.sheets.sheet_safe`, used by `table` and `frame`). Selectbox and multiselect options, `st.text`, `st.code`
and dataframe cells are shown as plain text by Streamlit and take the raw value. See docs/security.md, "Uploads and
rendering"."""
from __future__ import annotations

import difflib
import functools
import math
import re
from typing import Callable

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from evaluator.registry import LANG_NAMES, LANGUAGES, TASKS
from pages._cached import section
from store.sheets import csv_bytes, sheet_safe  # the one neutraliser, shared with the CLI's CSV exports


def lang_label(code: str) -> str:
    """"id · Indonesian" for a language choice."""
    return f"{code} · {LANG_NAMES[code]}" if code in LANG_NAMES else code


VIEW_LANGS = {LANG_NAMES[c]: c for c in LANG_NAMES if any(c in t.langs and t.metrics for t in TASKS.values())}
"""The languages of the "By language" page: every language the registry has scored tasks in, name -> code (the
page's URL carries the name, ?lang=Thai)."""
LANGUAGE_PAGE = "pages/language.py"


def language_links() -> None:
    """One link per language to its "By language" view, in a row (the funder's question in one click)."""
    from streamlit.errors import StreamlitAPIException

    with st.container(horizontal=True, gap="small"):
        st.markdown("**Best model in**")
        for name in VIEW_LANGS:  # registry names, not data
            try:
                st.page_link(LANGUAGE_PAGE, label=name, query_params={"lang": name}, icon=":material/translate:")
            except StreamlitAPIException:  # the page run on its own (tests): not in a navigation
                st.markdown(f"[{name}](/language?lang={name})")


PROMPT_NAMES = {"en": "English prompt", "native": "Native prompt"}
"""Display names of prompt languages."""

SCORE_COLUMNS = {
    "value": st.column_config.NumberColumn("score", format="%.1f", help="0-100"),
    "ci_low": st.column_config.NumberColumn("95% CI low", format="%.1f"),
    "ci_high": st.column_config.NumberColumn("95% CI high", format="%.1f"),
    "chance": st.column_config.NumberColumn("chance", format="%.0f"),
    "n": st.column_config.NumberColumn("n", format="%d", help="answers scored"),
    "parse_fail_pct": st.column_config.NumberColumn("unparsed %", format="%.1f"),
    "below_chance": st.column_config.CheckboxColumn("below chance"),
}
"""Column formats for score tables: every score is shown with its interval and n."""


def frame(df, **kwargs) -> None:
    """`st.dataframe` of untrusted rows: the grid's own CSV export gets neutralised cells too (a `dashed` Styler
    is already neutralised)."""
    st.dataframe(df if isinstance(df, Styler) else sheet_safe(pd.DataFrame(df)), **kwargs)


MISSING = "—"
"""What an empty cell shows (Streamlit's grid would draw a missing value as the word None)."""


def dashed(df: pd.DataFrame, decimals: dict[str, int]) -> Styler:
    """`df` for display with every missing value shown as "—": text columns filled, and the number columns in
    `decimals` (column -> decimals shown) formatted by the Styler with missing values as −inf underneath, so they
    still sort as numbers (missing last when descending). Give those columns no `format` in column_config (it
    would override the Styler's text)."""
    out = sheet_safe(df)
    for col in out.columns:
        if col in decimals:
            out[col] = pd.to_numeric(out[col], errors="coerce").astype(float).fillna(-math.inf)
        elif out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].astype(object).where(out[col].notna(), MISSING)

    def shown(digits: int):
        return lambda v: MISSING if v == -math.inf else f"{v:.{digits}f}"
    return out.style.format({c: shown(d) for c, d in decimals.items() if c in out.columns})


def table(df: pd.DataFrame, name: str, *, columns: dict | None = None, height: int | str = "auto",
          display: Styler | Callable[[], Styler] | None = None, shared: tuple | None = None) -> None:
    """A dataframe with a CSV download button under it (formula cells neutralised in both); `display` (from
    `dashed`, or a function making it) is what the grid shows instead of `df`, the download stays `df`. `shared`:
    a key (page, table, and every choice `df` depends on besides the store) under which the grid is drawn once per
    store version and replayed to every session (`pages._cached.section`)."""
    def grid() -> None:
        shown = display() if callable(display) else display
        frame(df if shown is None else shown, hide_index=True, column_config={**SCORE_COLUMNS, **(columns or {})},
              height=height)
    if shared is None:
        grid()
    else:
        section(shared, grid)
    download(f"Download {md_escape(name)} (CSV)", df, f"{name}.csv", f"dl_{name}")


def download(label: str, df: pd.DataFrame, file_name: str, key: str) -> None:
    """A CSV download button whose bytes (`csv_bytes`) are built when it is clicked, not on every view; the click
    does not rerun the page."""
    st.download_button(label, functools.partial(csv_bytes, df), file_name=file_name, mime="text/csv", key=key,
                       icon=":material/download:", on_click="ignore")


def plot_text(value: object) -> str:
    """Untrusted text for a Plotly label, legend, hover text or annotation: Plotly reads a subset of HTML there
    (`<a href>` makes a live link), so `&` and `<` become entities, which it shows literally."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    return str(value).replace("&", "&amp;").replace("<", "&lt;")


def plot_frame(df: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """A copy of `df` with `columns` passed through `plot_text` (for Plotly Express axes, colours and hovers)."""
    return df.assign(**{c: df[c].map(plot_text) for c in columns if c in df.columns})


def score_text(value: float | None, lo: float | None, hi: float | None, n: int | None,
               chance: float | None = None) -> str:
    """"72.5 (95% CI 61.3-80.8, n=80)", marked "below chance" when the whole interval is; "not scored" for missing
    values."""
    if value is None or pd.isna(value):
        return "not scored"
    ci = f"95% CI {lo:.1f}-{hi:.1f}, " if lo is not None and not pd.isna(lo) else ""
    below = " — below chance" if hi is not None and chance is not None and not pd.isna(chance) and hi < chance else ""
    return f"{value:.1f} ({ci}n={int(n)}){below}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$=&\"'])")
_BREAKS = re.compile(r"(?i)(?<=:)(?=\S)|(?<=www)(?=\.)|(?=@)")
WORD_JOINER = "\u2060"
"""Invisible; placed after every `:` that a non-space follows, inside `www.` and before `@`, where backslash escapes do not help: GitHub-
flavoured Markdown auto-links URLs and e-mail addresses, and Streamlit turns `:material/name:` into an icon,
`:streamlit:` into its logo (an image) and `:smile:` into an emoji in the text left after the escapes are read."""


def md_escape(text: object) -> str:
    """Untrusted text for anything Streamlit renders as Markdown (bodies and labels alike): every Markdown/HTML-
    significant character backslash-escaped (images, links, `**`, `:red[...]`, `$...$`, HTML) and auto-links and
    `:shortcodes:` broken (`WORD_JOINER`), so the text shows literally."""
    if text is None or (isinstance(text, float) and pd.isna(text)):
        return ""
    return _MD_SPECIAL.sub(r"\\\1", _BREAKS.sub(WORD_JOINER, str(text))).replace("\n", "  \n")


def _tokens(text: str, lang: str | None) -> list[str]:
    entry = LANGUAGES.get(lang) if lang else None
    if entry is not None and entry.tokenizer == "newmm":
        from pythainlp.tokenize import word_tokenize

        return word_tokenize(text, keep_whitespace=True)
    return re.findall(r"\S+|\s+", text)  # words with their punctuation; \w would split Tamil vowel signs


def _highlight(chunk: str, colour: str) -> str:
    """Escaped `chunk` with its non-blank middle on a coloured background (surrounding spaces kept plain)."""
    core = chunk.strip()
    if not core:
        return md_escape(chunk)
    lead, trail = chunk[:len(chunk) - len(chunk.lstrip())], chunk[len(chunk.rstrip()):]
    return f"{lead}:{colour}-background[{md_escape(core)}]{trail}"


def word_diff(a: str, b: str, lang: str | None = None) -> tuple[str, str]:
    """Markdown of `a` and of `b` with the words that differ highlighted (red in a, green in b), all escaped."""
    ta, tb = _tokens(a or "", lang), _tokens(b or "", lang)
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=ta, b=tb, autojunk=False).get_opcodes():
        sa, sb = "".join(ta[i1:i2]), "".join(tb[j1:j2])
        if op == "equal":
            left.append(md_escape(sa))
            right.append(md_escape(sb))
            continue
        left.append(_highlight(sa, "red"))
        right.append(_highlight(sb, "green"))
    return "".join(left), "".join(right)


def md_code(text: object) -> str:
    """Inline code span for untrusted text (code spans render nothing inside; the fence is longer than any run of
    backticks in the text, so it cannot be closed early)."""
    body = md_escape(text) if text is None or isinstance(text, float) else str(text).replace("\n", " ")
    if "`" not in body:
        return f"`{body}`"
    fence = "`" * (max(len(run) for run in re.findall(r"`+", body)) + 1)
    return f"{fence} {body} {fence}"


def answer_text(answer: object) -> str:
    """An extracted answer for display, escaped; "unparseable" when it could not be parsed."""
    return md_escape(answer) if isinstance(answer, str) else "unparseable"


def mark(right: bool | None) -> str:
    """✓ / ✗ / – for right, wrong, unknown."""
    if right is None or pd.isna(right):
        return "–"
    return "✓ right" if right else "✗ wrong"


def run_page(page) -> None:
    """Run a navigation page; an unexpected exception is logged with an id and the visitor sees only the id
    (Streamlit's st.stop / st.rerun pass through: they are BaseExceptions)."""
    from evaluator import incidents

    try:
        page.run()
    except Exception:
        error_id = incidents.record(f"page {getattr(page, 'title', '?')}")
        st.error(incidents.message(error_id, "This page hit an unexpected error"), icon=":material/error:")


def empty_state(what: str, how: str) -> None:
    """Explain an empty view: what is missing and how to get it."""
    st.info(f"{what} {how}", icon=":material/info:")
