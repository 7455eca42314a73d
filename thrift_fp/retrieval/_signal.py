"""Cancellation: a read-only signal, and the controller that aborts it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


class _Cancellation:
    """The shared cell a controller writes once and its signal reads."""

    __slots__ = ("_lock", "_aborted", "_reason")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._aborted = False
        self._reason: str | None = None

    def abort(self, reason: str | None) -> bool:
        with self._lock:
            if self._aborted:
                return False
            self._aborted, self._reason = True, reason
            return True

    def read(self) -> tuple[bool, str | None]:
        with self._lock:
            return self._aborted, self._reason


@dataclass(frozen=True, slots=True, eq=False)
class CancellationSignal:
    """A read-only, thread-safe view of whether an operation was aborted, and why.

    ``CancellationSignal()`` is a signal nothing can abort; get an abortable one
    from a ``CancellationController``, or an already-aborted one from ``aborted_with``.

    >>> CancellationSignal().aborted
    False
    >>> signal = CancellationSignal.aborted_with("user left")
    >>> signal.aborted, signal.reason
    (True, 'user left')
    """

    _cell: _Cancellation = field(default_factory=_Cancellation, repr=False)

    @property
    def aborted(self) -> bool:
        return self._cell.read()[0]

    @property
    def reason(self) -> str | None:
        return self._cell.read()[1]

    @staticmethod
    def aborted_with(reason: str | None = None) -> CancellationSignal:
        """A signal that is already aborted.

        >>> CancellationSignal.aborted_with().aborted
        True
        """
        cell = _Cancellation()
        cell.abort(reason)
        return CancellationSignal(cell)


class CancellationController:
    """Owns a ``CancellationSignal`` and aborts it, once, from any thread.

    >>> controller = CancellationController()
    >>> controller.signal.aborted
    False
    >>> controller.abort("deadline passed"), controller.abort("again")
    (True, False)
    >>> controller.signal.reason
    'deadline passed'
    """

    __slots__ = ("_cell", "signal")

    def __init__(self) -> None:
        self._cell = _Cancellation()
        self.signal = CancellationSignal(self._cell)

    def abort(self, reason: str | None = None) -> bool:
        """Abort the signal; True if this call did it, False if it was already aborted.

        >>> CancellationController().abort()
        True
        """
        return self._cell.abort(reason)
