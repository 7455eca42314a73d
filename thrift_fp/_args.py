"""Arguments like Python: the normalising every public boundary applies before its stages run.

Paths are ``str | os.PathLike[str]``; collections are any iterable, stored as tuples; a bare
``str`` (or path) where a collection is expected means a one-item collection, never its
letters. Each public function converts at its boundary, so the stages behind it see one type.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    Each = Iterable
else:

    class _Each:
        """``Each[T]``: to mypy ``Iterable[T]``; to beartype at run time ``Iterable[object]``.

        beartype checks one sampled element of a list, so a wrongly typed element would raise
        only when the draw hits it. A function annotated ``Each[T]`` checks every element itself
        and returns an error value, every time (issue 11); beartype still checks the container.

        >>> Each[int]
        collections.abc.Iterable[object]
        """

        def __getitem__(self, item: object) -> object:
            return Iterable[object]

    Each = _Each()

PathArg = str | os.PathLike[str]
"""What a public function accepts where it needs one path."""

StringsArg = str | Iterable[str]
"""What a public function accepts where it needs strings: one ``str`` is one item."""

CheckedStringsArg = str | Each[str]
"""`StringsArg` for a function that checks every element itself (an error value for a non-str)."""

PathsArg = PathArg | Iterable[PathArg]
"""What a public function accepts where it needs paths: one path is one item."""

_T = TypeVar("_T")


def as_path(value: PathArg) -> Path:
    """``value`` as a ``Path``.

    >>> as_path("notes/a.md"), as_path(Path("b.md"))
    (PosixPath('notes/a.md'), PosixPath('b.md'))
    """
    return Path(value)


def as_paths(values: PathsArg) -> tuple[Path, ...]:
    """``values`` as a tuple of paths; a single path is one item.

    >>> as_paths("docs"), as_paths(["a.md", Path("b")])
    ((PosixPath('docs'),), (PosixPath('a.md'), PosixPath('b')))
    """
    if isinstance(values, str | os.PathLike):
        return (Path(values),)
    return tuple(Path(value) for value in values)


def as_strings(values: StringsArg) -> tuple[str, ...]:
    """``values`` as a tuple of strings; a bare ``str`` is one item, never its letters.

    >>> as_strings("first-party"), as_strings(["a", "b"]), as_strings(x for x in "ab")
    (('first-party',), ('a', 'b'), ('a', 'b'))
    """
    if isinstance(values, str):
        return (values,)
    return tuple(values)


def as_tuple(values: Iterable[_T]) -> tuple[_T, ...]:
    """Any iterable (list, generator, tuple) as a tuple.

    >>> as_tuple([1, 2]), as_tuple(range(2))
    ((1, 2), (0, 1))
    """
    return values if isinstance(values, tuple) else tuple(values)
