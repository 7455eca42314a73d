"""Properties of `thrift_fp._value.value`: a class it makes behaves as the one
``@dataclass(frozen=True, slots=True)`` makes from the same body, for any shape of fields and any
field values — built by position and by name, refused alike, compared, hashed, printed, frozen,
pickled, copied, replaced and matched the same way.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import keyword
import math
import pickle
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import thrift_fp
from properties.hostile_strategies import examples, hostile_ints, hostile_text
from thrift_fp._value import FROZEN_PARAMS, eq_by_fields, value

_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(lambda name: not keyword.iskeyword(name) and name != "self")


class _Zero:
    """Compared, it answers the falsy ``0``, not ``False``: a chain of ``and`` returns it as it is,
    a tuple's comparison turns it into ``False``."""

    def __eq__(self, other: object) -> bool:
        return 0  # type: ignore[return-value]  # on purpose: a comparison that is not a bool

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return "_Zero()"  # the same for a copy


# Field values, nested: hashable ones and lists (which both classes refuse to hash alike), NaN
# (equal to itself only as the same object, inside a tuple) and `_Zero`.
_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), hostile_ints, hostile_text, st.floats(), st.just(math.nan), st.builds(_Zero)),
    lambda inner: st.one_of(st.tuples(inner, inner), st.lists(inner, max_size=2)),
    max_leaves=4,
)


@st.composite
def _shapes(draw: st.DrawFn) -> tuple[str, tuple[str, ...], dict[str, object], bool]:
    """A class name, its field names, defaults for the last few, and whether it has a docstring."""
    names = tuple(draw(st.lists(_NAMES, max_size=6, unique=True)))
    defaulted = draw(st.integers(0, len(names)))
    defaults = {name: draw(_VALUES) for name in names[len(names) - defaulted:]}
    return draw(st.sampled_from(["Span", "Cell", "Row"])), names, defaults, draw(st.booleans())


def _pair(shape: tuple[str, tuple[str, ...], dict[str, object], bool]) -> tuple[Any, Any]:
    """The class `value` makes of the body ``shape`` describes, and the one ``dataclass`` makes;
    a body ``dataclass`` refuses (a mutable default) is refused alike, and then skipped."""
    name, names, defaults, documented = shape

    def body() -> dict[str, object]:
        namespace: dict[str, object] = {"__annotations__": dict.fromkeys(names, "object"), **defaults}
        namespace["__module__"] = __name__
        namespace["__qualname__"] = name
        if documented:
            namespace["__doc__"] = "A value."
        return namespace

    mine = _outcome(lambda: value(type(name, (), body())))
    theirs = _outcome(lambda: dataclasses.dataclass(frozen=True, slots=True)(type(name, (), body())))
    assert mine[0] == theirs[0] and (mine[0] == "returned" or mine[1] == theirs[1])
    assume(mine[0] == "returned")
    return mine[1], theirs[1]


def _outcome(call: Callable[[], object]) -> tuple[str, object]:
    """What ``call`` returns, or the kind of exception it raises (the message without the
    function's qualified name, which ``dataclass``'s generated functions spell otherwise)."""
    try:
        return "returned", call()
    except TypeError as error:
        return "TypeError", str(error).split("()", 1)[-1]
    except Exception as error:  # noqa: BLE001 - the kind is the outcome compared
        return type(error).__name__, str(error)


@st.composite
def _calls(draw: st.DrawFn) -> tuple[tuple[str, tuple[str, ...], dict[str, object], bool], list[object], dict[str, object]]:
    """A shape and a call of its constructor: positional values, then keyword values (some
    missing, some doubled, some unknown)."""
    shape = draw(_shapes())
    names = shape[1]
    positional = draw(st.lists(_VALUES, max_size=len(names) + 1))
    keywords = draw(st.dictionaries(st.sampled_from([*names, "unknown"]) if names else st.just("unknown"), _VALUES, max_size=3))
    return shape, positional, keywords


