"""Which files of the named folders an index run reads: globs, .gitignore, hidden files.

Selection is by gitignore-style patterns (pathspec) matched against each file's path
relative to the folder named: ``include`` (default: the document suffixes we can parse)
picks candidates, ``exclude`` removes files and whole folders, and every ``.gitignore``
inside a named folder applies below its own folder as git applies it (a deeper file's
verdict wins; an ignored folder is not entered). Hidden files and folders (a name starting
with ``.``) are never entered. A file named directly is always taken, whatever the globs.
Entries that cannot be read as files (broken symbolic links, FIFOs, sockets, names that are
not UTF-8) are reported per file, never silently passed over, and never opened.

A run never leaves its roots: a symbolic link whose target is outside every root is listed
(`LinkNotFollowed`) and not read; one inside is followed once, after the plain trees are walked,
so a file keeps the label of its own place and a link to anything already taken (a loop back
to a parent included) is listed instead of read again. Files are keyed by their real path.
"""

from __future__ import annotations

import os
import stat

from pathlib import Path
from typing import Any, Final

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedPathsArg, CheckedStringsArg, EachTuple, as_paths, as_strings, first_not_path
from thrift_fp._value import value
from thrift_fp.sources.contract import InvalidArgument, LinkNotFollowed, PathNotFound, SkippedFile, UnreadableFile

DEFAULT_INCLUDE: Final = ("*.md", "*.markdown", "*.txt", "*.text", "*.rst", "*.html", "*.htm", "*.jsonl")
"""The file patterns an index run reads unless told otherwise (``include=``)."""


@value
class FoundFile:
    """A regular file to read: its absolute ``path`` and the ``label`` its passages are named by."""

    path: Path
    label: str


@value
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

    The plain trees of the roots are walked first; symbolic links met on the way are followed
    afterwards, so a file reachable without a link keeps its own label, and a link only adds
    what nothing else reaches (see `_follow`).

    >>> select_checked((Path("/no/such/folder"),), None, None, True).failure().message
    'no such file or folder: /no/such/folder'
    """
    for given in named:
        if not os.path.lexists(given):
            return Failure(PathNotFound(str(given)))
    walk = _Walk(tuple(given.resolve() for given in named), wanted, unwanted, gitignore)
    for root in walk.roots:
        if root.is_dir():
            walk.tree(root, root, "", {})
        else:
            walk.take(root, root.name)
    while walk.links:
        walk.follow(walk.links.pop(0))
    return Success(Selection(tuple(walk.found.values()), tuple(walk.skipped)))


@value
class _Link:
    # A symbolic link met in a walk: where it is, the label prefix and .gitignore specs of the
    # root it was met under, and its path relative to that root.
    path: Path
    root: Path
    relative: str
    ignores: dict[str, Any]


class _Walk:
    """One selection's explicit state: what was taken (by real path), what was skipped, which
    real folders were walked, and the links still to follow."""

    def __init__(self, roots: tuple[Path, ...], wanted: Any, unwanted: Any, gitignore: bool) -> None:
        self.roots, self.wanted, self.unwanted, self.gitignore = roots, wanted, unwanted, gitignore
        self.found: dict[Path, FoundFile] = {}
        self.skipped: list[SkippedFile] = []
        self.walked: dict[Path, str] = {}  # real folder -> the label it was walked under
        self.links: list[_Link] = []

    def tree(self, root: Path, top: Path, prefix: str, ignores: dict[str, Any]) -> None:
        """Walk the real folder ``top`` (``prefix``: its path relative to ``root``, "" or ending
        in "/"), taking the files the patterns select and queueing the links they select."""
        # Any: pathspec's classes stay unimported until a run needs them.
        import pathspec

        def unreadable(error: OSError) -> None:
            # os.walk would otherwise pass over a folder it cannot list without a word.
            where = str(error.filename or top)
            self.skipped.append(SkippedFile(where, UnreadableFile(where, error.strerror or str(error), error)))

        for directory, folders, names in os.walk(top, onerror=unreadable):
            relative_dir = os.path.relpath(directory, top)
            here = _matchable(prefix + ("" if relative_dir == "." else relative_dir.replace(os.sep, "/") + "/"))
            self.walked.setdefault(Path(directory), f"{root.name}/{here}")
            if self.gitignore and ".gitignore" in names:
                try:
                    lines = Path(directory, ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
                    ignores[here] = pathspec.GitIgnoreSpec.from_lines(lines)
                except OSError as exc:
                    where = str(Path(directory, ".gitignore"))
                    self.skipped.append(SkippedFile(where, UnreadableFile(where, exc.strerror or str(exc))))
            kept = []
            for name in sorted(folders):
                relative = f"{here}{_matchable(name)}/"
                if (name.startswith(".") or self.unwanted.match_file(relative) or _ignored(ignores, relative)
                        or Path(directory, name) in self.walked):
                    continue
                if os.path.islink(Path(directory, name)):
                    self.links.append(_Link(Path(directory, name), root, relative[:-1], ignores))
                else:
                    kept.append(name)
            folders[:] = kept
            for name in sorted(names):
                relative = f"{here}{_matchable(name)}"
                if (name.startswith(".") or not self.wanted.match_file(relative)
                        or self.unwanted.match_file(relative) or _ignored(ignores, relative)):
                    continue
                if os.path.islink(Path(directory, name)):
                    self.links.append(_Link(Path(directory, name), root, relative, ignores))
                else:
                    self.take(Path(directory, name), f"{root.name}/{relative}")

    def follow(self, link: _Link) -> None:
        """Follow one link at most once: its target is read only inside the roots and only when
        no walk has taken it yet (a link to a folder above it is such a folder: no loop)."""
        shown = _shown(link.path)
        target = Path(os.path.realpath(link.path))
        if not os.path.exists(target):
            self.take(link.path, f"{link.root.name}/{link.relative}")  # reported as a broken link
            return
        if not any(target == root or target.is_relative_to(root) for root in self.roots):
            self.skipped.append(SkippedFile(shown, LinkNotFollowed(
                shown, _shown(target), "outside the folders being indexed (name its folder too to index it)")))
            return
        label = f"{link.root.name}/{link.relative}"
        folder = os.path.isdir(target)
        earlier = self.walked.get(target) if folder else (
            found.label if (found := self.found.get(target)) is not None else None)
        if earlier is not None:
            self.skipped.append(SkippedFile(shown, LinkNotFollowed(
                shown, _shown(target), f"already indexed as {earlier}")))
        elif folder:
            self.tree(link.root, target, f"{link.relative}/", link.ignores)
        else:
            self.take(target, label)

    def take(self, path: Path, label: str) -> None:
        _take(path, label, self.found, self.skipped)


def _shown(path: Path) -> str:
    return os.fsencode(path).decode("utf-8", "backslashreplace")


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
    shown = _shown(path)
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
