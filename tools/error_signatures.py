"""A Griffe extension for the documentation site (mkdocs.yml): an error value's signature.

Error classes are declared through `thrift_fp._errors.ErrorValue`, whose metaclass makes each one a
dataclass (``typing.dataclass_transform``, which mypy reads). Griffe reads source statically and
knows a dataclass only by its ``@dataclass`` line, so without this extension the reference would
show no ``Name(field, ...)`` signature for an error, and none of the fields a class inherits from a
private base that declares fields shared by several errors. This gives each error class the
``__init__`` the dataclass has: its fields in order, inherited ones first, with their defaults.
"""

from __future__ import annotations

from typing import Any

_BASE = "thrift_fp._errors.ErrorValue"

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

    def _set_signatures(obj: griffe.Module | griffe.Class, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        for member in list(obj.members.values()):
            if member.is_alias:
                continue
            if isinstance(member, griffe.Class):
                if "__init__" not in member.members and member.path != _BASE and _is_error_value(member):
                    member.labels.add("dataclass")
                    self_parameter = griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword)
                    member.set_member(
                        "__init__",
                        griffe.Function(
                            "__init__",
                            lineno=0,
                            endlineno=0,
                            parent=member,
                            parameters=griffe.Parameters(self_parameter, *_fields(member)),
                            returns="None",
                        ),
                    )
                _set_signatures(member, seen)
            elif isinstance(member, griffe.Module):
                _set_signatures(member, seen)

    class ErrorValueSignatures(griffe.Extension):
        """Gives every `ErrorValue` class its dataclass ``__init__`` signature."""

        def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            _set_signatures(pkg, set())

        # Griffe 1.x names the same event ``on_package_loaded``.
        def on_package_loaded(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            _set_signatures(pkg, set())
