"""Which files of the named folders an index run reads: globs, .gitignore, hidden files.

Selection is by gitignore-style patterns (pathspec) matched against each file's path
relative to the folder named: ``include`` (default: the document suffixes we can parse)
picks candidates, ``exclude`` removes files and whole folders, and every ``.gitignore``
inside a named folder applies below its own folder as git applies it (a deeper file's
verdict wins; an ignored folder is not entered). Hidden files and folders (a name starting
with ``.``) are never entered. A file named directly is always taken, whatever the globs.
Entries that cannot be read as files (broken symbolic links, FIFOs, sockets, names that are
not UTF-8) are reported per file, never silently passed over, and never opened.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedPathsArg, CheckedStringsArg, EachTuple, as_paths, as_strings, first_not_path
from thrift_fp.sources._errors import InvalidArgument, PathNotFound, SkippedFile, UnreadableFile

DEFAULT_INCLUDE: Final = ("*.md", "*.markdown", "*.txt", "*.text", "*.rst", "*.html", "*.htm", "*.jsonl")


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A regular file to read: its absolute ``path`` and the ``label`` its passages are named by."""

    path: Path
    label: str


@dataclass(frozen=True, slots=True)
class Selection:
    """The files a run reads, in a stable order, and the entries it could not take."""

    files: tuple[FoundFile, ...]
    skipped: tuple[SkippedFile, ...]


def select_files(
    roots: CheckedPathsArg,
    *,
    include: CheckedStringsArg = DEFAULT_INCLUDE,
    exclude: CheckedStringsArg = (),
    gitignore: bool = True,
) -> Result[Selection, PathNotFound | InvalidArgument]:
    """The files under ``roots`` that an index run reads, with the entries it must skip.

    One path, or one pattern, is one item. An element that is not a path or not a str, and a
    pattern pathspec refuses, are `InvalidArgument` values naming the element.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp()) / "docs"
    >>> (root / "build").mkdir(parents=True)
    >>> for name in ("a.md", "b.html", "c.py", "build/d.md", ".e.md"):
    ...     _ = (root / name).write_text("x")
    >>> _ = (root / ".gitignore").write_text("build/\\n")
    >>> [f.label for f in select_files([root]).unwrap().files]
    ['docs/a.md', 'docs/b.html']
    >>> [f.label for f in select_files([root], include=["*.py", "*.md"], exclude=["a.*"]).unwrap().files]
    ['docs/c.py']
    >>> select_files([root], exclude=["build/", "!"]).failure().message
    "exclude[1] is '!'; expected a gitignore-style pattern (Invalid git pattern: '!')"
    """
    checked = checked_selection(roots, include, exclude)
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    named, wanted, unwanted = checked.unwrap()
    return select_checked(named, wanted, unwanted, gitignore)


def checked_selection(
    roots: CheckedPathsArg, include: CheckedStringsArg, exclude: CheckedStringsArg
) -> Result[tuple[tuple[Path, ...], Any, Any], InvalidArgument]:
    """The roots as paths and the two patterns compiled, once every element is checked (beartype
    checks a sampled element of a list only). ``Any``: pathspec stays unimported until needed.

    >>> checked_selection(["docs", 3], (), ()).failure().message
    'roots[1] is 3; expected a path (a str or an os.PathLike giving a str)'
    """
    stray = first_not_path(roots)
    if stray is not None:
        return Failure(InvalidArgument("roots", stray[0], stray[1], "a path (a str or an os.PathLike giving a str)"))
    specs: list[Any] = []
    for parameter, patterns in (("include", include), ("exclude", exclude)):
        compiled = _spec(parameter, as_strings(patterns))
        if isinstance(compiled, Failure):
            return Failure(compiled.failure())
        specs.append(compiled.unwrap())
    return Success((as_paths(roots), specs[0], specs[1]))


def _spec(parameter: str, patterns: EachTuple[str]) -> Result[Any, InvalidArgument]:
    import pathspec

    elements: tuple[object, ...] = patterns  # not yet known to be str: as_strings does not check
    for index, pattern in enumerate(elements):
        if not isinstance(pattern, str):
            return Failure(InvalidArgument(parameter, index, pattern, "a str (a gitignore-style pattern)"))
    try:
        return Success(pathspec.GitIgnoreSpec.from_lines(patterns))
    except Exception:  # noqa: BLE001 - pathspec's refusal of a user's pattern is a value
        pass
    # Compiled one by one only to name the pattern pathspec refused.
    for index, pattern in enumerate(patterns):
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except Exception as exc:  # noqa: BLE001 - as above
            return Failure(InvalidArgument(parameter, index, pattern, f"a gitignore-style pattern ({exc})"))
    return Failure(InvalidArgument(parameter, 0, patterns, "gitignore-style patterns pathspec accepts together"))