@settings(max_examples=examples(300))
@given(_calls())
def test_a_value_is_built_and_refused_as_a_dataclass(call: tuple[Any, list[object], dict[str, object]]) -> None:
    shape, positional, keywords = call
    made, oracle = _pair(shape)
    mine = _outcome(lambda: made(*positional, **keywords))
    theirs = _outcome(lambda: oracle(*positional, **keywords))
    assert mine[0] == theirs[0]
    if mine[0] != "returned":
        assert mine[1] == theirs[1]
        return
    built, expected = mine[1], theirs[1]
    assert _outcome(lambda: repr(built)) == _outcome(lambda: repr(expected))
    assert [getattr(built, name) is getattr(expected, name) for name in shape[1]] == [True] * len(shape[1])


def _two_calls(data: st.DataObject, names: tuple[str, ...]) -> tuple[list[object], list[object]]:
    """Two constructor calls' values drawn from one small pool, so that the same object often
    sits in both (identity counts: a NaN equals itself only as the same object, in a tuple)."""
    pool = data.draw(st.lists(_VALUES, min_size=1, max_size=3))
    return [data.draw(st.sampled_from(pool)) for _ in names], [data.draw(st.sampled_from(pool)) for _ in names]


@settings(max_examples=examples(300))
@given(_shapes(), st.data())
def test_a_value_compares_hashes_and_prints_as_a_dataclass(shape: Any, data: st.DataObject) -> None:
    made, oracle = _pair(shape)
    first, second = _two_calls(data, shape[1])
    mine, theirs = (made(*first), made(*second)), (oracle(*first), oracle(*second))
    assert _outcome(lambda: mine[0] == mine[1]) == _outcome(lambda: theirs[0] == theirs[1])
    assert _outcome(lambda: mine[0] != mine[1]) == _outcome(lambda: theirs[0] != theirs[1])
    assert _outcome(lambda: hash(mine[0])) == _outcome(lambda: hash(theirs[0]))
    assert _outcome(lambda: repr(mine[0])) == _outcome(lambda: repr(theirs[0]))
    assert _outcome(lambda: repr(mine[1])) == _outcome(lambda: repr(theirs[1]))
    # Another class with the same fields is never equal (``dataclass`` compares the class first).
    assert (mine[0] == theirs[0]) is False and (mine[0].__eq__(theirs[0]) is NotImplemented)


@settings(max_examples=examples(200))
@given(_shapes(), st.data())
def test_a_value_is_frozen_pickled_copied_and_matched_as_a_dataclass(shape: Any, data: st.DataObject) -> None:
    made, oracle = _pair(shape)
    names = shape[1]
    values = [data.draw(_VALUES) for _ in names]
    mine, theirs = made(*values), oracle(*values)
    for name in [*names, "other"]:
        if name in names:
            assert _outcome(lambda: setattr(mine, name, 1)) == _outcome(lambda: setattr(theirs, name, 1))
            assert _outcome(lambda: delattr(mine, name)) == _outcome(lambda: delattr(theirs, name))
        else:
            # dataclass refuses another name too (its slots have no room for it), as another kind.
            with pytest.raises(AttributeError):
                setattr(mine, name, 1)
    assert _outcome(lambda: repr(mine)) == _outcome(lambda: repr(theirs))
    assert all(a is b for a, b in zip(mine.__getstate__(), theirs.__getstate__(), strict=True))
    # Pickled and copied: the same fields back, the copy frozen too.
    globals()[shape[0]] = made  # pickle finds a class by its module and name
    try:
        for again in (pickle.loads(pickle.dumps(mine)), copy.copy(mine), copy.deepcopy(mine)):
            assert type(again) is made and _outcome(lambda: repr(again)) == _outcome(lambda: repr(mine))
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(again, names[0] if names else "other", 1)
    finally:
        del globals()[shape[0]]
    if names:
        changed = dataclasses.replace(mine, **{names[0]: "changed"})
        expected = dataclasses.replace(theirs, **{names[0]: "changed"})
        assert _outcome(lambda: repr(changed)) == _outcome(lambda: repr(expected))
    assert made.__match_args__ == oracle.__match_args__ and made.__slots__ == oracle.__slots__
    assert [field.name for field in dataclasses.fields(made)] == [field.name for field in dataclasses.fields(oracle)]
    assert repr(made.__dataclass_params__) == repr(oracle.__dataclass_params__) and made.__doc__ == oracle.__doc__
    ours, expected = inspect.signature(made).parameters.values(), inspect.signature(oracle).parameters.values()
    assert [(p.name, p.kind) for p in ours] == [(p.name, p.kind) for p in expected]
    assert all(p.default is q.default for p, q in zip(ours, expected, strict=True))


