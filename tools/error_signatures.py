"""Griffe extensions for the documentation site (mkdocs.yml): the signatures of error values and
of value classes.

Error classes are declared through `thrift_fp._errors.ErrorValue`, whose metaclass makes each one a
dataclass (``typing.dataclass_transform``, which mypy reads). Griffe reads source statically and
knows a dataclass only by its ``@dataclass`` line, so without this extension the reference would
show no ``Name(field, ...)`` signature for an error, and none of the fields a class inherits from a
private base that declares fields shared by several errors. This gives each error class the
``__init__`` the dataclass has: its fields in order, inherited ones first, with their defaults.

Value classes are declared ``@value`` (`thrift_fp._value.value`), a dataclass that Griffe does not
know by that line either; `ValueSignatures` reads their fields as Griffe's own dataclass support
reads a ``@dataclass``'s (``field(default=...)``, ``field(default_factory=...)``, ``init=False``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_BASE = "thrift_fp._errors.ErrorValue"
_VALUE = "thrift_fp._value.value"
_FIELD = "dataclasses.field"

try:
    import griffe
except ImportError:  # the site extra is not installed: signatures are only needed to build the site
    pass
else:

    def _is_error_value(cls: griffe.Class) -> bool:
        try:
            return any(parent.path == _BASE for parent in cls.mro())
        except ValueError:  # a base Griffe cannot resolve
            return False

    def _fields(cls: griffe.Class) -> list[griffe.Parameter]:
        fields: dict[str, griffe.Parameter] = {}
        # The fields are declared by the error classes themselves and their private bases, never
        # by `ErrorValue`, `ThriftFpError` or ``Exception``.
        for owner in [*reversed(cls.mro()), cls]:
            if owner.path == _BASE or not _is_error_value(owner):
                continue
            for member in owner.members.values():
                if member.is_alias or not isinstance(member, griffe.Attribute) or member.annotation is None:
                    continue
                if "property" in member.labels or member.name.startswith("_") or "ClassVar" in str(member.annotation):
                    continue
                # A name declared again keeps its first place, as in a dataclass.
                fields[member.name] = griffe.Parameter(
                    member.name,
                    annotation=member.annotation,
                    kind=griffe.ParameterKind.positional_or_keyword,
                    default=member.value,
                )
        return list(fields.values())

    def _set_signatures(
        obj: griffe.Module | griffe.Class,
        seen: set[str],
        chosen: Callable[[griffe.Class], bool],
        fields: Callable[[griffe.Class], list[griffe.Parameter]],
    ) -> None:
        """Give each ``chosen`` class under ``obj`` without an ``__init__`` of its own the one its
        dataclass has (``fields`` in order) and the ``dataclass`` label."""
        if obj.path in seen:
            return
        seen.add(obj.path)
        for member in list(obj.members.values()):
            if member.is_alias:
                continue
            if isinstance(member, griffe.Class):
                if "__init__" not in member.members and chosen(member):
                    member.labels.add("dataclass")
                    self_parameter = griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword)
                    member.set_member(
                        "__init__",
                        griffe.Function(
                            "__init__",
                            lineno=0,
                            endlineno=0,
                            parent=member,
                            parameters=griffe.Parameters(self_parameter, *fields(member)),
                            returns="None",
                        ),
                    )
                _set_signatures(member, seen, chosen, fields)
            elif isinstance(member, griffe.Module):
                _set_signatures(member, seen, chosen, fields)

    def _error_class(cls: griffe.Class) -> bool:
        return cls.path != _BASE and _is_error_value(cls)

    class ErrorValueSignatures(griffe.Extension):
        """Gives every `ErrorValue` class its dataclass ``__init__`` signature."""

        def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            _set_signatures(pkg, set(), _error_class, _fields)

        # Griffe 1.x names the same event ``on_package_loaded``.
        def on_package_loaded(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            _set_signatures(pkg, set(), _error_class, _fields)

    def _is_value(cls: griffe.Class) -> bool:
        return any(
            isinstance(decorator.value, griffe.Expr) and decorator.value.canonical_path == _VALUE
            for decorator in cls.decorators
        )

    def _field_arguments(attribute: griffe.Attribute) -> dict[str, Any] | None:
        """The keyword arguments of ``field(...)`` when it is the attribute's value, else ``None``."""
        value = attribute.value
        if isinstance(value, griffe.ExprCall) and value.canonical_path == _FIELD:
            return {
                argument.name: argument.value
                for argument in value.arguments
                if isinstance(argument, griffe.ExprKeyword)
            }
        return None

    def _value_fields(cls: griffe.Class) -> list[griffe.Parameter]:
        parameters = []
        for member in cls.members.values():
            if member.is_alias or not isinstance(member, griffe.Attribute) or member.annotation is None:
                continue
            # A property or a ``ClassVar`` (Griffe unwraps it: a class attribute only) is no field.
            if "property" in member.labels or (
                "class-attribute" in member.labels and "instance-attribute" not in member.labels
            ):
                continue
            arguments = _field_arguments(member)
            if arguments is not None and str(arguments.get("init")) == "False":
                continue
            if arguments is not None and "default_factory" in arguments:
                default: str | griffe.Expr | None = griffe.ExprCall(function=arguments["default_factory"], arguments=[])
            else:
                default = member.value if arguments is None else arguments.get("default")
            parameters.append(griffe.Parameter(
                member.name, annotation=member.annotation, kind=griffe.ParameterKind.positional_or_keyword,
                default=default, docstring=member.docstring,
            ))
        return parameters

    class ValueSignatures(griffe.Extension):
        """Gives every ``@value`` class its dataclass label and ``__init__`` signature."""

        def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            _set_signatures(pkg, set(), _is_value, _value_fields)

        # Griffe 1.x names the same event ``on_package_loaded``.
        def on_package_loaded(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            _set_signatures(pkg, set(), _is_value, _value_fields)
