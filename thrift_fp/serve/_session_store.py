"""Where sessions' ledgers live, behind one small interface: in the server's memory
(`thrift_fp.serve._sessions`), or in a PostgreSQL database that several servers share
(`thrift_fp.serve._ledger_postgres`).

A call is a pure step from the session's ledger to the next one and its answer; the store runs
it (``prepare``) and, when the server says so, keeps the next ledger (``commit``) as one atomic
change: either all of it (its record, charge, deliveries, reserved key, hits) or none of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

from thrift_fp.serve._commit import Committing, Replay
from thrift_fp.serve._ledger import SessionLedger

__all__ = ["Replay", "SessionHandle", "SessionStore"]

_Answer = TypeVar("_Answer")


@runtime_checkable
class SessionHandle(Committing, Protocol):
    """One session: its ``ledger`` now; ``prepare`` a call on it and ``commit`` the result
    (`thrift_fp.serve._commit`), or ``step``, which does both until the call is kept."""

    @property
    def ledger(self) -> SessionLedger:
        """The session's ledger as of now."""
        ...

    def step(
        self, call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]], replay: Replay[_Answer] | None = None
    ) -> _Answer:
        """Run ``call`` on the ledger and keep the ledger it hands back, atomically; a store that
        keeps answers hands back the answer it kept for ``replay.request`` instead of running again."""
        ...


@runtime_checkable
class SessionStore(Protocol):
    """Sessions by key (``"stdio"``, or ``"http:"`` and the transport's session id)."""

    def session(self, key: str) -> SessionHandle:
        """The session for ``key``."""
        ...
