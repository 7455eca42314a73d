"""A call's outcome before it is kept: the explicit commit a session applies, or drops.

A call runs on a snapshot of its session's ledger (the session's ``version`` then) and yields a
`CallCommit`: that ledger, the ledger after the call, and the call's answer. Nothing of it is kept
until the session's ``commit`` applies it, which the server does only after checking that the
client has not cancelled the call, with no await in between (`thrift_fp.serve._server`). A commit
that is dropped leaves no trace: nothing charged, nothing recorded as sent, no question's key
reserved. A commit made on a version the session has moved past is refused (another call of the
session committed first): the call runs again on the newer ledger, so two calls of one session
never spend its quota twice nor send one passage twice.
"""

from __future__ import annotations

from collections.abc import Callable

from typing import Final, Generic, Protocol, TypeVar, runtime_checkable

from thrift_fp._value import value
from thrift_fp.serve._ledger import SessionLedger
from thrift_fp.serve._ledger_change import LedgerChange, ledger_change

_Answer = TypeVar("_Answer")
# A refused commit needs another call of the session to have committed first, so each retry
# means the session made progress; the bound only stops a bug from looping forever.
MAX_ATTEMPTS: Final = 64


@value
class Replay(Generic[_Answer]):
    """How a store that keeps answers replays one: the client's ``request`` id (unique within its
    session, so a retried request is recognised) and the answer's text form both ways.

    >>> replay = Replay("7", str, int)
    >>> replay.decode(replay.encode(42))
    42
    """

    request: str
    encode: Callable[[_Answer], str]
    decode: Callable[[str], _Answer]


@value
class CallCommit(Generic[_Answer]):
    """A call run but not kept: the session ``version`` and ``before`` ledger it ran on, the
    ledger ``after`` it, its ``answer``; ``replay`` says how a store that keeps answers stores
    it; ``replayed`` when the store already kept this very request's answer (a retry: there is
    nothing to commit).

    >>> from thrift_fp.serve._ledger import CallRecord, record_call
    >>> after = record_call(SessionLedger(), CallRecord(1, "search", "q", "answered", ("a#1",), (), 90), [("h", "a#1")])
    >>> commit = CallCommit(0, SessionLedger(), after, "the answer")
    >>> commit.change.tokens, commit.change.delivered[0][1].passage_id
    (90, 'a#1')
    """

    version: int
    before: SessionLedger
    after: SessionLedger
    answer: _Answer
    replay: Replay[_Answer] | None = None
    replayed: bool = False

    @property
    def change(self) -> LedgerChange:
        """What the call adds to the ledger it ran on (`ledger_change`)."""
        return ledger_change(self.before, self.after)


@runtime_checkable
class Committing(Protocol):
    """A session that runs calls as commits: ``prepare`` one (no trace), ``commit`` it."""

    def prepare(
        self, call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]], replay: Replay[_Answer] | None = None
    ) -> CallCommit[_Answer]:
        """Run ``call`` on the session's newest ledger; keep nothing."""
        ...

    def commit(self, prepared: CallCommit[_Answer]) -> bool:
        """Keep ``prepared`` unless the session moved past its version; whether it was kept."""
        ...


class CommitContention(RuntimeError):
    """A call's commit was refused `MAX_ATTEMPTS` times in a row (other calls kept committing)."""


def run_committed(
    session: Committing,
    call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]],
    replay: Replay[_Answer] | None = None,
) -> _Answer:
    """Prepare and commit ``call`` until it is kept, for a call no client can cancel (a refused
    argument's record, a test); the server's tool calls check for a cancel before committing.

    >>> from thrift_fp.serve._sessions import Session
    >>> session = Session()
    >>> run_committed(session, lambda ledger: (ledger, ledger.tokens_used))
    0
    """
    for _ in range(MAX_ATTEMPTS):
        prepared = session.prepare(call, replay)
        if prepared.replayed or session.commit(prepared):
            return prepared.answer
    raise CommitContention(f"a call's commit was refused {MAX_ATTEMPTS} times in a row")