def _eq_as_313_writes_it(names: tuple[str, ...]) -> Callable[[object, object], object]:
    """The ``__eq__`` Python 3.13's ``dataclass`` generates for ``names``, from the same text."""
    terms = " and ".join(f"self.{name}==other.{name}" for name in names) or "True"
    source = (
        "def __eq__(self, other):\n if self is other:\n  return True\n"
        f" if other.__class__ is self.__class__:\n  return {terms}\n return NotImplemented\n"
    )
    scope: dict[str, Any] = {}
    exec(source, {}, scope)  # noqa: S102 - the oracle: our own text, from drawn identifiers
    made: Callable[[object, object], object] = scope["__eq__"]
    return made


@settings(max_examples=examples(300))
@given(_shapes(), st.data())
def test_the_313_comparison_is_313s_on_any_python(shape: Any, data: st.DataObject) -> None:
    # Python 3.13's dataclass compares field by field (`eq_by_fields`, what `value` uses there);
    # this holds it to that code wherever the suite runs, CI's 3.11 included.
    made, _ = _pair(shape)
    names = shape[1]
    first, second = (made(*values) for values in _two_calls(data, names))
    mine, theirs = eq_by_fields(names), _eq_as_313_writes_it(names)
    for left, right in ((first, second), (first, first), (first, "other")):
        ours, expected = _outcome(lambda: mine(left, right)), _outcome(lambda: theirs(left, right))
        # The very result: ``0`` is not ``False`` here (a chain of ``and`` returns what it met).
        assert (ours[0], type(ours[1]), repr(ours[1])) == (expected[0], type(expected[1]), repr(expected[1]))


def _package_values() -> list[type]:
    """Every class of the package that `value` made by its own path (not ``dataclass`` whole)."""
    found: dict[str, type] = {}
    for module in pkgutil.walk_packages(thrift_fp.__path__, "thrift_fp."):
        if module.name.endswith("__main__"):
            continue  # runs the command line
        try:
            loaded = importlib.import_module(module.name)
        except ImportError:
            continue  # an optional extra that is not installed
        for item in vars(loaded).values():
            if not isinstance(item, type) or "__init__" not in vars(item):
                continue
            # Under the test suite beartype wraps each method (``__wrapped__`` is the method).
            code = getattr(inspect.unwrap(vars(item)["__init__"]), "__code__", None)
            if code is not None and code.co_filename == "<thrift_fp value __init__>":
                found[f"{item.__module__}.{item.__qualname__}"] = item
    return [found[name] for name in sorted(found)]


def test_every_value_class_of_the_package_has_a_dataclasss_constructor() -> None:
    classes = _package_values()
    assert len(classes) > 150  # error values and values alike
    for cls in classes:
        oracle = dataclasses.make_dataclass(cls.__name__, [
            (field.name, field.type, dataclasses.field(default=field.default))
            if field.default is not dataclasses.MISSING else (field.name, field.type)
            for field in dataclasses.fields(cls)
        ], frozen=True, slots=True)
        shape = [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]
        assert shape == [(p.name, p.kind, p.default) for p in inspect.signature(oracle).parameters.values()], cls
        init = inspect.unwrap(vars(cls)["__init__"])
        assert init.__qualname__ == f"{cls.__qualname__}.__init__" and init.__code__.co_qualname == init.__qualname__
        assert set(init.__annotations__) == set(inspect.unwrap(vars(oracle)["__init__"]).__annotations__), cls
        assert getattr(cls, "__dataclass_params__") is FROZEN_PARAMS  # noqa: B009 - set by dataclass, untyped
