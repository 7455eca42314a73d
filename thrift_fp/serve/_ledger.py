"""One MCP session's bookkeeping, as a value: its retrieval state, what it was sent, what it used.

Pure: each function takes a ledger and hands the next one back. The server keeps one ledger per
session and swaps it under the session's lock (`thrift_fp.serve._sessions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field, replace
from types import MappingProxyType
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.retrieval import Receipt, RetrievalState
from thrift_fp.serve._errors import QuotaExhausted
from thrift_fp.serve._settings import ServeSettings
from thrift_fp.sources import Hit

# Fewer tokens than this cannot carry the directive and one passage: not worth a call.
MIN_USEFUL_TOKENS: Final = 128


@value
class Delivery:
    """Where a passage's content was sent: the passage id it was sent as, in which answer."""

    passage_id: str
    answer: int


@value
class CallRecord:
    """One tool call of the session, answered or not: what it asked, what it sent, what it cost.

    ``outcome`` is ``"answered"`` or the tool error's message; ``sent`` the passage ids whose
    text the answer carried; ``repeated`` those it named as already sent instead; ``key`` the
    question's key the lifecycle reserved (empty when the call never reached it) and ``receipt``
    its receipt (``None`` unless the call was answered).
    """

    number: int
    tool: str
    query: str
    outcome: str
    sent: tuple[str, ...] = ()
    repeated: tuple[str, ...] = ()
    tokens: int = 0
    key: str = ""
    receipt: Receipt[str, Hit, tuple[Hit, ...]] | None = None


def _no_deliveries() -> MappingProxyType[str, Delivery]:
    return MappingProxyType({})


@value
class SessionLedger:
    """A session so far: the lifecycle's ``retrieval`` state (quota of calls, seen keys, every
    hit retrieved), ``delivered`` (content hash → where it was sent), ``tokens_used`` (the
    answers' tokens) and every call in order.

    >>> ledger = SessionLedger()
    >>> ledger.tokens_used, ledger.retrieval.query_count, dict(ledger.delivered), ledger.calls
    (0, 0, {}, ())
    """

    retrieval: RetrievalState[Hit] = RetrievalState()
    delivered: MappingProxyType[str, Delivery] = field(default_factory=_no_deliveries)
    tokens_used: int = 0
    calls: tuple[CallRecord, ...] = ()

    @property
    def next_call(self) -> int:
        """The number the next call gets (1-based).

        >>> SessionLedger().next_call
        1
        """
        return len(self.calls) + 1


def grant_budget(ledger: SessionLedger, requested: int, settings: ServeSettings) -> Result[int, QuotaExhausted]:
    """The budget a call may spend: ``requested``, cut to what the session's token quota has
    left. A session with no call left is refused, and so is one with fewer tokens left than a
    useful answer needs (`MIN_USEFUL_TOKENS`, or the call's own budget when that is smaller):
    the safety directive alone costs about 60 tokens.

    >>> from thrift_fp.serve import serve_settings
    >>> settings = serve_settings(max_calls=2, max_session_tokens=1500).unwrap()
    >>> grant_budget(SessionLedger(tokens_used=1000), 800, settings)
    <Success: 500>
    >>> grant_budget(SessionLedger(tokens_used=1400), 800, settings).failure().message
    'quota exhausted: this session has used 1400 of its 1500 tokens; start a new session to go on'
    >>> grant_budget(SessionLedger(tokens_used=1400), 50, settings)
    <Success: 50>
    >>> grant_budget(SessionLedger(RetrievalState(query_count=2)), 800, settings).failure().what
    'calls'
    """
    if ledger.retrieval.query_count >= settings.max_calls:
        return Failure(QuotaExhausted("calls", ledger.retrieval.query_count, settings.max_calls))
    left = settings.max_session_tokens - ledger.tokens_used
    if left < min(requested, MIN_USEFUL_TOKENS):
        return Failure(QuotaExhausted("tokens", ledger.tokens_used, settings.max_session_tokens))
    return Success(min(requested, left))


def split_delivered(
    ledger: SessionLedger, hits: Sequence[Hit]
) -> tuple[tuple[Hit, ...], tuple[tuple[Hit, Delivery], ...]]:
    """The hits whose content this session was not sent yet, and the others with where they went
    (matched by content, so the same text under another passage id counts as sent).

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths, search_index
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> _ = index_paths(root / "i.db", [root / "a.md"]).unwrap()
    >>> [hit] = search_index(root / "i.db", "shedding").unwrap()
    >>> split_delivered(SessionLedger(), [hit])[0] == (hit,)
    True
    >>> sent = SessionLedger(delivered=MappingProxyType({hit.content_hash: Delivery("b.md#4", 2)}))
    >>> split_delivered(sent, [hit])[1][0][1]
    Delivery(passage_id='b.md#4', answer=2)
    """
    fresh: list[Hit] = []
    repeated: list[tuple[Hit, Delivery]] = []
    for hit in hits:
        delivery = ledger.delivered.get(hit.content_hash)
        if delivery is None:
            fresh.append(hit)
        else:
            repeated.append((hit, delivery))
    return tuple(fresh), tuple(repeated)


def record_call(
    ledger: SessionLedger,
    call: CallRecord,
    sent: Sequence[tuple[str, str]] = (),
    retrieval: RetrievalState[Hit] | None = None,
) -> SessionLedger:
    """The ledger after ``call``: its ``sent`` (content hash, passage id) pairs delivered (a
    content sent before keeps its first delivery), its tokens charged, ``retrieval`` the
    lifecycle's next state (unchanged when ``None``); a call with no ``key`` gets the one key that
    state newly reserved.

    >>> ledger = record_call(SessionLedger(), CallRecord(1, "search", "q", "answered", ("a#1",), (), 120),
    ...                      [("h1", "a#1")])
    >>> ledger.tokens_used, dict(ledger.delivered), ledger.next_call
    (120, {'h1': Delivery(passage_id='a#1', answer=1)}, 2)
    """
    delivered = dict(ledger.delivered)
    for content_hash, passage_id in sent:
        delivered.setdefault(content_hash, Delivery(passage_id, call.number))
    reserved = () if retrieval is None else tuple(retrieval.seen - ledger.retrieval.seen)
    if not call.key and len(reserved) == 1:
        # A call that failed after the lifecycle reserved its question's key: asking it again
        # names this call and how it ended, not an answer it never gave.
        call = replace(call, key=reserved[0])
    return replace(
        ledger,
        retrieval=ledger.retrieval if retrieval is None else retrieval,
        delivered=MappingProxyType(delivered),
        tokens_used=ledger.tokens_used + call.tokens,
        calls=(*ledger.calls, call),
    )
