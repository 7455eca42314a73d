"""``sources/`` is a stack of packages, each entered through its face: a private module is imported
only from inside the package that holds it (or as the home of a function its face checks), the
stack only imports downward, the lazy faces agree with their static imports, and importing one
store loads neither the other store nor its driver (the never-rule of
tests/test_sources_neither_store_imports_the_other.py, at run time)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._checked_faces import checked_functions

PACKAGE = Path(__file__).resolve().parent.parent / "thrift_fp"

# Bottom to top: a subpackage imports only its own modules and the faces below it.
STACK = ("ranking", "dense", "contract", "documents", "sqlite", "postgres")
LEVEL = {"ranking": 0, "dense": 1, "contract": 2, "documents": 3, "sqlite": 4, "postgres": 4}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> Iterator[str]:
    """Every module ``path`` names in an import (``from a import b`` gives ``a`` and ``a.b``),
    at any depth: inside functions and ``TYPE_CHECKING`` blocks too."""
    own = _module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


MODULES = sorted(PACKAGE.rglob("*.py"))


def _private_owner(module: str) -> tuple[str, str] | None:
    """``(private module, the package that holds it)`` for a name inside a private module."""
    parts = module.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[: index + 1]), ".".join(parts[:index])
    return None


def _unchecked_homes(path: Path) -> set[str]:
    """The private modules ``path`` imports only functions from that their package's face checks:
    internal calls take those from their homes, unwrapped (tests/test_internal_calls_unchecked.py)."""
    checked = checked_functions()
    homes = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found = _private_owner(node.module)
            if found and all(alias.name in checked.get(found[1], ()) for alias in node.names):
                homes.add(node.module)
    return homes


def test_no_private_module_is_imported_from_outside_its_package() -> None:
    crossings = set()
    for path in MODULES:
        importer = _module_name(path)
        homes = _unchecked_homes(path)
        for module in _imported(path):
            found = _private_owner(module) if module.startswith("thrift_fp.") else None
            if found and found[0] not in homes and not (importer == found[1] or importer.startswith(found[1] + ".")):
                crossings.add((importer, found[0]))
    assert sorted(crossings) == sorted(_KNOWN_CROSSINGS)


def test_a_home_is_crossed_into_only_for_the_functions_its_face_checks(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from thrift_fp.tokens._encoding import get_encoding\n"
        "from thrift_fp.tokens._encoding import TokenEncoding, get_encoding as again\n"
        "from thrift_fp.sources.sqlite._search import search_ranking\n"
    )
    # A class (not wrapped) comes through the face; the sqlite face checks nothing.
    assert _unchecked_homes(probe) == {"thrift_fp.tokens._encoding"}


# The crossings left besides the homes of checked functions, each for a reason; none may be added.
_KNOWN_CROSSINGS = {
    # Deliberate: `serve` answers initialize before the SDK loads; through the serve face the
    # call would be a beartype-checked wrapper, loading beartype (~50 ms) before the answer.
    ("thrift_fp.cli._serve", "thrift_fp.serve._handshake"),
    # Deliberate: thrift's per-item hot path uses the counts' internals unwrapped; through the
    # tokens face they would be beartype-checked wrappers on every item (DESIGN.md section 1).
    ("thrift_fp.thrift._history", "thrift_fp.tokens._counts"),
    ("thrift_fp.thrift._measure", "thrift_fp.tokens._counts"),
}


def _sources_part(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["thrift_fp", "sources"]:
        return None
    return parts[2] if len(parts) > 2 and parts[2] in LEVEL else "(face)"


SOURCES_FILES = [path for path in MODULES if _sources_part(_module_name(path)) not in (None, "(face)")]


def test_every_subpackage_of_the_stack_is_found() -> None:
    assert {_sources_part(_module_name(path)) for path in SOURCES_FILES} == set(STACK)


@pytest.mark.parametrize("path", SOURCES_FILES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_the_stack_only_imports_downward(path: Path) -> None:
    own = _sources_part(_module_name(path))
    assert own is not None
    upward = []
    for module in _imported(path):
        part = _sources_part(module)
        if part is None or part == own:
            continue
        # The top face (``thrift_fp.sources``) sits above the whole stack; a sibling at the same
        # level (the other store) or above is an upward import.
        if part == "(face)" or LEVEL[part] >= LEVEL[own]:
            upward.append(module)
    assert upward == []


def _type_checking_imports(module: str) -> dict[str, str]:
    """Name → module, for the imports under ``if TYPE_CHECKING:`` in ``module``'s ``__init__``."""
    path = PACKAGE.parent / Path(*module.split(".")) / "__init__.py"
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                found |= {alias.asname or alias.name: statement.module for alias in statement.names}
    return found


