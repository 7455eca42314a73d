"""A per-thread network guard around tiktoken's loader.

tiktoken downloads a vocabulary it has not cached. For encodings we do not
bundle we let tiktoken read its own cache, but refuse any socket use on the
calling thread, so a cache miss becomes an error value at once instead of a
download (or a hang on a closed network).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Final, TypeVar

_GUARDED_EVENTS: Final = frozenset({"socket.getaddrinfo", "socket.connect", "socket.gethostbyname"})
_T = TypeVar("_T")


class NetworkRefused(ConnectionRefusedError):
    """Raised inside a guarded call when it tries to reach the network."""


class _Guard(threading.local):
    active: bool = False
    tripped: bool = False


_guard: Final = _Guard()
_install_lock: Final = threading.Lock()
_installed: list[bool] = []


def _audit(event: str, _args: tuple[object, ...]) -> None:
    if _guard.active and event in _GUARDED_EVENTS:
        _guard.tripped = True
        raise NetworkRefused(f"thrift_fp never downloads vocabularies ({event} refused)")


def _ensure_hook() -> None:
    # Audit hooks cannot be removed, so install exactly one, lazily, on first use.
    with _install_lock:
        if not _installed:
            sys.addaudithook(_audit)
            _installed.append(True)


def without_network(call: Callable[[], _T]) -> tuple[_T | None, BaseException | None, bool]:
    """Run ``call`` with sockets refused on this thread.

    Returns ``(value, exception, network_was_attempted)``.
    """
    _ensure_hook()
    _guard.active, _guard.tripped = True, False
    try:
        return call(), None, False
    except Exception as exc:  # noqa: BLE001 - the single boundary around tiktoken's loader
        return None, exc, _guard.tripped
    finally:
        _guard.active = False
