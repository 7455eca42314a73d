"""The server's sessions: one ledger per MCP session, each swapped under its own lock.

A session's calls each run on the ledger the previous commit left (its quota and
de-duplication need that); two calls of one session prepared on the same version cannot both be
kept: the second is refused and runs again (`thrift_fp.serve._commit`). Different sessions run
in parallel. Over HTTP the registry forgets a session as soon as its client closes it
(``DELETE``) and once it has been idle for the operator's ``session_idle_timeout``
(`thrift_fp.serve._lifetimes`), and always the least recently used one beyond ``capacity``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, TypeVar

from thrift_fp.serve._ledger import SessionLedger
from thrift_fp.serve._commit import CallCommit, Replay, run_committed

DEFAULT_CAPACITY: Final = 10_000
_Answer = TypeVar("_Answer")


class Session:
    """One session's ledger, its ``version`` (how many commits it has kept), and the lock a
    commit takes to swap them."""

    __slots__ = ("ledger", "lock", "version")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ledger = SessionLedger()
        self.version = 0

    def prepare(
        self, call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]], replay: Replay[_Answer] | None = None
    ) -> CallCommit[_Answer]:
        """Run ``call`` on the current ledger; keep nothing (`commit` keeps it). ``replay`` is for
        stores shared by several servers: one server's own session never sees a request again
        after the process that answered it is gone.

        >>> session = Session()
        >>> prepared = session.prepare(lambda ledger: (ledger, "answer"))
        >>> prepared.version, prepared.answer, session.version
        (0, 'answer', 0)
        """
        with self.lock:
            version, before = self.version, self.ledger
        after, answer = call(before)
        return CallCommit(version, before, after, answer, replay)

    def commit(self, prepared: CallCommit[_Answer]) -> bool:
        """Keep ``prepared`` when no other call was kept since it was prepared (else ``False``:
        prepare it again on the newer ledger). Fast and never blocking on I/O, so the server can
        run it right after its cancel check, with nothing in between.

        >>> from thrift_fp.serve._ledger import CallRecord, record_call
        >>> session = Session()
        >>> call = lambda ledger: (record_call(ledger, CallRecord(ledger.next_call, "read", "a#1", "answered")), None)
        >>> first, second = session.prepare(call), session.prepare(call)
        >>> session.commit(first), session.commit(second), session.version, len(session.ledger.calls)
        (True, False, 1, 1)
        """
        if prepared.after is prepared.before:
            return True
        with self.lock:
            if self.version != prepared.version:
                return False
            self.ledger, self.version = prepared.after, self.version + 1
            return True

    def step(
        self, call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]], replay: Replay[_Answer] | None = None
    ) -> _Answer:
        """Prepare and commit ``call`` until it is kept (`run_committed`; thread-safe).

        >>> session = Session()
        >>> session.step(lambda ledger: (ledger, ledger.tokens_used))
        0
        """
        return run_committed(self, call, replay)


class Sessions:
    """Sessions by key (``"stdio"``, or ``"http:"`` and the transport's session id).

    >>> sessions = Sessions(capacity=2)
    >>> first = sessions.session("a")
    >>> sessions.session("a") is first, sessions.session("b") is first
    (True, False)
    >>> _ = sessions.session("c"); sessions.session("a") is first   # "a" was the least recent
    False
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        # HTTP sessions only: when each was last active, and how many of its requests are running.
        self._active: dict[str, float] = {}
        self._running: dict[str, int] = {}

    def __len__(self) -> int:
        """How many sessions hold a ledger."""
        with self._lock:
            return len(self._sessions)

    def session(self, key: str) -> Session:
        """The session for ``key``, created on first use."""
        with self._lock:
            found = self._sessions.get(key)
            if found is None:
                found = self._sessions[key] = Session()
                while len(self._sessions) > self._capacity:
                    self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(key)
            return found

    def forget(self, key: str) -> None:
        """Free ``key``'s session (its client closed it): a later request under that key, which
        the transport refuses anyway, would start afresh.

        >>> sessions = Sessions()
        >>> _ = sessions.session("http:a"); sessions.forget("http:a"); len(sessions)
        0
        """
        with self._lock:
            self._sessions.pop(key, None)
            self._active.pop(key, None)
            self._running.pop(key, None)

    def started(self, key: str, now: float) -> None:
        """A request of ``key`` began at ``now`` (a monotonic clock)."""
        with self._lock:
            self._running[key] = self._running.get(key, 0) + 1
            self._active[key] = now

    def ended(self, key: str, now: float) -> None:
        """A request of ``key`` ended at ``now``."""
        with self._lock:
            left = self._running.get(key, 1) - 1
            if left > 0:
                self._running[key] = left
            else:
                self._running.pop(key, None)
            if key in self._active:
                self._active[key] = now

    def forget_idle(self, idle: float, now: float) -> int:
        """Free every session with no request running and none for ``idle`` seconds before
        ``now``; how many were freed.

        >>> sessions = Sessions()
        >>> sessions.started("http:a", 0.0); sessions.ended("http:a", 1.0); _ = sessions.session("http:a")
        >>> sessions.forget_idle(10.0, 5.0), sessions.forget_idle(10.0, 11.5), len(sessions)
        (0, 1, 0)
        """
        with self._lock:
            expired = [key for key, at in self._active.items() if key not in self._running and now - at >= idle]
            for key in expired:
                self._sessions.pop(key, None)
                self._active.pop(key, None)
        return len(expired)
