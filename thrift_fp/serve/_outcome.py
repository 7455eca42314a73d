"""A tool's answer (text within the budget, plus structured content), and the lifecycle's
error values as tool errors."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from typing import Final

from returns.result import Failure

from thrift_fp._errors import ThriftFpError
from thrift_fp._shown import shown_text
from thrift_fp._value import value
from thrift_fp.render import SAFETY_DIRECTIVE
from thrift_fp.retrieval import Aborted, BudgetExhausted, DuplicateQuery, ExecutionFailed, InvalidQuery, RetrievalError
from thrift_fp.serve._errors import (
    Cancelled,
    InvalidToolArgument,
    QuotaExhausted,
    RepeatedCall,
    ServeError,
    SourceFailed,
)
from thrift_fp.serve._ledger import SessionLedger
from thrift_fp._scrub import scrubbed
from thrift_fp.serve._operator_log import log_failure
from thrift_fp.tokens._count import count_tokens

_log: Final = logging.getLogger("thrift_fp.serve")
# A budget no answer reaches (what a note that did not fit needs is measured under it).
_UNBOUNDED: Final = 10**9


@value
class ToolAnswer:
    """What a tool sends back: ``text`` (its exact ``tokens``, within the call's budget) and
    ``structured`` content (JSON-serialisable)."""

    text: str
    tokens: int
    structured: Mapping[str, object]


def tool_error(
    tool: str, query: str, error: RetrievalError, ledger: SessionLedger, max_calls: int, secrets: tuple[str, ...] = ()
) -> ServeError:
    """The tool error for a lifecycle refusal: the quota, a repeat (naming what it sent), a
    cancellation, a question with nothing to search, or the source's own failure (whose detail
    goes to the operator's log, ``secrets`` hidden).

    >>> from thrift_fp.retrieval import DuplicateQuery
    >>> print(tool_error("search", "q", DuplicateQuery("fts5-search", '"q"'), SessionLedger(), 4).message)
    search: "q" was already answered in this session; ask something else, or read a passage
    """
    if isinstance(error, BudgetExhausted):
        return QuotaExhausted("calls", error.query_count, max_calls)
    if isinstance(error, DuplicateQuery):
        earlier = next((call for call in ledger.calls if call.key == error.key and call.tool == tool), None)
        if earlier is None:
            return RepeatedCall(tool, query, None, ())
        return RepeatedCall(tool, query, earlier.number, earlier.sent + earlier.repeated, earlier.outcome)
    if isinstance(error, Aborted):
        return Cancelled(tool, error.reason or "no reason given")
    if isinstance(error, InvalidQuery):
        return InvalidToolArgument(tool, "question" if tool == "search" else "id", query, _without_type(error))
    if isinstance(error, ExecutionFailed):
        # The source raised its own error value inside execute (SearchFailed and its namesakes).
        own = getattr(error.cause, "error", None)
        if isinstance(own, ThriftFpError):
            return SourceFailed(tool, own.message)
        # A raised exception: its type, text and traceback are for the operator's log (scrubbed
        # of credentials), not the agent.
        if isinstance(error.cause, BaseException):
            log_failure(_log, f"tool {tool}'s source", error.cause, secrets)
        else:
            _log.warning("%s failed: %s", tool, scrubbed(error.reason, secrets))
        return SourceFailed(tool, "the source failed on this call; the server's log has the details")
    return SourceFailed(tool, error.message)


def _without_type(error: InvalidQuery) -> str:
    # The check raised: its text is the reason; its exception's type is no business of the agent's.
    cause = error.cause
    if not isinstance(cause, BaseException):
        return error.reason
    try:
        text = str(cause)
    except Exception:  # noqa: BLE001 - an exception's __str__ is user code
        text = ""
    return shown_text(" ".join(text.split()), 200) or "refused by the source"


def within_budget(body: str, notes: Sequence[str], budget: int, encoding: str) -> tuple[str, int]:
    """``body`` (the rendered passages, already within ``budget``: empty, or the safety directive
    and its blocks) followed by as many of ``notes`` as still fit, in order, one a line, and the
    exact token count of the result (the whole text counted afresh).

    Notes name passages, and documents chose those names: they come after the safety directive
    (which leads the text even when no passage is in it), each name quoted by `quote_untrusted`,
    so no name can read as a line of instructions.

    >>> text, tokens = within_budget("", ['Already sent: "a#1".'], 100, "cl100k_base")
    >>> text.startswith(SAFETY_DIRECTIVE), text.endswith('\\n\\nAlready sent: "a#1".'), tokens
    (True, True, 65)
    >>> within_budget("", ['Already sent: "a#1".'], 40, "cl100k_base")
    ('', 0)
    """
    kept: list[str] = []
    for note in notes:
        counted = count_tokens(_with_notes(body, [*kept, note]), encoding)
        if isinstance(counted, Failure) or counted.unwrap().tokens > budget:
            break
        kept.append(note)
    text = _with_notes(body, kept)
    counted = count_tokens(text, encoding)
    return text, (0 if isinstance(counted, Failure) else counted.unwrap().tokens)


def _with_notes(body: str, notes: Sequence[str]) -> str:
    if not notes:
        return body
    # A rendered body ends its last block with a blank line; without one, the directive leads.
    return (body or f"{SAFETY_DIRECTIVE}\n\n") + "\n".join(notes)


def plain_note(note: str, budget: int, encoding: str) -> tuple[str, int]:
    """A note of the server's own words only (no name from a document), alone, when it fits.

    >>> plain_note("No passage matched the question.", 100, "cl100k_base")
    ('No passage matched the question.', 6)
    >>> plain_note("No passage matched the question.", 3, "cl100k_base")
    ('', 0)
    """
    counted = count_tokens(note, encoding)
    if isinstance(counted, Failure) or counted.unwrap().tokens > budget:
        return "", 0
    return note, counted.unwrap().tokens


def session_summary(ledger: SessionLedger, max_calls: int, max_tokens: int) -> dict[str, int]:
    """The session's quota figures, as every answer reports them.

    >>> session_summary(SessionLedger(), 64, 65536)
    {'calls_used': 0, 'max_calls': 64, 'tokens_used': 0, 'max_session_tokens': 65536}
    """
    return {
        "calls_used": ledger.retrieval.query_count,
        "max_calls": max_calls,
        "tokens_used": ledger.tokens_used,
        "max_session_tokens": max_tokens,
    }


def smallest_text(text: str, encoding: str) -> int:
    """The tokens of ``text`` (a note that did not fit): the smallest budget that carries it.

    >>> smallest_text("No passage matched the question.", "cl100k_base")
    6
    """
    counted = count_tokens(text, encoding)
    return _UNBOUNDED if isinstance(counted, Failure) else counted.unwrap().tokens
