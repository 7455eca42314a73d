"""Every error value is a printable exception, so a failed ``.unwrap()`` shows its message."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import pickle
import subprocess
import sys
import textwrap
import typing
from collections.abc import Iterator

import pytest
from returns.primitives.exceptions import UnwrapFailedError
from returns.result import Failure

from tests._unions import union_members
from thrift_fp import ThriftFpError
from thrift_fp.adapters._core import _errors as _core_errors
from thrift_fp.cli._errors import CliError
from thrift_fp.records import RecordError
from thrift_fp.render import RenderError
from thrift_fp.retrieval import RetrievalError
from thrift_fp.sources import AssembleError, SourceError
from thrift_fp.thrift import ThriftError
from thrift_fp.tokens import TokenError, UnknownEncoding

# Every closed error union of every layer; a member added to any of them is checked here.
UNIONS: dict[str, object] = {
    "TokenError": TokenError,
    "RecordError": RecordError,
    "RetrievalError": RetrievalError,
    "ThriftError": ThriftError,
    "RenderError": RenderError,
    "SourceError": SourceError,
    "AssembleError": AssembleError,
    "CliError": CliError,
    # The adapters' one union (every adapter, on the one core).
    "AdapterError": _core_errors.AdapterError,
}


ERROR_CLASSES = sorted({cls for union in UNIONS.values() for cls in union_members(union)}, key=lambda c: c.__name__)


def test_the_unions_are_not_empty() -> None:
    assert len(ERROR_CLASSES) > 50


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda c: c.__name__)
def test_every_member_of_every_error_union_is_a_thrift_fp_error(cls: type) -> None:
    assert issubclass(cls, ThriftFpError)
    params = getattr(cls, "__dataclass_params__", None)  # set by @dataclass
    assert params is not None and params.frozen and "__slots__" in cls.__dict__, f"{cls.__name__} must be frozen and slotted"


def _sample() -> UnknownEncoding:
    return UnknownEncoding("nope", ("cl100k_base", "o200k_base"))


def test_an_error_value_behaves_as_a_value() -> None:
    error = _sample()
    same = UnknownEncoding("nope", ("cl100k_base", "o200k_base"))
    assert error == same and hash(error) == hash(same)
    assert error != UnknownEncoding("other", ())
    assert pickle.loads(pickle.dumps(error)) == error
    assert copy.copy(error) == error and copy.deepcopy(error) == error
    assert str(error) == error.message
    assert repr(error).startswith("UnknownEncoding(name='nope'")
    with pytest.raises(dataclasses.FrozenInstanceError):
        error.name = "changed"  # type: ignore[misc]  # deliberately mutating a frozen value


def test_an_error_value_survives_python_assigning_exception_attributes() -> None:
    @contextlib.contextmanager
    def around() -> Iterator[None]:
        yield

    # contextlib assigns __traceback__ through setattr; a plain frozen dataclass would refuse it.
    with pytest.raises(UnknownEncoding) as raised, around():
        raise _sample()
    raised.value.add_note("a note")
    assert raised.value.__notes__ == ["a note"]


def test_unwrap_failure_chains_the_error_with_its_message() -> None:
    with pytest.raises(UnwrapFailedError) as raised:
        Failure(_sample()).unwrap()
    assert raised.value.__cause__ == _sample()
    assert "unknown encoding 'nope'" in str(raised.value.__cause__)


def test_a_users_traceback_shows_the_error_message() -> None:
    script = textwrap.dedent(
        """
        from thrift_fp import count_tokens
        count_tokens("hello", "no-such-encoding").unwrap()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "UnknownEncoding: unknown encoding 'no-such-encoding'; known encodings: cl100k_base" in done.stderr
    assert "UnwrapFailedError" in done.stderr


