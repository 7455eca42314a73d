"""The two stores stand apart: the SQLite and the PostgreSQL store (and the dense side of each)
import only what they share (the faces of ``sources/contract``, ``sources/dense``, ``sources/documents``
and ``sources/ranking``), never each other's modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCES = Path(__file__).resolve().parent.parent / "thrift_fp" / "sources"

SQLITE_SIDE = ("thrift_fp.sources.sqlite", "thrift_fp.sources.sqlite._dense")
POSTGRES_SIDE = ("thrift_fp.sources.postgres", "thrift_fp.sources.postgres._errors", "thrift_fp.sources.postgres._dense")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCES.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _side(module: str) -> str | None:
    for name, side in (("sqlite", SQLITE_SIDE), ("postgres", POSTGRES_SIDE)):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in side):
            return name
    return None


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports by name (``from a import b`` counts ``a`` and ``a.b``)."""
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


STORE_FILES = sorted(path for path in SOURCES.rglob("*.py") if _side(_module_name(path)) is not None)


def test_both_sides_are_found() -> None:
    sides = {_side(_module_name(path)) for path in STORE_FILES}
    assert sides == {"sqlite", "postgres"}, sides


@pytest.mark.parametrize("path", STORE_FILES, ids=lambda path: str(path.relative_to(SOURCES)))
def test_a_store_module_imports_nothing_of_the_other_store(path: Path) -> None:
    own = _side(_module_name(path))
    other = {_side(module) for module in _imported(path)} - {None, own}
    assert not other, (path, sorted(module for module in _imported(path) if _side(module) not in (None, own)))
