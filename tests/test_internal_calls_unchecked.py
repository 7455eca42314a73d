"""Internal calls use the unwrapped functions (DESIGN.md §1, docs/surface.md): the package's own
modules import a function from its home, never from a face that hands it out beartype-checked.
Through the face, each internal call went through the checked wrapper: every `thrift-fp ask`
loaded beartype and built a checker per function it called (about 0.2 s of CPU; issue 35).

A face's ``__init__`` may import a checked name only to export it again."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from tests._checked_faces import PACKAGE, checked_functions, module_name


def _exported(path: Path) -> set[str]:
    """What a face exports (nothing, for any other module); imported only when asked."""
    if path.name != "__init__.py":
        return set()
    return set(importlib.import_module(module_name(path)).__all__)


def _checked_imports(path: Path, checked: dict[str, frozenset[str]]) -> list[str]:
    """Each function ``path`` takes from a face that checks it (at any depth, in functions too),
    and each ``thrift_fp.face.function`` it names as an attribute."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = module_name(path) if path.is_relative_to(PACKAGE) else path.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module in checked:
            found += [
                f"{where}: from {node.module} import {alias.name}"
                for alias in node.names
                if alias.name in checked[node.module] and (alias.asname or alias.name) not in _exported(path)
            ]
        elif isinstance(node, ast.Attribute):
            owner, _, name = ast.unparse(node).rpartition(".")
            if name in checked.get(owner, ()):
                found.append(f"{where}: {owner}.{name}")
    return found


def test_no_module_takes_a_function_from_the_face_that_checks_it() -> None:
    checked = dict(checked_functions())
    # The faces that check, each with its functions: the test would pass vacuously without them.
    assert {"thrift_fp.tokens", "thrift_fp.thrift", "thrift_fp.render", "thrift_fp.sources"} <= set(checked)
    assert "get_encoding" in checked["thrift_fp.tokens"] and "assemble" in checked["thrift_fp.sources"]
    found = [line for path in sorted(PACKAGE.rglob("*.py")) for line in _checked_imports(path, checked)]
    assert found == []


def test_the_check_finds_an_import_through_a_checking_face(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text(
        "def late():\n    from thrift_fp.tokens import TokenCount, get_encoding\n"
        "import thrift_fp.render\nquote = thrift_fp.render.quote_untrusted\n"
        "from thrift_fp.tokens._encoding import get_encoding as fine\n"
    )
    checked = dict(checked_functions())
    found = [line.split(": ", 1)[1] for line in _checked_imports(module, checked)]
    assert found == ["from thrift_fp.tokens import get_encoding", "thrift_fp.render.quote_untrusted"]
