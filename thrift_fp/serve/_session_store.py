"""Where sessions' ledgers live, behind one small interface: in the server's memory
(`thrift_fp.serve._sessions`), or in a PostgreSQL database that several servers share
(`thrift_fp.serve._ledger_postgres`).

A call is a pure step from the session's ledger to the next one and its answer; the store runs
it and keeps the next ledger, as one atomic change: either all of it (its record, charge,
deliveries, reserved key, hits) or none of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

from thrift_fp.serve._ledger import SessionLedger

_Answer = TypeVar("_Answer")


@dataclass(frozen=True, slots=True)
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


@runtime_checkable
class SessionHandle(Protocol):
    """One session: its ``ledger`` now, and ``step`` to run a call on it."""

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
