"""The server's sessions: one ledger per MCP session, each swapped under its own lock.

A session's calls run one at a time (its quota and de-duplication need each call to see the
previous one's ledger); different sessions run in parallel. The registry forgets the least
recently used session beyond ``capacity`` (the HTTP transport also ends idle sessions).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, TypeVar

from thrift_fp.serve._ledger import SessionLedger
from thrift_fp.serve._session_store import Replay

DEFAULT_CAPACITY: Final = 10_000
_Answer = TypeVar("_Answer")


class Session:
    """One session's ledger and the lock its calls take turns under."""

    __slots__ = ("ledger", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ledger = SessionLedger()

    def step(
        self, call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]], replay: Replay[_Answer] | None = None
    ) -> _Answer:
        """Run ``call`` on the current ledger and keep the ledger it hands back (thread-safe).
        ``replay`` is for stores shared by several servers: one server's own session never sees
        a request again after the process that answered it is gone.

        >>> session = Session()
        >>> session.step(lambda ledger: (ledger, ledger.tokens_used))
        0
        """
        with self.lock:
            self.ledger, answer = call(self.ledger)
        return answer


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
