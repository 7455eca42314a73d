"""Import boundaries: only thrift_fp.cli uses the CLI libraries; sources uses stdlib sqlite3 + the core."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "thrift_fp"
CLI_ONLY = {"typer", "rich", "platformdirs", "click"}


def _imports(path: Path) -> set[str]:
    """The top-level packages ``path`` imports anywhere (inside functions too)."""
    return _top_packages(ast.walk(ast.parse(path.read_text(), str(path))))


def _top_packages(nodes: Iterable[ast.AST]) -> set[str]:
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_only_the_cli_imports_the_cli_libraries() -> None:
    for path in PACKAGE.rglob("*.py"):
        if "cli" not in path.relative_to(PACKAGE).parts:
            assert not _imports(path) & CLI_ONLY, path


# Imported inside the function that needs them, never at module level (so that --help and --version stay fast).
LAZY_IN_SOURCES = {"pathspec", "markdown_it", "selectolax", "charset_normalizer", "chardet", "snowballstemmer"}
# The dense ranking's runtime (the `dense` extra), imported on first use inside sources/dense/.
LAZY_IN_DENSE = {"numpy", "onnxruntime", "tokenizers"}


def _module_level_imports(path: Path) -> set[str]:
    """The top-level packages ``path`` imports at module level."""
    return _top_packages(ast.parse(path.read_text(), str(path)).body)


def test_sources_uses_only_the_standard_library_returns_and_the_core() -> None:
    allowed = set(sys.stdlib_module_names) | {"returns", "thrift_fp"}
    # The PostgreSQL source (the `postgres` extra) alone may use its driver.
    driver = {"psycopg", "psycopg_pool"}
    for path in (PACKAGE / "sources").rglob("*.py"):
        postgres = path.parent.name == "postgres" or path.name.startswith("_postgres")
        optional = LAZY_IN_SOURCES | (driver if postgres else set()) | (LAZY_IN_DENSE if path.parent.name == "dense" else set())
        assert _imports(path) <= allowed | optional, (path, _imports(path) - allowed)
        assert _module_level_imports(path) <= allowed | (driver if postgres else set()), (
            path, _module_level_imports(path) - allowed,
        )
