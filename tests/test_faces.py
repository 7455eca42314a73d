"""Faces name the public API only (issue 37): a name that left a face still imports from it, with
a ``DeprecationWarning`` saying what to do instead, until a later release; nothing in the
repository imports it from there any more; and each face's count is what docs/layout.md says."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tools.face_names import face_counts

ROOT = Path(__file__).resolve().parent.parent
# The eager faces keep (home, advice) per retired name; the lazy faces keep the advice (the home
# is in their table of homes; tests/test_sources_stack.py checks those warnings).
EAGER = ("thrift_fp.thrift", "thrift_fp.records", "thrift_fp.render")
FACES = (*EAGER, "thrift_fp.serve", "thrift_fp.sources", "thrift_fp.sources.postgres")


def _retired(face: str) -> dict[str, str]:
    """Retired name → its home module."""
    module = importlib.import_module(face)
    table = module._RETIRED
    return {name: (value[0] if isinstance(value, tuple) else module._HOMES[name]) for name, value in table.items()}


@pytest.mark.parametrize("face", EAGER)
def test_a_retired_name_still_imports_with_a_warning_saying_what_instead(face: str) -> None:
    module = importlib.import_module(face)
    assert module._RETIRED
    for name, (home, advice) in module._RETIRED.items():
        assert name not in module.__all__ and name not in dir(module) and name not in vars(module)
        with pytest.warns(DeprecationWarning, match=re.escape(f"{face}.{name} is no longer public there: {advice}")) as caught:
            value = getattr(module, name)
        assert value is getattr(importlib.import_module(home), name)
        assert caught[0].filename == __file__  # the warning points at the line that asked
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = module.no_such_name


def test_from_import_of_a_retired_name_warns_at_the_import() -> None:
    with pytest.warns(DeprecationWarning, match="thrift_fp.thrift.turn_tokens is no longer public") as caught:
        from thrift_fp.thrift import turn_tokens  # type: ignore[attr-defined]  # noqa: F401 - retired, on purpose
    assert caught[0].filename == __file__


def _ours(pattern: str) -> list[Path]:
    """The repository's files matching ``pattern``, without hidden folders (a ``.venv`` inside the
    checkout holds other projects' files, some not UTF-8) or built ones."""
    return [
        path for path in sorted(ROOT.glob(pattern))
        if not any(part.startswith(".") or part in ("build", "site") for part in path.relative_to(ROOT).parts)
    ]


def _imports_of(face: str, names: set[str]) -> list[str]:
    found = []
    for path in _ours("*/**/*.py"):
        if path == Path(__file__):
            continue  # the deprecated import above, on purpose
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == face and not node.level:
                found += [f"{path.relative_to(ROOT)}: {alias.name}" for alias in node.names if alias.name in names]
    return found


@pytest.mark.parametrize("face", FACES)
def test_nothing_in_the_repository_imports_a_retired_name_from_its_old_face(face: str) -> None:
    retired = set(_retired(face))
    assert _imports_of(face, retired) == []
    # Nor reaches it as an attribute (``thrift_fp.thrift.turn_tokens``, ``thrift.turn_tokens``).
    short = face.rsplit(".", 1)[1]
    pattern = re.compile(rf"\b(?:{re.escape(face)}|{short})\.({'|'.join(map(re.escape, retired))})\b")
    texts = [*_ours("*/**/*.py"), ROOT / "README.md", *_ours("docs/**/*.md"), *_ours("examples/*")]
    used = [
        f"{path.relative_to(ROOT)}: {match[0]}"
        for path in texts
        if path.is_file() and path.name != "changelog.md" and "tests/test_faces.py" not in str(path)
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert used == []


def _layout_counts() -> dict[str, int]:
    text = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    section = text.split("## Names per face", 1)[1].split("\n## ", 1)[0]
    return {m[1]: int(m[3]) for m in re.finditer(r"^\| `([\w.]+)` \| (\d+) \| (\d+) \|", section, re.MULTILINE)}


def test_docs_layout_counts_the_names_of_each_face_as_they_are() -> None:
    # The four faces this step cut are pinned; the other rows are refreshed by
    # ``python -m tools.face_names`` when their faces change (their own work, not checked here).
    counts = face_counts()
    documented = _layout_counts()
    assert set(documented) == set(counts)
    assert {face: counts[face] for face in FACES} == {face: documented[face] for face in FACES}
