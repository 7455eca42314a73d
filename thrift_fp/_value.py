"""Frozen, slotted value classes, made without compiling code per class.

``@dataclass(frozen=True, slots=True)`` writes six methods per class as source text and compiles
each with ``exec``: about 0.45 ms a class, and ``thrift-fp ask`` defines some 90 value classes
beside its 100 error classes (~40 ms of a 300 ms process; BENCHMARKS.md §21, eighth pass).
`value` makes the same class: ``dataclass`` itself lays out the fields and slots, with its
code-writing turned off, then the methods are the ones ``dataclass`` would write, with the same
behaviour: ``__init__`` compiled once per shape of fields and renamed per class (`value_init`),
``__eq__`` (comparing as this Python's ``dataclass`` does), ``__hash__`` and ``__repr__`` as
closures over the field names, ``__setattr__`` and ``__delattr__`` that refuse every assignment,
and the pickling state of a frozen slotted dataclass. A class this path cannot make exactly as
``dataclass`` would (``field()``, ``__post_init__``, ``InitVar``, ``KW_ONLY``, a dataclass base,
a method of its own that ``dataclass`` would have respected) is handed to ``dataclass`` whole.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import keyword
import operator
import reprlib
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar, dataclass_transform

_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True, slots=True)
class _FrozenShape:
    """The dataclass parameters every value class states: frozen, compared and hashed by fields."""


FROZEN_PARAMS: Final = getattr(_FrozenShape, "__dataclass_params__")  # noqa: B009 - set by @dataclass, untyped

# Methods whose presence in a class body ``dataclass`` respects or refuses one by one; a class
# defining any is left to ``dataclass`` whole.
_OWN_METHODS: Final = frozenset({
    "__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
    "__getstate__", "__setstate__", "__match_args__", "__slots__", "__post_init__",
})


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def value(cls: type[_T]) -> type[_T]:
    """``cls`` as ``@dataclass(frozen=True, slots=True)`` makes it, made faster (module docstring).

    >>> @value
    ... class Span:
    ...     start: int
    ...     end: int = 0
    >>> Span(1), Span(1) == Span(start=1, end=0), hash(Span(1)) == hash((1, 0))
    (Span(start=1, end=0), True, True)
    >>> Span(1).start = 2
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'start'
    """
    if not plain_fields(cls):
        return dataclasses.dataclass(frozen=True, slots=True)(cls)
    documented = bool(cls.__dict__.get("__doc__"))
    if not documented:
        # Not the signature ``dataclass`` would read now (before ``__init__`` is set): see below.
        cls.__doc__ = cls.__name__
    built: Any = dataclasses.dataclass(init=False, repr=False, eq=False, frozen=False, slots=True)(cls)
    fields = dataclasses.fields(built)
    names = tuple(field.name for field in fields)
    built.__init__ = value_init(built, fields)
    values = _values_of(names)
    built.__repr__ = _named(built, "__repr__", _repr(names, values))
    built.__eq__ = _named(built, "__eq__", _eq(names, values))
    built.__hash__ = _named(built, "__hash__", _hash(values))
    built.__setattr__ = _frozen_setattr
    built.__delattr__ = _frozen_delattr
    # As ``dataclass`` gives a frozen slotted class: pickling and copying restore the fields.
    built.__getstate__ = _getstate
    built.__setstate__ = _setstate
    built.__dataclass_params__ = FROZEN_PARAMS
    if not documented:
        built.__doc__ = signature_doc(built)
    made: type[_T] = built
    return made


def signature_doc(cls: type) -> str:
    """The docstring ``dataclass`` writes for a class without one: its name and signature (the
    name alone when the signature cannot be shown, e.g. a default whose ``repr`` raises).

    >>> @value
    ... class Span:
    ...     start: int = 10**5000
    >>> signature_doc(Span)
    'Span'
    """
    try:
        return cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        return cls.__name__


def plain_fields(cls: type, namespace: Mapping[str, object] | None = None) -> bool:
    """Whether ``cls`` (its body ``namespace``; its own ``__dict__`` by default) declares plain
    fields only — no ``field()``, ``InitVar`` or ``KW_ONLY``, no ``__post_init__``, no dataclass
    among its bases, no method of its own that ``dataclass`` writes — so that `value`'s methods
    are the ones ``dataclass`` would write; any other class is left to ``dataclass`` whole.

    >>> class Plain:
    ...     name: str
    >>> class Defaulted:
    ...     names: list[str] = dataclasses.field(default_factory=list)
    >>> plain_fields(Plain), plain_fields(Defaulted)
    (True, False)
    """
    own = cls.__dict__ if namespace is None else namespace
    if any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:]) or any(
        "__post_init__" in vars(klass) for klass in cls.__mro__
    ):
        return False
    if _OWN_METHODS & own.keys() or any(isinstance(item, dataclasses.Field) for item in own.values()):
        return False
    # The class's own annotations however this Python keeps them (3.14 evaluates them lazily).
    annotations = inspect.get_annotations(cls)
    return not any(
        # A mangled ``__name`` and the names `value_init`'s code keeps for itself stay with dataclass.
        name.startswith("__") or name == "self" or any(special in str(hint) for special in ("InitVar", "KW_ONLY"))
        for name, hint in annotations.items()
    )


def value_init(cls: type, fields: Sequence[dataclasses.Field[Any]]) -> Callable[..., None]:
    """The ``__init__`` ``dataclass(frozen=True)`` writes for ``cls``'s plain ``fields``: each
    argument set with ``object.__setattr__``, the same parameters, defaults and annotations. Its
    code is compiled once per count of fields and of defaults, then renamed (`_init_code`); the
    function is the class's own.

    >>> @value
    ... class Pair:
    ...     left: int
    ...     right: str = "r"
    >>> Pair(1), Pair(right="x", left=2), Pair.__init__.__qualname__
    (Pair(left=1, right='r'), Pair(left=2, right='x'), 'Pair.__init__')
    """
    names = tuple(field.name for field in fields)
    defaults = tuple(field.default for field in fields if field.default is not dataclasses.MISSING)
    for before, after in zip(fields, fields[1:]):
        if before.default is not dataclasses.MISSING and after.default is dataclasses.MISSING:
            raise TypeError(f"non-default argument {after.name!r} follows default argument")
    if not all(name.isidentifier() and not keyword.iskeyword(name) for name in names):
        raise TypeError(f"field names must be identifiers: {names!r}")
    if len(set(names)) != len(names):
        raise TypeError(f"duplicate field names: {names!r}")
    template = _init_code(len(names), len(defaults))
    placeholders = {_placeholder(index): name for index, name in enumerate(names)}
    code = template.__code__.replace(
        co_varnames=("self", *names),
        co_consts=tuple(placeholders.get(const, const) if isinstance(const, str) else const for const in template.__code__.co_consts),
        co_name="__init__",
        co_qualname=f"{cls.__qualname__}.__init__",
    )
    # The class's module's globals, as ``dataclass`` gives its functions (none for a class whose
    # module is not loaded): annotations are resolved there.
    module = sys.modules.get(cls.__module__)
    made = types.FunctionType(
        code, module.__dict__ if module is not None else {}, "__init__", defaults or None, template.__closure__,
    )
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    made.__annotations__ = {**{field.name: field.type for field in fields}, "return": None}
    return made


def _placeholder(index: int) -> str:
    return f"_thrift_fp_field_{index}"


@functools.cache
def _init_code(count: int, defaulted: int) -> Callable[..., None]:
    """A template ``__init__`` of ``count`` placeholder fields, the last ``defaulted`` of them with
    a default (the values are each class's own ``__defaults__``), setting each through a
    closure's ``object.__setattr__`` as a frozen dataclass's ``__init__`` does.

    >>> _init_code(2, 1).__code__.co_varnames
    ('self', '_thrift_fp_field_0', '_thrift_fp_field_1')
    """
    names = [_placeholder(index) for index in range(count)]
    required = count - defaulted
    parameters = ", ".join(("self", *names[:required], *(f"{name}=None" for name in names[required:])))
    body = [f"        __object_setattr__(self, {name!r}, {name})" for name in names] or ["        pass"]
    source = "\n".join(
        ["def __make__(__object_setattr__):", f"    def __init__({parameters}):", *body, "    return __init__", ""]
    )
    scope: dict[str, Any] = {}
    exec(compile(source, "<thrift_fp value __init__>", "exec"), {}, scope)  # noqa: S102 - our own source, from placeholders
    made: Callable[..., None] = scope["__make__"](object.__setattr__)
    return made


def _values_of(names: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    """The fields' values of an instance as one tuple (what ``dataclass`` compares and hashes)."""
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda instance: (one(instance),)
    many: Callable[[object], tuple[object, ...]] = operator.attrgetter(*names)
    return many


def _repr(names: tuple[str, ...], values: Callable[[object], tuple[object, ...]]) -> Callable[[object], str]:
    @reprlib.recursive_repr()  # as ``dataclass``'s: "..." for an instance inside itself
    def __repr__(self: object) -> str:
        shown = ", ".join(f"{name}={item!r}" for name, item in zip(names, values(self)))
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(names: tuple[str, ...], values: Callable[[object], tuple[object, ...]]) -> Callable[[object, object], object]:
    # This Python's ``dataclass`` comparison: field by field from 3.13 on, by tuples before.
    return eq_by_fields(names) if sys.version_info >= (3, 13) else eq_by_tuples(values)


def eq_by_fields(names: tuple[str, ...]) -> Callable[[object, object], object]:
    """``__eq__`` as ``dataclass`` writes it from Python 3.13 on: ``self is other``, else the same
    class and ``self.a == other.a and self.b == other.b ...``, so a NaN both hold is unequal and
    the first falsy comparison is the result.

    >>> @value
    ... class Cell:
    ...     a: float
    >>> nan = float("nan")
    >>> eq_by_fields(("a",))(Cell(nan), Cell(nan)), eq_by_tuples(_values_of(("a",)))(Cell(nan), Cell(nan))
    (False, True)
    """

    def __eq__(self: object, other: object) -> object:
        if self is other:
            return True
        if other.__class__ is self.__class__:
            result: object = True
            for name in names:
                result = getattr(self, name) == getattr(other, name)
                if not result:
                    return result
            return result
        return NotImplemented

    return __eq__


def eq_by_tuples(values: Callable[[object], tuple[object, ...]]) -> Callable[[object, object], object]:
    """``__eq__`` as ``dataclass`` writes it before Python 3.13: the same class, and the fields'
    tuples equal (a tuple's comparison takes an item it holds twice as equal to itself).

    >>> @value
    ... class Cell:
    ...     a: object
    >>> same = eq_by_tuples(_values_of(("a",)))
    >>> same(Cell(1), Cell(1)), same(Cell(1), Cell(2)), same(Cell(1), "other")
    (True, False, NotImplemented)
    """

    def __eq__(self: object, other: object) -> object:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[object], tuple[object, ...]]) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(values(self))

    return __hash__


def _named(cls: type, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    return method


def _frozen_setattr(self: object, name: str, value: object) -> None:
    # Every name is refused: the class has slots for its fields only, and they are frozen.
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: object) -> list[object]:
    # The state ``dataclass`` gives a frozen slotted class: the fields' values in order.
    return [getattr(self, field.name) for field in dataclasses.fields(self)]  # type: ignore[arg-type]  # a value class


def _setstate(self: object, state: Sequence[object]) -> None:
    for field, item in zip(dataclasses.fields(self), state):  # type: ignore[arg-type]  # a value class
        object.__setattr__(self, field.name, item)
