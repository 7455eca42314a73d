"""Behind the fit's boundary, no annotation asks beartype to ``isinstance`` a working-set item.

`subtract_to_fit` reads every item's attributes once (`thrift_fp.thrift._shape_check`), and an
object serving them through ``__getattr__`` passes that reading. From Python 3.12 ``isinstance``
against a runtime protocol looks attributes up statically and refuses such an object, so a stage
annotated ``Sequence[RetrievableLike]`` raised under beartype on 3.12 and 3.13 where 3.11 passed.
The stages name the items they were handed as ``EachSequence[...]`` / ``EachTuple[...]`` /
``Each[...]`` (to beartype: containers of ``object``) and one item as ``Shaped[...]``. This reads the annotations, so it holds on
every Python, not only on the one CI runs.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import thrift_fp.thrift
from thrift_fp._args import EachSequence
from thrift_fp.thrift import RetrievableLike, WorkingRetrievable, WorkingSet, _shapes, subtract_to_fit

THRIFT = Path(thrift_fp.thrift.__file__).parent
# Every item protocol of the working set, read from its module, so a new bucket is covered too.
ITEMS = {
    name for name, found in vars(_shapes).items()
    if isinstance(found, type) and found.__module__ == _shapes.__name__ and getattr(found, "_is_protocol", False)
}
WRAPPERS = {"Each", "EachTuple", "EachSequence", "Shaped"}


def _bare_items(annotation: ast.expr) -> list[str]:
    """The item protocols an annotation names outside a checked-container wrapper."""
    found: list[str] = []

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in WRAPPERS:
            return
        if isinstance(node, ast.Name) and node.id in ITEMS:
            found.append(node.id)
        for child in ast.iter_child_nodes(node):
            walk(child)

    walk(annotation)
    return found


def _annotations(tree: ast.Module) -> list[tuple[int, ast.expr]]:
    """Parameter and return annotations, every class field's, and each other annotated
    assignment's whose value is not an empty literal."""
    fields = {
        id(field) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
        for field in node.body if isinstance(field, ast.AnnAssign)
    }
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]
            found += [(node.lineno, argument.annotation) for argument in arguments if argument and argument.annotation]
            if node.returns is not None:
                found.append((node.lineno, node.returns))
        elif isinstance(node, ast.AnnAssign) and (
            id(node) in fields or (node.value is not None and not _empty(node.value))
        ):
            found.append((node.lineno, node.annotation))
    return found


def _empty(value: ast.expr) -> bool:
    # ``kept: list[RetrievableLike] = []``: beartype checks the empty list it is bound to, no item.
    return isinstance(value, ast.List | ast.Tuple | ast.Set) and not value.elts


def test_no_stage_behind_the_boundary_checks_an_item_by_protocol() -> None:
    assert ITEMS == {"MessageLike", "MemoryLike", "RetrievableLike", "ThoughtLike", "ToolCallLike", "ImageLike", "ToolLike"}
    bare = [
        f"{path.relative_to(THRIFT.parent)}:{line}: {name}"
        for path in sorted(THRIFT.rglob("*.py"))
        if path.name != "_shapes.py"  # the protocols themselves, and the plain items that have them
        for line, annotation in _annotations(ast.parse(path.read_text(encoding="utf-8")))
        for name in _bare_items(annotation)
    ]
    assert bare == []


def test_the_scan_sees_a_bare_protocol() -> None:
    tree = ast.parse(
        "def f(a: Sequence[RetrievableLike], b: EachSequence[MessageLike]) -> tuple[ToolLike, ...]: ...\n"
        "class C:\n    items: tuple[MemoryLike, ...] = ()\n    image: Shaped[ImageLike] | ImageLike\n"
        "kept: list[ThoughtLike] = []\n"
    )
    assert sorted(name for _, annotation in _annotations(tree) for name in _bare_items(annotation)) == [
        "ImageLike", "MemoryLike", "RetrievableLike", "ToolLike",
    ]


class _Served:
    """An item whose attributes ``__getattr__`` serves: a proxy, a lazy ORM row, a mock."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__["fields"] = fields

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


def test_an_item_served_by_getattr_is_fitted_as_any_other() -> None:
    served = _Served(content="alpha beta gamma", id="r1", score=0.9)
    plain = WorkingRetrievable("delta", id="r2", score=0.1)
    fitted = subtract_to_fit(WorkingSet(system_prompt="Be brief.", retrievables=(served, plain)), 1_000).unwrap()
    assert [item.content for item in fitted.working_set.retrievables] == ["alpha beta gamma", "delta"]
    assert fitted.working_set.retrievables[0] is served


@pytest.mark.parametrize("item", [_Served(content="x"), WorkingRetrievable("x")])
def test_a_checked_sequence_is_a_sequence_of_anything_to_beartype(item: object) -> None:
    from beartype.door import is_bearable

    hint: Any = EachSequence[RetrievableLike]
    assert is_bearable((item, 3), hint) and not is_bearable(3, hint)
