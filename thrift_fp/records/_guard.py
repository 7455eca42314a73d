"""Calling a caller-supplied ``SpoolReader``: its exceptions become ``StoreFailed`` values.

The built-in readers never raise, but a reader written by a library user is a user callback,
so every call into one goes through here and keeps the exception as ``cause``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown_exception
from thrift_fp.records._errors import StoreError, StoreFailed
from thrift_fp.records._reader import ReaderDescriptor, SpoolReader

_Value = TypeVar("_Value")


def _failed(reader: SpoolReader, operation: str, exc: Exception) -> StoreFailed:
    return StoreFailed(operation, f"<{type(reader).__name__}>", f"the reader raised {shown_exception(exc)}", exc)


def guarded(reader: SpoolReader, operation: str, call: Callable[[], Result[_Value, StoreError]]) -> Result[_Value, StoreError]:
    """``call()``, with an exception from the reader turned into a ``StoreFailed`` value.

    >>> from thrift_fp.records import MemoryStore
    >>> reader = MemoryStore().write("doc", "x").unwrap()
    >>> guarded(reader, "read", lambda: 1 // 0).failure().message
    "read of id '<StoreReader>' failed: the reader raised ZeroDivisionError: integer division or modulo by zero"
    """
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - a caller-supplied reader is a user callback; keep the cause
        return Failure(_failed(reader, operation, exc))


def guarded_lines(reader: SpoolReader) -> Iterator[Result[str, StoreError]]:
    """``reader.iter_lines()``, ending with a ``StoreFailed`` item if the reader raises.

    >>> from thrift_fp.records import MemoryStore
    >>> [line.unwrap() for line in guarded_lines(MemoryStore().write("doc", "a\\nb").unwrap())]
    ['a\\n', 'b']
    """
    try:
        yield from reader.iter_lines()
    except Exception as exc:  # noqa: BLE001 - a caller-supplied reader is a user callback; keep the cause
        yield Failure(_failed(reader, "read", exc))


def guarded_describe(reader: SpoolReader) -> Result[ReaderDescriptor | None, StoreError]:
    """``reader.describe()``, with an exception turned into a ``StoreFailed`` value.

    >>> from thrift_fp.records import MemoryStore
    >>> guarded_describe(MemoryStore(name="m").write("doc", "x").unwrap()).unwrap()
    ReaderDescriptor(store='memory', location='m', id='doc')
    """
    try:
        return Success(reader.describe())
    except Exception as exc:  # noqa: BLE001 - a caller-supplied reader is a user callback; keep the cause
        return Failure(_failed(reader, "describe", exc))


def guarded_store(operation: str, id: str, call: Callable[[], Result[_Value, StoreError]]) -> Result[_Value, StoreError]:
    """``call()`` on a caller-supplied ``ByteStore``, with an exception turned into a ``StoreFailed`` value.

    >>> guarded_store("write", "doc", lambda: 1 // 0).failure().message
    "write of id 'doc' failed: the store raised ZeroDivisionError: integer division or modulo by zero"
    """
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - a caller-supplied store is a user callback; keep the cause
        return Failure(StoreFailed(operation, id, f"the store raised {shown_exception(exc)}", exc))