def select_checked(
    named: tuple[Path, ...], wanted: Any, unwanted: Any, gitignore: bool
) -> Result[Selection, PathNotFound]:
    """`select_files` on arguments `checked_selection` produced.

    >>> select_checked((Path("/no/such/folder"),), None, None, True).failure().message
    'no such file or folder: /no/such/folder'
    """
    found: dict[Path, FoundFile] = {}
    skipped: list[SkippedFile] = []
    for given in named:
        if not os.path.lexists(given):
            return Failure(PathNotFound(str(given)))
        root = given.resolve()
        if root.is_dir():
            _walk(root, wanted, unwanted, gitignore, found, skipped)
        else:
            _take(root, root.name, found, skipped)
    return Success(Selection(tuple(found.values()), tuple(skipped)))


def _walk(root: Path, wanted: Any, unwanted: Any, gitignore: bool, found: dict[Path, FoundFile],
          skipped: list[SkippedFile]) -> None:
    # Any: pathspec's classes stay unimported until a run needs them.
    import pathspec

    ignores: dict[str, Any] = {}
    for directory, folders, names in os.walk(root):
        relative_dir = os.path.relpath(directory, root)
        prefix = _matchable("" if relative_dir == "." else relative_dir.replace(os.sep, "/") + "/")
        if gitignore and ".gitignore" in names:
            try:
                lines = Path(directory, ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
                ignores[prefix] = pathspec.GitIgnoreSpec.from_lines(lines)
            except OSError as exc:
                skipped.append(SkippedFile(str(Path(directory, ".gitignore")),
                                           UnreadableFile(str(Path(directory, ".gitignore")), exc.strerror or str(exc))))
        folders[:] = sorted(
            name for name in folders
            if not name.startswith(".")
            and not unwanted.match_file(f"{prefix}{_matchable(name)}/")
            and not _ignored(ignores, f"{prefix}{_matchable(name)}/")
        )
        for name in sorted(names):
            relative = f"{prefix}{_matchable(name)}"
            if name.startswith(".") or not wanted.match_file(relative) or unwanted.match_file(relative):
                continue
            if _ignored(ignores, relative):
                continue
            _take(Path(directory, name), f"{root.name}/{relative}", found, skipped)


def _matchable(name: str) -> str:
    # A non-UTF-8 file name reaches us with lone surrogates (surrogateescape); pathspec's RE2
    # backend cannot encode them, so patterns see the bytes as \xNN escapes instead (_take then
    # reports the name itself as a per-file problem).
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _ignored(ignores: dict[str, Any], relative: str) -> bool:
    verdict = False
    # Shallow to deep: a deeper .gitignore's match (or negation) overrides a shallower one.
    for prefix in sorted(ignores, key=len):
        if relative.startswith(prefix):
            checked = ignores[prefix].check_file(relative[len(prefix):])
            if checked.include is not None:
                verdict = bool(checked.include)
    return verdict


def _take(path: Path, label: str, found: dict[Path, FoundFile], skipped: list[SkippedFile]) -> None:
    shown = os.fsencode(path).decode("utf-8", "backslashreplace")
    try:
        # Paths and labels are SQLite text (UTF-8); other names decode to lone surrogates.
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        skipped.append(SkippedFile(shown, UnreadableFile(shown, "its name is not valid UTF-8; rename it")))
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        skipped.append(SkippedFile(shown, UnreadableFile(shown, "a broken symbolic link (its target does not exist)")))
        return
    except OSError as exc:
        skipped.append(SkippedFile(shown, UnreadableFile(shown, exc.strerror or str(exc), exc)))
        return
    if not stat.S_ISREG(mode):
        skipped.append(SkippedFile(shown, UnreadableFile(shown, "not a regular file (a FIFO, socket or device)")))
        return
    found.setdefault(path, FoundFile(path, label))
