"""Command-line values taken as they are equal typer's own coercion of them (issue 35).

`thrift_fp.cli._coercion.QuickValue` skips typer's pydantic adapter for plain values; for any
value, on every parameter of every command, it must give what typer gives: the same value of the
same type, or the same refusal with the same message.
"""

from __future__ import annotations

from typing import Any

import pytest
import typer.main
from hypothesis import given
from hypothesis import strategies as st
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from thrift_fp.cli import app
from thrift_fp.cli._coercion import QuickValue, plain_kind

_GROUP = typer.main.get_command(app)
_PARAMS = [
    (name, param)
    for name, command in sorted(_GROUP.commands.items())  # type: ignore[attr-defined]  # a group
    for param in command.params
    if plain_kind(param.type_descriptor) is not None
]

_NUMERALS = st.one_of(
    st.integers(-10**20, 10**20).map(str),
    st.from_regex(r"\A[ +\-]?0*[0-9]{1,20}[ ]?\Z"),
    st.sampled_from(["", " ", "0", "00", "-0", "+1", "1_000", "1.0", "1e3", "٣", "１２", "0x10", "9" * 19, "9" * 18]),
)
_VALUES = st.one_of(
    st.text(max_size=20),
    _NUMERALS,
    st.integers(-10**6, 10**20),
    st.booleans(),
    st.lists(st.one_of(st.text(max_size=8), _NUMERALS), max_size=4).map(tuple),
    st.lists(st.text(max_size=8), max_size=4),
    st.floats(allow_nan=False),
)


def _outcome(how: Any, value: object, param: Any, ctx: Context) -> tuple[str, object]:
    try:
        got = how._coerce_value(value, param=param, ctx=ctx)
    except BadParameter as refused:
        return "refused", refused.format_message()
    return type(got).__name__, got


@pytest.mark.parametrize(("command", "param"), _PARAMS, ids=[f"{c}-{p.name}" for c, p in _PARAMS])
@given(value=_VALUES)
def test_a_value_taken_as_it_is_equals_typers_coercion(command: str, param: Any, value: object) -> None:
    descriptor = param.type_descriptor
    quick = QuickValue(descriptor.parameter_info, descriptor.annotation, descriptor, plain_kind(descriptor))
    ctx = Context(_GROUP.commands[command])  # type: ignore[attr-defined]  # a group
    assert _outcome(quick, value, param, ctx) == _outcome(build_runtime_param(descriptor), value, param, ctx)


_ALL = [
    (name, param)
    for name, command in sorted(_GROUP.commands.items())  # type: ignore[attr-defined]  # a group
    for param in command.params
    if hasattr(param, "type_descriptor")
]


@pytest.mark.parametrize(("command", "param"), _ALL, ids=[f"{c}-{p.name}" for c, p in _ALL])
@pytest.mark.parametrize("value", [None, (), []])
def test_an_option_not_given_is_what_typer_makes_of_it(command: str, param: Any, value: object) -> None:
    # Every parameter gets the quick coercion, so that one not given builds no pydantic adapter.
    descriptor = param.type_descriptor
    quick = QuickValue(descriptor.parameter_info, descriptor.annotation, descriptor, plain_kind(descriptor))
    ctx = Context(_GROUP.commands[command])  # type: ignore[attr-defined]  # a group
    typers = build_runtime_param(descriptor)
    try:
        expected: tuple[str, object] = ("value", typers.coerce(value, param=param, ctx=ctx))
    except BadParameter as refused:
        expected = ("refused", refused.format_message())
    try:
        got: tuple[str, object] = ("value", quick.coerce(value, param=param, ctx=ctx))
    except BadParameter as refused:
        got = ("refused", refused.format_message())
    assert got == expected
