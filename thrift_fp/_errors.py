"""The one base class of every error value the library returns.

Error values are frozen, slotted dataclasses carried inside ``Failure``. They are also
exceptions, for one reason: ``returns``' ``Failure.unwrap()`` raises
``UnwrapFailedError(...) from inner`` when ``inner`` is an exception, so the user's
traceback then prints the error's ``message`` (``str(error)``) right above the unwrap.
They are never raised by the library itself; they are values first.

The library's error classes derive from `ErrorValue` and state only what differs: a name, the
fields and a message template. The template is a class keyword (``class X(ErrorValue,
template="...")``), in ``str.format`` syntax over the class's own fields: ``{field}`` is the field as
text, ``{field!r}`` the value through the safe renderer `thrift_fp._shown.shown` (bounded, never
raises; used for any value a caller or a document supplied), ``{field!t}`` through
`thrift_fp._shown.shown_text` (unquoted, cut), ``{field!q}`` through
`thrift_fp._shown.quote_untrusted` (a name an agent will read: quoted, bounded, one line, nothing
that hides, reorders or opens a tag), ``{field!l}`` the text on one line (a driver's message that
spans lines). A message that needs more than its fields (a count, a join) adds a private property
the template names, or overrides ``message``. Making the class a frozen, slotted dataclass, its
bounded ``repr`` and its pickling all happen here, once.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast, dataclass_transform

from thrift_fp._shown import quote_untrusted, shown, shown_text
from thrift_fp._value import FROZEN_PARAMS, plain_fields, signature_doc, value_init

# What Python itself assigns on an exception (contextlib sets ``__traceback__`` and
# ``add_note`` sets ``__notes__`` through ``setattr``); a frozen dataclass would refuse them.
_EXCEPTION_ATTRIBUTES: Final = frozenset(
    {"__traceback__", "__cause__", "__context__", "__suppress_context__", "__notes__"}
)


def _bounded_repr(self: object) -> str:
    """``Name(field=value, ...)`` with each value through `thrift_fp._shown.shown` (a nested error
    by its own bounded repr).

    >>> from thrift_fp.sources import InvalidChunkBound
    >>> InvalidChunkBound(10**5000, 8)
    InvalidChunkBound(max_tokens=an int of 16610 bits (too long to print), minimum=8)
    """
    parts = []
    for field in dataclasses.fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
        if not field.repr:
            continue
        value = getattr(self, field.name)
        parts.append(f"{field.name}={repr(value) if isinstance(value, ThriftFpError) else shown(value, 200)}")
    return f"{type(self).__qualname__}({', '.join(parts)})"


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
    message_template: ClassVar[str | None] = None
    """The message over the fields (see the module's docstring); ``None``: the class's name."""

    def __init_subclass__(cls, *, template: str | None = None, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if template is not None:
            cls.message_template = template
        # ``@dataclass(frozen=True, slots=True)`` rebuilds the class with its frozen
        # ``__setattr__`` already in the namespace; let the exception machinery through it.
        frozen = cls.__dict__.get("__setattr__")
        if frozen is not None:
            setattr(cls, "__setattr__", _exception_aware(frozen))  # noqa: B010 - a dunder set on purpose
            setattr(cls, "__delattr__", _frozen_delattr)  # noqa: B010 - a dunder set on purpose
        # The dataclass's generated ``__repr__`` calls ``repr`` on every field, which raises on an
        # int past 4300 digits and copies a huge string whole: errors hold hostile values, so
        # their repr goes through the safe renderer, like their messages.
        if "__repr__" in cls.__dict__:
            setattr(cls, "__repr__", _bounded_repr)  # noqa: B010 - a dunder set on purpose

    @property
    def message(self) -> str:
        """The human-readable message, from the class's ``message_template``; every error class
        names its field and value there.

        >>> from thrift_fp.thrift import InvalidBudget
        >>> InvalidBudget("context_window", "x" * 100, "must be a number").message
        "invalid context_window 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (100 chars): must be a number"
        """
        template = type(self).message_template
        return type(self).__name__ if template is None else _MESSAGES.format(template, self)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Callable[[type[ThriftFpError], Mapping[str, object]], ThriftFpError], tuple[type[ThriftFpError], dict[str, object]]]:
        # BaseException pickles ``self.args``, which a dataclass never fills: rebuild from fields.
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}  # type: ignore[arg-type]  # every subclass is a dataclass
        return (_rebuild, (type(self), fields))


@dataclass_transform(frozen_default=True)
class _ErrorValueType(type):
    """Makes every class it builds a frozen, slotted dataclass over the fields its body annotates."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any) -> _ErrorValueType:
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        # A class that lays out its own slots is a base (`ErrorValue` itself), or the slotted copy
        # ``dataclass`` builds of a value class through this same metaclass: leave it as it is.
        if "__slots__" in namespace:
            return cls
        value_class: type = cls
        built: Any
        # ``__repr__``, ``__eq__`` and ``__hash__`` are `ErrorValue`'s own, written once: those
        # ``dataclass`` generates cost an ``exec`` each, per class (``thrift-fp ask`` loads about
        # 95 error classes), and the repr was replaced anyway. The class still states the
        # parameters of a frozen dataclass compared by its fields, for it behaves as one.
        if plain_fields(value_class, namespace):
            # Nor the frozen ``__setattr__``/``__delattr__`` (replaced by `ErrorValue`'s anyway)
            # nor an ``exec``'d ``__init__``: the same ``__init__``, compiled once per shape of
            # fields (`thrift_fp._value.value_init`). ~0.32 -> ~0.05 ms a class (BENCHMARKS.md §21, seventh pass).
            built = dataclasses.dataclass(frozen=False, init=False, slots=True, repr=False, eq=False)(value_class)
            built.__init__ = value_init(built, dataclasses.fields(built))
            built.__setattr__ = _FROZEN_SETATTR
            built.__delattr__ = _frozen_delattr
            if "__doc__" not in namespace or namespace["__doc__"] is None:
                built.__doc__ = signature_doc(built)
        else:
            built = dataclasses.dataclass(frozen=True, slots=True, repr=False, eq=False)(value_class)
        built.__dataclass_params__ = FROZEN_PARAMS
        fields = dataclasses.fields(built)
        built._compared = tuple(field.name for field in fields if field.compare)
        built._hashed = tuple(field.name for field in fields if (field.compare if field.hash is None else field.hash))
        return cast(_ErrorValueType, built)


class ErrorValue(ThriftFpError, metaclass=_ErrorValueType):
    """The one shape of the library's error values: a subclass declares its fields and its
    ``template``; it is then a frozen, slotted dataclass (compared and hashed by its fields, matched
    by ``case Name(field=...)``) whose ``message`` is the template over those fields.

    >>> class TooLarge(ErrorValue, template="{what} holds {size} items, more than {limit}"):
    ...     what: str
    ...     size: int
    ...     limit: int
    >>> error = TooLarge("the batch", 12, 10)
    >>> error.message, error == TooLarge("the batch", 12, 10)
    ('the batch holds 12 items, more than 10', True)
    >>> error
    TooLarge(what='the batch', size=12, limit=10)

    `ThriftFpError` itself stays a plain exception base: a caller's own subclass of it keeps working
    as before, with or without ``@dataclass``.
    """

    __slots__ = ()
    # The fields compared and hashed (``compare``, ``hash`` of each field), set per class.
    _compared: ClassVar[tuple[str, ...]] = ()
    _hashed: ClassVar[tuple[str, ...]] = ()

    if not TYPE_CHECKING:  # to mypy these are the methods `dataclass_transform` generates

        def __eq__(self, other: object) -> bool:
            # As ``dataclass`` generates it: the same class, and its compared fields equal in order.
            if other.__class__ is self.__class__:
                return tuple(getattr(self, name) for name in self._compared) == tuple(
                    getattr(other, name) for name in self._compared
                )
            return NotImplemented

        def __hash__(self) -> int:
            return hash(tuple(getattr(self, name) for name in self._hashed))

    __repr__ = _bounded_repr


class CarriesError(ErrorValue):
    """A base for an error value whose ``error`` field carries a lower layer's error value: its
    ``cause`` is that error's ``cause`` (what a caller's function raised, if anything), so a
    wrapped failure still names the original exception.

    >>> from thrift_fp.render import FitFailed
    >>> from thrift_fp.tokens import EstimatorFailed
    >>> from thrift_fp.thrift import CountingFailed
    >>> boom = ValueError("boom")
    >>> FitFailed(CountingFailed(EstimatorFailed("mine", "raised ValueError", boom))).cause is boom
    True
    """

    __slots__ = ()

    @property
    def cause(self) -> BaseException | None:
        # Every subclass declares ``error``; an error value without a ``cause`` field has none.
        cause = getattr(getattr(self, "error"), "cause", None)  # noqa: B009 - the subclass's field
        return cause if isinstance(cause, BaseException) else None


class _Messages(string.Formatter):
    """``str.format`` over an error's attributes, with ``!r``, ``!t`` and ``!q`` through the safe renderers
    and ``!l`` on one line."""

    def get_value(self, key: int | str, args: Sequence[object], kwargs: Mapping[str, object]) -> object:
        return getattr(args[0], str(key))

    def convert_field(self, value: object, conversion: str | None) -> object:
        if conversion == "r":
            return shown(value)
        if conversion == "t":
            return shown_text(value) if isinstance(value, str) else shown(value)
        if conversion == "q":
            return quote_untrusted(value) if isinstance(value, str) else shown(value)
        if conversion == "l":
            return " ".join(value.split()) if isinstance(value, str) else shown(value)
        return super().convert_field(value, conversion)

    def format_field(self, value: object, format_spec: str) -> str:
        try:
            formatted: str = super().format_field(value, format_spec)
        except ValueError:
            # An int past Python's 4300-digit limit refuses ``str``; a message must never raise.
            if isinstance(value, int):
                return shown(value)
            raise
        return formatted


_MESSAGES: Final = _Messages()


def _exception_aware(frozen: Callable[[object, str, object], None]) -> Callable[[object, str, object], None]:
    del frozen  # replaced whole: see below

    # The dataclass's own frozen ``__setattr__`` refuses a field, but for any other name it calls
    # ``super(cls, self)`` with the class as it was before ``slots=True`` rebuilt it, which raises
    # ``TypeError`` (CPython's gh-90562). Every value is frozen whole, so every name but the
    # exception machinery's is refused the dataclass way.
    def __setattr__(self: object, name: str, value: object) -> None:
        if name in _EXCEPTION_ATTRIBUTES:
            BaseException.__setattr__(self, name, value)
        else:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    return __setattr__


def _frozen_delattr(self: object, name: str) -> None:
    if name in _EXCEPTION_ATTRIBUTES:
        BaseException.__delattr__(self, name)
    else:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


_FROZEN_SETATTR: Final = _exception_aware(object.__setattr__)


def _rebuild(cls: type[ThriftFpError], fields: Mapping[str, object]) -> ThriftFpError:
    return cls(**fields)
