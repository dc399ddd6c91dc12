"""A page's token check (services.gate.check) with the client's key from the request, shown as plain text.

A token typed into a text box is read again on every rerun of the page; the browser session remembers the last
refusal for each action (by the token's hash), so a rerun neither counts a wrong token twice nor writes a second
audit row. A token that was accepted is looked up again on every rerun, so a revoked uploader token stops working
at once.
"""
from __future__ import annotations

import streamlit as st

from services import gate
from store.access import Grant, token_hash


def client() -> str:
    """The caller's key for the rate limit: X-Forwarded-For's first address, else this browser session."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    try:
        headers = st.context.headers  # names compared case-insensitively (gate.client_key)
    except Exception:  # no request headers (tests, bare mode)
        headers = {}
    return gate.client_key(headers, ctx.session_id if ctx else "unknown")


def checked(action: str, token: str | None, con=None, *, remember: bool = True) -> Grant | None:
    """The grant for `token`, or None with the refusal shown (st.error); nothing is shown for an empty token.
    `remember`: reuse this browser session's refusal of the same token (text boxes are read on every rerun); a
    lock-out is looked at again once it has passed."""
    key, digest = f"_gate_{action}", token_hash(token or "")
    seen = st.session_state.get(key) if remember else None
    if seen and seen[0] == digest and seen[1].grant is None and not (seen[1].locked and
                                                                      gate.LIMITER.wait(client()) <= 0):
        verdict = seen[1]  # a refusal shown again, not counted again; a grant is looked up again (revocation)
    else:
        verdict = gate.check(action, token, client(), con=con)
        if remember:
            st.session_state[key] = (digest, verdict)
    if verdict.message:
        st.error(verdict.message, icon=":material/lock:")
    return verdict.grant