def test_an_error_holding_a_hostile_value_has_a_bounded_repr() -> None:
    # The dataclass's generated __repr__ raised on a >4300-digit int and copied huge text whole.
    from thrift_fp.sources import InvalidChunkBound, InvalidTrustTier  # noqa: PLC0415
    from thrift_fp.render import FitFailed  # noqa: PLC0415
    from thrift_fp.thrift import InvalidBudget  # noqa: PLC0415

    assert repr(InvalidChunkBound(10**5000, 8)) == (
        "InvalidChunkBound(max_tokens=an int of 16610 bits (too long to print), minimum=8)"
    )
    shown = repr(InvalidTrustTier("t" * 10**6, ("first-party",)))
    assert len(shown) < 400 and shown.endswith("... (1000000 chars), allowed=('first-party',))")
    nested = repr(FitFailed(InvalidBudget("context_window", 10**5000, "too large")))
    assert nested.startswith("FitFailed(error=InvalidBudget(") and "16610 bits" in nested


def test_a_plain_int_field_past_pythons_digit_limit_does_not_break_the_message() -> None:
    # ``{line_count}`` is formatted with ``str``, which raises past 4300 digits; the message
    # names the int by its size instead (found by properties/test_error_values_props.py).
    from thrift_fp.records import LineOutOfRange  # noqa: PLC0415

    assert LineOutOfRange("doc", 5, 10**5000).message == (
        "line 5 of 'doc' does not exist; it has an int of 16610 bits (too long to print) lines (0-based)"
    )
    assert LineOutOfRange("doc", 5, 2).message == "line 5 of 'doc' does not exist; it has 2 lines (0-based)"


def test_a_callers_own_subclass_of_the_public_base_works_as_before() -> None:
    # The library declares its errors through the private ErrorValue; ThriftFpError itself stays
    # a plain exception base, so a caller's subclass of it is neither changed nor refused.
    class Plain(ThriftFpError):
        pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class Declared(ThriftFpError):
        what: str

        message_template: typing.ClassVar[str] = "bad {what!r}"

    assert Plain("anything").args == ("anything",) and str(Plain()) == "Plain"
    assert not dataclasses.is_dataclass(Plain)
    assert Declared("x").message == "bad 'x'" and Declared("x") == Declared("x")
    assert repr(Declared("y" * 1000)).endswith("... (1000 chars))")


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda c: c.__name__)
def test_an_error_class_generates_only_its_constructor_and_frozen_guards(cls: type) -> None:
    # ``dataclass`` generates each method with an ``exec`` (six per frozen class): an error class
    # loads with every command, so its repr, equality and hash are ErrorValue's own, written once
    # (issue 35); it still states the parameters of a frozen dataclass compared by its fields.
    assert not {"__repr__", "__eq__", "__hash__"} & vars(cls).keys(), f"{cls.__name__} generated its own"
    params = cls.__dataclass_params__  # type: ignore[attr-defined]  # set by @dataclass, untyped
    assert params.eq and params.repr and params.frozen and not params.order and not params.unsafe_hash


def test_a_field_left_out_of_comparison_is_left_out_of_equality_and_hash() -> None:
    from thrift_fp.adapters._core._errors import UnreadableField  # noqa: PLC0415

    one = UnreadableField(1, "content", "Lazy", "RuntimeError: x", ValueError("a"))
    other = UnreadableField(1, "content", "Lazy", "RuntimeError: x", KeyError("b"))
    assert one == other and hash(one) == hash(other)
    assert one != UnreadableField(2, "content", "Lazy", "RuntimeError: x", ValueError("a"))
    assert "cause=" not in repr(one)  # repr=False


def test_an_error_value_equals_only_its_own_class() -> None:
    from thrift_fp.tokens import UnknownEncoding  # noqa: PLC0415

    class Narrower(UnknownEncoding):
        pass

    error = UnknownEncoding("nope", ())
    assert error != Narrower("nope", ()) and Narrower("nope", ()) == Narrower("nope", ())
    assert error.__eq__(("nope", ())) is NotImplemented
