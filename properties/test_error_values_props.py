"""Properties of the one declarative shape of error values (`thrift_fp._errors.ErrorValue`).

Every error class of every layer is declared the same way (a name, fields, a template), so the
laws of a value hold for each of them with any field values, hostile ones included: equal to a
copy built from the same fields, with the same hash, through pickle and copy; frozen; matched by
``case Name(...)`` over its fields in order; printed through its message; a bounded ``repr``.
"""

from __future__ import annotations

import copy
import inspect
import dataclasses
import pickle
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from properties.hostile_strategies import examples, hostile_ints, hostile_text
from tests._unions import union_members
from thrift_fp._errors import ErrorValue
from thrift_fp.adapters._core._errors import AdapterError
from thrift_fp.cli._errors import CliError
from thrift_fp.records import RecordError
from thrift_fp.render import RenderError
from thrift_fp.retrieval import RetrievalError
from thrift_fp.serve._errors import ServeError
from thrift_fp.sources import AssembleError, SourceError
from thrift_fp.sources.dense._errors import DenseError
from thrift_fp.sources.postgres import DatabaseUnreachable, PostgresError
from thrift_fp.thrift import ThriftError
from thrift_fp.tokens import TokenError

_UNIONS: tuple[object, ...] = (
    TokenError, RecordError, RetrievalError, ThriftError, RenderError, SourceError, AssembleError,
    PostgresError, DenseError, CliError, AdapterError, ServeError,
)


# Field values by declared type (the annotations are strings under ``from __future__ import
# annotations``); a class with a field of another type (a nested error, a receipt) is covered by
# its layer's own tests.
# Hostile but short texts: Hypothesis refuses to print a call whose arguments are huge (a long
# text's bounded repr is pinned in tests/test_error_values.py); huge ints are drawn as they are.
_TEXT = hostile_text
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "str": _TEXT,
    "int": hostile_ints,
    "object": st.one_of(_TEXT, hostile_ints, st.none(), st.tuples(hostile_ints)),
    "str | None": st.one_of(st.none(), _TEXT),
    "int | None": st.one_of(st.none(), hostile_ints),
    "tuple[str, ...]": st.lists(hostile_text, max_size=4).map(tuple),
    # A cause is compared by identity (exceptions have no value equality), so one shared instance.
    "BaseException | None": st.sampled_from([None, ValueError("boom")]),
}
_CLASSES = sorted(
    {
        cls
        for union in _UNIONS
        for cls in union_members(union)
        if all(str(field.type) in _VALUES for field in dataclasses.fields(cls))
    },
    key=lambda cls: cls.__name__,
)


def _from_template_alone(cls: type) -> bool:
    """Whether ``cls``'s message is its template over its own fields (no hand-written part)."""
    template = getattr(cls, "message_template", None)
    if template is None or "message" in vars(cls):
        return False
    names = {field.name for field in dataclasses.fields(cls)}
    return all(name is None or name in names for _, name, _, _ in string.Formatter().parse(template))


def test_every_error_class_is_declared_one_way() -> None:
    every = {cls for union in _UNIONS for cls in union_members(union)}
    assert {cls for cls in every if not issubclass(cls, ErrorValue)} == set()
    assert len(_CLASSES) > 80, "most error classes have plain fields; the strategies must cover them"
    assert sum(map(_from_template_alone, _CLASSES)) > 60, "most messages are a template over the fields"


@st.composite
def _declarations(draw: st.DrawFn) -> tuple[type, dict[str, object]]:
    """A class and values for its fields; the test builds the value (under the test suite beartype
    checks the constructor and samples tuples with ``random``, which a strategy must not call)."""
    cls = draw(st.sampled_from(_CLASSES))
    return cls, {field.name: draw(_VALUES[str(field.type)]) for field in dataclasses.fields(cls)}


def _built(declaration: tuple[type, dict[str, object]]) -> ErrorValue:
    cls, fields = declaration
    error = cls(**fields)
    assert isinstance(error, ErrorValue)
    return error


def _fields(error: ErrorValue) -> dict[str, object]:
    return {field.name: getattr(error, field.name) for field in dataclasses.fields(error)}


def _plain(error: ErrorValue) -> dict[str, object]:
    return {
        name: (type(value), value.args) if isinstance(value, BaseException) else value
        for name, value in _fields(error).items()
    }


@settings(max_examples=examples(300))
@given(_declarations())
def test_an_error_value_is_a_value(declaration: tuple[type, dict[str, object]]) -> None:
    error = _built(declaration)
    same = type(error)(**_fields(error))
    assert same == error and hash(same) == hash(error)
    assert copy.copy(error) == error
    for rebuilt in (pickle.loads(pickle.dumps(error)), copy.deepcopy(error)):
        # An exception (a ``cause``) has no value equality: it comes back as an equal-looking copy.
        assert type(rebuilt) is type(error) and _plain(rebuilt) == _plain(error)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(error, next((field.name for field in dataclasses.fields(error)), "extra"), None)
    # Frozen whole: a name that is not a field is refused the same way (not with the TypeError
    # of a slotted dataclass's inherited __setattr__), and so is deleting any attribute.
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(error, "extra", None)
    for field in dataclasses.fields(error):
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(error, field.name)
    error.add_note("the exception machinery still writes its own attributes")
    assert error.__notes__ == ["the exception machinery still writes its own attributes"]


