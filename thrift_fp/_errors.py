"""The one base class of every error value the library returns.

Error values are frozen, slotted dataclasses carried inside ``Failure``. They are also
exceptions, for one reason: ``returns``' ``Failure.unwrap()`` raises
``UnwrapFailedError(...) from inner`` when ``inner`` is an exception, so the user's
traceback then prints the error's ``message`` (``str(error)``) right above the unwrap.
They are never raised by the library itself; they are values first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Final

# What Python itself assigns on an exception (contextlib sets ``__traceback__`` and
# ``add_note`` sets ``__notes__`` through ``setattr``); a frozen dataclass would refuse them.
_EXCEPTION_ATTRIBUTES: Final = frozenset(
    {"__traceback__", "__cause__", "__context__", "__suppress_context__", "__notes__"}
)


class ThriftFpError(Exception):
    """Base of every thrift_fp error value: ``str(error)`` is its ``message``.

    >>> from returns.result import Failure
    >>> from thrift_fp.tokens import UnknownEncoding
    >>> error = UnknownEncoding("nope", ("cl100k_base",))
    >>> isinstance(error, ThriftFpError), str(error) == error.message
    (True, True)
    >>> try:
    ...     Failure(error).unwrap()
    ... except Exception as raised:
    ...     print(raised.__cause__)
    unknown encoding 'nope'; known encodings: cl100k_base
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # ``@dataclass(frozen=True, slots=True)`` rebuilds the class with its frozen
        # ``__setattr__`` already in the namespace; let the exception machinery through it.
        frozen = cls.__dict__.get("__setattr__")
        if frozen is not None:
            setattr(cls, "__setattr__", _exception_aware(frozen))  # noqa: B010 - a dunder set on purpose

    @property
    def message(self) -> str:
        """The human-readable message; every error class names its field and value here."""
        return type(self).__name__

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Callable[[type[ThriftFpError], Mapping[str, object]], ThriftFpError], tuple[type[ThriftFpError], dict[str, object]]]:
        # BaseException pickles ``self.args``, which a dataclass never fills: rebuild from fields.
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}  # type: ignore[arg-type]  # every subclass is a dataclass
        return (_rebuild, (type(self), fields))


def _exception_aware(frozen: Callable[[object, str, object], None]) -> Callable[[object, str, object], None]:
    def __setattr__(self: object, name: str, value: object) -> None:
        if name in _EXCEPTION_ATTRIBUTES:
            BaseException.__setattr__(self, name, value)
        else:
            frozen(self, name, value)

    return __setattr__


def _rebuild(cls: type[ThriftFpError], fields: Mapping[str, object]) -> ThriftFpError:
    return cls(**fields)
