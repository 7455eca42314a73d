"""Command-line values that are plainly what their option declares, taken as they are (issue 35).

typer 0.29 turns every value given on the command line into its option's type through a pydantic
``TypeAdapter``: importing pydantic and typer's adapters and building the first adapter cost a
one-question ``ask`` about 90 ms of CPU, before the command starts — for ``--db PATH`` (a string
already) and the question's words (strings already). A command here is a `QuickCommand`: for an
option of type ``str``, ``list[str]`` or ``int`` (with typer's ``min``/``max``, not ``clamp``), a
value that is already a string, a list of strings, an int, or a plain decimal numeral in range is
taken directly — exactly what typer's adapter returns for it (a property compares the two on
generated values). Anything else (a sign, spaces, another type, a value out of range, every
error and its message) goes to typer's own coercion, which loads pydantic then.

This leans on typer's parameter internals (``_runtime_param``, ``typer._coercion.RuntimeParam``):
where a typer release lacks them, the command coerces as typer does, only slower
(``tests/test_cli_quick_values.py`` notices).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

import typer.core

try:  # typer's internals this leans on (see above); without them every value goes to typer
    from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
except ImportError:  # pragma: no cover - a typer release without them
    RuntimeParam = None  # type: ignore[assignment,misc]  # checked before use

# A decimal numeral Python and pydantic read alike: no sign, space, underscore or leading zero,
# ASCII digits only, well inside a 64-bit int.
_NUMERAL: Final = re.compile(r"0|[1-9][0-9]{0,17}")


class QuickCommand(typer.core.TyperCommand):
    """A typer command whose plain values skip pydantic (see the module's docstring)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        quicken(self.get_params(ctx))  # with --help, which click adds
        return super().parse_args(ctx, args)


def quicken(params: list[Any]) -> None:
    """Give each typer parameter that has no coercion yet the quick one (`QuickValue`)."""
    if RuntimeParam is None:
        return
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if not isinstance(descriptor, TypeDescriptor) or getattr(param, "_runtime_param", False) is not None:
            continue
        kind = plain_kind(descriptor)
        param._runtime_param = QuickValue(descriptor.parameter_info, descriptor.annotation, descriptor, kind)


def plain_kind(descriptor: Any) -> str | None:
    """``"str"``, ``"strs"`` or ``"int"`` for a parameter whose plain values are taken as they are;
    ``None`` for any other (its values all go to typer, but an option not given still costs nothing:
    typer builds its pydantic adapter for every parameter, given or not)."""
    info = descriptor.parameter_info
    if getattr(info, "parser", None) is not None or getattr(info, "click_type", None) is not None:
        return None
    if descriptor.file_annotation is not None or descriptor.is_path or descriptor.is_choice:
        return None
    if descriptor.annotation is str:
        return "str"
    if descriptor.annotation == list[str]:
        return "strs"
    if descriptor.annotation is int and not info.clamp:
        return "int"
    return None


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class QuickValue(RuntimeParam):
        """typer's coercion of one parameter, with plain values taken as they are."""

        descriptor: TypeDescriptor
        kind: str | None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.descriptor.is_list and type(value) in (list, tuple) and not value:
                return []  # a repeatable option not given (click passes an empty tuple)
            if self.kind == "str" and type(value) is str:
                return value
            if self.kind == "strs" and type(value) in (list, tuple) and all(type(item) is str for item in value):
                return list(value)
            if self.kind == "int":
                number = _plain_int(value)
                if number is not None and self._in_range(number):
                    return number
            # typer's own coercion: pydantic, and the error message typer gives.
            return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

        def _in_range(self, number: int) -> bool:
            low, high = self.parameter_info.min, self.parameter_info.max
            return (low is None or number >= low) and (high is None or number <= high)


def _plain_int(value: object) -> int | None:
    if type(value) is int:
        return value
    if type(value) is str and _NUMERAL.fullmatch(value):
        return int(value)
    return None