def _as_generated(cls: type) -> type:
    """A frozen dataclass over ``cls``'s fields whose methods ``dataclass`` generates: the oracle
    for the equality and hash error values share (`thrift_fp._errors.ErrorValue`)."""
    return dataclasses.make_dataclass(
        cls.__name__,
        [(field.name, object, dataclasses.field(compare=field.compare, hash=field.hash)) for field in dataclasses.fields(cls)],
        frozen=True,
    )


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[type, dict[str, object], dict[str, object]]:
    """A class, values for its fields, and the same values with one field drawn again (often equal)."""
    cls, fields = draw(_declarations())
    other = dict(fields)
    if fields:
        name = draw(st.sampled_from(sorted(fields)))
        other[name] = draw(_VALUES[str(dataclasses.fields(cls)[list(fields).index(name)].type)])
    return cls, fields, other


@settings(max_examples=examples(300))
@given(_pairs())
def test_an_error_value_compares_and_hashes_as_a_generated_dataclass(
    pair: tuple[type, dict[str, object], dict[str, object]],
) -> None:
    cls, fields, other_fields = pair
    error, other = _built((cls, fields)), _built((cls, other_fields))
    oracle = _as_generated(cls)
    assert (error == other) == (oracle(**fields) == oracle(**other_fields))
    assert hash(error) == hash(oracle(**fields)) and hash(other) == hash(oracle(**other_fields))


@settings(max_examples=examples(300))
@given(_declarations())
def test_an_error_value_is_matched_and_printed_by_its_fields(declaration: tuple[type, dict[str, object]]) -> None:
    error = _built(declaration)
    names = tuple(field.name for field in dataclasses.fields(error))
    assert type(error).__match_args__ == names
    if _from_template_alone(type(error)):
        # A message built from the template alone never raises, whatever the fields hold.
        assert str(error) == error.message and isinstance(error.message, str)
    shown = repr(error)
    assert shown.startswith(f"{type(error).__qualname__}(")
    # Each field is cut to about 200 characters, however long or large the value.
    assert len(shown) < 300 * (len(names) + 1)


@settings(max_examples=examples(100))
@given(reason=hostile_text, url=hostile_text)
def test_a_drivers_reason_is_shown_on_one_line(reason: str, url: str) -> None:
    message = DatabaseUnreachable(url, reason).message
    assert message == f"cannot reach PostgreSQL at {url}: {' '.join(reason.split())}"
    assert not any(line_break in message.removeprefix(f"cannot reach PostgreSQL at {url}") for line_break in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _every_class() -> list[type]:
    return sorted({cls for union in _UNIONS for cls in union_members(union)}, key=lambda cls: cls.__qualname__)


def test_an_error_values_constructor_is_a_generated_dataclasss() -> None:
    # Most classes get an `__init__` compiled once per shape of fields, not `exec`'d per class by
    # `dataclass` (`thrift_fp._value.value_init`): its parameters and defaults must be the same.
    for cls in _every_class():
        oracle = dataclasses.make_dataclass(cls.__name__, [
            (field.name, field.type, dataclasses.field(default=field.default))
            if field.default is not dataclasses.MISSING else (field.name, field.type)
            for field in dataclasses.fields(cls) if field.init
        ], frozen=True)
        # Names, kinds and defaults (beartype, under the suite, resolves the annotations in place).
        shape = [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]
        assert shape == [(p.name, p.kind, p.default) for p in inspect.signature(oracle).parameters.values()], cls
        init, oracle_init = vars(cls)["__init__"], vars(oracle)["__init__"]
        assert set(init.__annotations__) == set(oracle_init.__annotations__), cls
        assert init.__qualname__ == f"{cls.__qualname__}.__init__"
        if not cls.__doc__:
            raise AssertionError(f"{cls.__qualname__} has no docstring")


@settings(max_examples=examples(200))
@given(_declarations())
def test_an_error_value_is_built_alike_by_position_and_by_name(declaration: tuple[type, dict[str, object]]) -> None:
    cls, fields = declaration
    assert cls(*fields.values()) == cls(**fields)
    if fields:
        required = [field.name for field in dataclasses.fields(cls) if field.default is dataclasses.MISSING]
        if required:
            with pytest.raises(TypeError, match=f"missing .*'{required[-1]}'"):
                cls(**{name: value for name, value in fields.items() if name != required[-1]})
        with pytest.raises(TypeError, match="unexpected keyword argument 'not_a_field'"):
            cls(**fields, not_a_field=1)
