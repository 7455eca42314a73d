"""Guarded reads of a caller's objects: a property, descriptor or mapping access that raises is a value.

A caller's message may be a lazily loaded mapping, a proxy, or an SDK object whose property
raises. Every adapter reads such objects only through these guards; a read that raises an
``Exception`` raises `Unread` instead, carrying the field's path, and the adapter's reader turns
it, at its one boundary per item (`unreadable`), into the error value `UnreadableField` naming
the list, the position, the field and what was raised. A ``BaseException`` that is not an
``Exception`` (``KeyboardInterrupt``, ``SystemExit``) is never caught: it still stops the program.

>>> class Lazy(dict):
...     def get(self, key, default=None):
...         raise RuntimeError("storage offline")
>>> try:
...     got(Lazy(role="user"), "role", "role")
... except Unread as unread:
...     print(unreadable(unread, 1, Lazy()).message)
messages[1].role (a Lazy): reading it raised RuntimeError: storage offline
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final, TypeVar, cast

from returns.result import Failure, Result, Success

from thrift_fp._errors import ErrorValue
from thrift_fp._shown import shown_exception
from thrift_fp.adapters._core._errors import AdapterError, InvalidArgument, UnreadableField

_T = TypeVar("_T")
_K = TypeVar("_K")
_V = TypeVar("_V")
_MISSING: Final = object()


class Unread(Exception):  # noqa: N818 - internal signal, not an error value: never leaves an adapter's reader
    """A guarded read raised: ``field`` is the path read, ``cause`` what it raised. Internal to
    the readers; `unreadable` makes the error value."""

    __slots__ = ("cause", "field")

    def __init__(self, field: str, cause: Exception) -> None:
        super().__init__(field)
        self.field = field
        self.cause = cause


def got(mapping: Mapping[str, object], key: str, field: str, default: object = None) -> object:
    """``mapping.get(key, default)``, guarded.

    >>> got({"role": "user"}, "role", "role"), got({}, "name", "name")
    ('user', None)
    """
    try:
        return mapping.get(key, default)
    except Exception as exc:  # noqa: BLE001 - a caller's mapping may raise anything: named, never lost
        raise Unread(field, exc) from exc


def attr(obj: object, name: str, field: str) -> object:
    """``obj.name``, guarded (an ``AttributeError`` a property raises is reported too, not
    taken for a missing attribute).

    >>> attr("text", "upper", "upper")()
    'TEXT'
    """
    try:
        return getattr(obj, name)
    except Exception as exc:  # noqa: BLE001 - a caller's property may raise anything: named, never lost
        raise Unread(field, exc) from exc


def entries(mapping: Mapping[_K, _V], field: str) -> list[tuple[_K, _V]]:
    """Every ``(key, value)`` of ``mapping``, read key by key (``[key]`` and ``get(key)``) so that
    a value whose read raises is named by its key (``field`` is the mapping's path; ``""`` at the
    top of a message).

    >>> entries({"role": "user", "content": "hi"}, "")
    [('role', 'user'), ('content', 'hi')]
    """
    if type(mapping) is dict:  # a plain dict cannot raise on reading
        return list(mapping.items())
    try:
        keys = list(mapping)
    except Exception as exc:  # noqa: BLE001 - a caller's mapping may raise anything: named, never lost
        raise Unread(field or "(keys)", exc) from exc
    out: list[tuple[_K, _V]] = []
    for key in keys:
        try:
            # Both ways a reader may ask: a mapping whose ``get`` is broken is as unreadable as
            # one whose ``[]`` is (a ``dict`` subclass may override either alone).
            value = mapping[key]
            mapping.get(key)
            out.append((key, value))
        except Exception as exc:  # noqa: BLE001 - a caller's mapping may raise anything: named, never lost
            name = key if isinstance(key, str) else "(key)"
            raise Unread(f"{field}.{name}" if field else name, exc) from exc
    return out


def called(function: Callable[[], _T], field: str) -> _T:
    """``function()`` (a caller's method such as ``model_dump``), guarded.

    >>> called(lambda: 3, "model_dump()")
    3
    """
    try:
        return function()
    except Exception as exc:  # noqa: BLE001 - a caller's method may raise anything: named, never lost
        raise Unread(field, exc) from exc


def unreadable(unread: Unread, index: int, item: object, collection: str = "messages") -> UnreadableField:
    """The error value of a guarded read that raised inside ``collection[index]`` (``item``).

    >>> unreadable(Unread("content", KeyError("content")), 0, {}, "documents").message
    "documents[0].content (a dict): reading it raised KeyError: 'content'"
    """
    return UnreadableField(index, unread.field, type(item).__qualname__, shown_exception(unread.cause), unread.cause, collection)


def read_each(
    items: object, collection: str, expected: str, read: Callable[[object, int], _T | AdapterError]
) -> Result[list[_T], AdapterError]:
    """``read(item, index)`` of every item of the list ``items`` (the argument ``collection``), or
    the first problem: ``items`` not a list (`InvalidArgument`: "expected a list of
    ``expected``"), an error value ``read`` returns, or a guarded read that raised (`Unread`,
    made the `UnreadableField` naming ``collection[index]``).

    >>> read_each(["a", "b"], "documents", "Documents", lambda item, index: f"{index}:{item}").unwrap()
    ['0:a', '1:b']
    >>> read_each("ab", "documents", "Documents", lambda item, index: item).failure().message
    "invalid documents 'ab': expected a list of Documents"
    >>> def lazy(item, index):
    ...     raise Unread("content", KeyError("content"))
    >>> read_each([{}], "documents", "Documents", lazy).failure().message
    "documents[0].content (a dict): reading it raised KeyError: 'content'"
    """
    if isinstance(items, str | bytes | dict) or not isinstance(items, Sequence):
        return Failure(InvalidArgument(collection, items, f"expected a list of {expected}"))
    out: list[_T] = []
    for index, item in enumerate(items):
        try:
            done = read(item, index)
        except Unread as unread:
            return Failure(unreadable(unread, index, item, collection))
        if isinstance(done, ErrorValue):
            return Failure(cast(AdapterError, done))  # read returns a row or one of the adapter's error values
        out.append(done)
    return Success(out)
