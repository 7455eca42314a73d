"""Which functions each face hands out beartype-checked in production, found from the package itself.

A face checks its exports when its ``__init__`` calls ``check_public`` or ``lazy_face(...,
check=True)``; the top face (``thrift_fp``) hands out what the faces it names in ``_HOMES``
checked. The names are those of its ``__all__`` that are functions, as ``check_public`` wraps
(under the suite the claw has already checked them, so no wrapper marks them).
"""

from __future__ import annotations

import ast
import functools
import importlib
import types
from collections.abc import Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "thrift_fp"


def module_name(path: Path) -> str:
    """``thrift_fp.a.b`` for ``thrift_fp/a/b.py`` (and for ``thrift_fp/a/b/__init__.py``)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _checks_its_exports(init: Path) -> bool:
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"), str(init))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "check_public":
                return True
            if node.func.id == "lazy_face" and any(
                keyword.arg == "check" and isinstance(keyword.value, ast.Constant) and keyword.value.value is True
                for keyword in node.keywords
            ):
                return True
    return False


def _functions(face: str) -> frozenset[str]:
    module = importlib.import_module(face)
    return frozenset(name for name in module.__all__ if isinstance(getattr(module, name), types.FunctionType))


@functools.cache
def checked_functions() -> Mapping[str, frozenset[str]]:
    """Face → the functions it hands out checked (only faces that hand out some)."""
    inits = sorted(PACKAGE.rglob("__init__.py"))
    checked = {module_name(init): _functions(module_name(init)) for init in inits if _checks_its_exports(init)}
    # A face that re-exports lazily from faces below (``thrift_fp``) hands out their checked forms.
    for init in inits:
        face = module_name(init)
        if face in checked or "_HOMES" not in init.read_text(encoding="utf-8"):
            continue
        module = importlib.import_module(face)
        table = getattr(module, "_HOMES", None)
        if isinstance(table, Mapping):
            relayed = frozenset(
                name for name in module.__all__ if name in checked.get(str(table.get(name)), frozenset())
            )
            if relayed:
                checked[face] = relayed
    return checked