@pytest.mark.parametrize(
    "face",
    ["thrift_fp.sources", "thrift_fp.sources.dense", "thrift_fp.sources.sqlite", "thrift_fp.sources.postgres", "thrift_fp.serve"],
)
def test_a_lazy_face_names_each_home_once_and_alike(face: str) -> None:
    module = importlib.import_module(face)
    homes = dict(module._HOMES)
    retired = dict(getattr(module, "_RETIRED", {}))
    assert _type_checking_imports(face) == homes
    # Every export has a home; a home name not exported has left the face (retired): it still
    # imports, with a warning saying where it lives now, and dir() no longer lists it.
    assert set(module.__all__) <= set(homes)
    assert set(homes) - set(module.__all__) == set(retired)
    assert set(module.__all__) <= set(dir(module)) and not set(retired) & set(dir(module))
    for name in homes:
        if face.endswith("postgres") and name not in ("PostgresError", "redact"):
            continue  # the rest load the driver; the subprocess tests below cover them
        if name in retired:
            with pytest.warns(DeprecationWarning, match=re.escape(f"{face}.{name} is no longer public there: {retired[name]}")):
                assert getattr(module, name) is getattr(importlib.import_module(homes[name]), name)
        else:
            assert getattr(module, name) is not None


@pytest.mark.parametrize("face", [f"thrift_fp.sources.{part}" for part in STACK])
def test_each_face_of_the_stack_exports_what_it_lists(face: str) -> None:
    pytest.importorskip("psycopg") if face.endswith("postgres") else None
    module = importlib.import_module(face)
    assert module.__all__, face
    assert [name for name in module.__all__ if not hasattr(module, name)] == []


def _loaded_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code) + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def _of(modules: set[str], prefix: str) -> list[str]:
    return sorted(name for name in modules if name == prefix or name.startswith(prefix + "."))


def test_naming_the_postgres_errors_loads_no_driver_and_no_sqlite_store() -> None:
    loaded = _loaded_after("from thrift_fp.sources.postgres import PostgresError, PostgresExtraMissing, PostgresSourceError")
    assert _of(loaded, "psycopg") == [] and _of(loaded, "psycopg_pool") == []
    assert _of(loaded, "thrift_fp.sources.sqlite") == []


def test_the_postgres_store_loads_no_sqlite_store() -> None:
    pytest.importorskip("psycopg")
    loaded = _loaded_after(
        "from thrift_fp.sources.postgres import assemble, index_paths, open_database, postgres_definition, search_index"
    )
    assert _of(loaded, "psycopg") != []  # the store's own driver, so the check below means something
    assert _of(loaded, "thrift_fp.sources.sqlite") == []


def test_a_search_loads_neither_the_indexer_nor_the_document_parsers() -> None:
    # issue 35: `ask` searches; the parsers and the indexer are ~11 ms of its start it never uses.
    loaded = _loaded_after("from thrift_fp.sources import assemble, search_index, search_ranking; assemble, search_index, search_ranking")
    assert "thrift_fp.sources.sqlite._search" in loaded
    assert _of(loaded, "thrift_fp.sources.documents") == [] and "thrift_fp.sources.sqlite._index" not in loaded


def test_asks_question_child_loads_neither_the_fusion_nor_the_probes() -> None:
    # issue 35: the dense face is lazy, so the child that embeds a question (and `ask`, naming it
    # before the library loads) imports the embedder, not the hybrid ranking or its calibration.
    loaded = _loaded_after("from thrift_fp.sources.dense import EmbedAhead, missing_runtime, use_model_cache")
    assert "thrift_fp.sources.dense._ahead" in loaded
    assert {"thrift_fp.sources.dense._hybrid", "thrift_fp.sources.dense._probes", "thrift_fp.sources.dense._contract"} & loaded == set()


def test_the_sqlite_store_loads_no_postgres_store_and_no_driver() -> None:
    loaded = _loaded_after(
        "from thrift_fp.sources import assemble, fts5_definition, index_paths, search_index\n"
        "import thrift_fp.sources.sqlite"
    )
    assert _of(loaded, "thrift_fp.sources.sqlite") != []
    assert _of(loaded, "thrift_fp.sources.postgres") == []
    assert _of(loaded, "psycopg") == [] and _of(loaded, "psycopg_pool") == []


_LAZY_FACES = (
    "thrift_fp.sources", "thrift_fp.sources.dense", "thrift_fp.sources.sqlite", "thrift_fp.sources.postgres",
    "thrift_fp.serve",
)


def _submodules(face: str) -> set[str]:
    folder = PACKAGE.parent / Path(*face.split("."))
    return {path.stem for path in folder.glob("*.py")} | {path.parent.name for path in folder.glob("*/__init__.py")}


def test_every_import_from_a_lazy_face_names_what_it_exports() -> None:
    # A lazy face binds names on first use; an import of a name it does not export fails only
    # at run time, so every import anywhere in the repository is checked against its __all__.
    root = PACKAGE.parent
    wrong = []
    for path in sorted(root.glob("*/**/*.py")):
        if any(part.startswith(".") or part in ("build", "site") for part in path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in _LAZY_FACES and not node.level:
                exported = set(importlib.import_module(node.module).__all__) | _submodules(node.module)
                wrong += [f"{path.relative_to(root)}: {alias.name}" for alias in node.names if alias.name not in exported]
    assert wrong == []
