"""Arguments like Python: the normalising every public boundary applies before its stages run.

Paths are ``str | os.PathLike[str]``; collections are any iterable, stored as tuples; a bare
``str`` (or path) where a collection is expected means a one-item collection, never its
letters. Each public function converts at its boundary, so the stages behind it see one type.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypeVar

_E = TypeVar("_E")

if TYPE_CHECKING:
    Each = Iterable
    EachTuple: TypeAlias = tuple[_E, ...]
    EachSequence = Sequence
    Shaped: TypeAlias = _E
else:

    class _Checked:
        """A container of ``T`` whose elements the consuming code checks one by one: to mypy the
        container of ``T``, to beartype at run time the container of ``object``.

        beartype checks one sampled element, so a wrongly typed element would raise only when the
        draw hits it. A function annotated ``Each[T]`` checks every element itself and returns an
        error value, every time; beartype still checks the container. Behind such a boundary the
        stages say ``EachTuple[T]`` or ``EachSequence[T]`` of the elements it accepted, and
        ``Shaped[T]`` of one such item: for a protocol ``T``, ``isinstance`` no longer sees an
        attribute served by ``__getattr__`` from Python 3.12, where the boundary's reading
        (`thrift_fp.thrift._shape_check`) does.

        >>> Each[int], EachTuple[int], EachSequence[int], Shaped[int]
        (collections.abc.Iterable[object], tuple[object, ...], collections.abc.Sequence[object], <class 'object'>)
        """

        def __init__(self, seen: object) -> None:
            self._seen = seen

        def __getitem__(self, item: object) -> object:
            return self._seen

    Each = _Checked(Iterable[object])
    EachTuple = _Checked(tuple[object, ...])
    EachSequence = _Checked(Sequence[object])
    Shaped = _Checked(object)

PathArg = str | os.PathLike[str]
"""What a public function accepts where it needs one path."""

CheckedStringsArg = str | Each[str]
"""What a public function accepts where it needs strings: one ``str`` is one item; the function
checks every element itself (an error value for a non-str)."""

CheckedPathsArg = PathArg | Each[PathArg]
"""What a public function accepts where it needs paths: one path is one item; the function
checks every element itself (`first_not_path`)."""

_T = TypeVar("_T")


def as_path(value: PathArg) -> Path:
    """``value`` as a ``Path``.

    >>> as_path("notes/a.md"), as_path(Path("b.md"))
    (PosixPath('notes/a.md'), PosixPath('b.md'))
    """
    return Path(value)


def as_paths(values: CheckedPathsArg) -> tuple[Path, ...]:
    """``values`` as a tuple of paths; a single path is one item. It converts and does not check
    (a caller with user data checks each element first, with `first_not_path`).

    >>> as_paths("docs"), as_paths(["a.md", Path("b")])
    ((PosixPath('docs'),), (PosixPath('a.md'), PosixPath('b')))
    """
    if isinstance(values, str | os.PathLike):
        return (Path(values),)
    return tuple(Path(value) for value in values)


def as_strings(values: CheckedStringsArg) -> EachTuple[str]:
    """``values`` as a tuple of strings; a bare ``str`` is one item, never its letters.

    It converts and does not check: a caller with user data checks each element itself
    (e.g. `thrift_fp.sources.contract.checked_tiers`), since beartype would check only a sampled one.

    >>> as_strings("first-party"), as_strings(["a", "b"]), as_strings(x for x in "ab")
    (('first-party',), ('a', 'b'), ('a', 'b'))
    """
    if isinstance(values, str):
        return (values,)
    return tuple(values)


def first_not_path(values: CheckedPathsArg) -> tuple[int, object] | None:
    """The index and value of the first element that is not a path (a ``str``, or an
    ``os.PathLike`` whose ``__fspath__`` gives a ``str``), or None; one path is one element.

    >>> first_not_path("docs") is None, first_not_path(["a", Path("b")]) is None
    (True, True)
    >>> first_not_path(["a", 3, b"c"])
    (1, 3)
    """
    items: Iterable[object] = (values,) if isinstance(values, str | os.PathLike) else values
    for index, value in enumerate(items):
        if isinstance(value, str):
            continue
        try:
            # A user's PathLike may raise, or give bytes, which pathlib refuses.
            spelled = os.fspath(value) if isinstance(value, os.PathLike) else None
        except Exception:  # noqa: BLE001 - any failure of a user's __fspath__ means "not a path"
            spelled = None
        if not isinstance(spelled, str):
            return index, value
    return None


def as_tuple(values: Iterable[_T]) -> tuple[_T, ...]:
    """Any iterable (list, generator, tuple) as a tuple.

    >>> as_tuple([1, 2]), as_tuple(range(2))
    ((1, 2), (0, 1))
    """
    return values if isinstance(values, tuple) else tuple(values)
