"""The incremental rules both stores apply to files: what changed, what is gone, which label.

A stored file is unchanged when its size and modification time are the same and it was last
checked more than ``RACY_NS`` after it was modified (a second edit in the same timestamp tick
keeps size and modification time, and only its hash can tell: git's "racy clean" problem).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping, Sequence

from pathlib import Path
from typing import Final

from thrift_fp._value import value
from thrift_fp.sources.documents._walk import FoundFile

# Filesystems with coarse timestamps (FAT: 2 s) can give two edits the same modification time.
RACY_NS: Final = 2_000_000_000
# Both stores keep 64-bit integers: modification times past 2262 (ext4 allows 2446) are stored clamped.
_MIN_NS: Final = -(2**63)
_MAX_NS: Final = 2**63 - 1


def storable_ns(ns: int) -> int:
    """A nanosecond timestamp clamped to a signed 64-bit integer, as both stores keep it.

    >>> storable_ns(5), storable_ns(2**70) == 2**63 - 1
    (5, True)
    """
    return max(_MIN_NS, min(ns, _MAX_NS))


@value
class StoredFile:
    """What a store remembers of an indexed file: its label, tier, stamps and hash."""

    source: str
    trust_tier: str
    mtime_ns: int
    size: int
    sha256: str
    checked_ns: int

    def unchanged(self, stat: os.stat_result, trust_tier: str) -> bool:
        """Whether the file on disk can be skipped: same stamps, not racy, same tier.

        >>> import os, tempfile
        >>> path = tempfile.mktemp(); open(path, "w").close(); os.utime(path, ns=(10**18, 10**18))
        >>> StoredFile("a", "first-party", 10**18, 0, "h", 10**18 + 3 * RACY_NS).unchanged(os.stat(path), "first-party")
        True
        """
        # A run's tier applies to every file it names: another tier re-chunks an unchanged file.
        racy = self.mtime_ns >= self.checked_ns - RACY_NS
        same_file = (self.mtime_ns, self.size) == (storable_ns(stat.st_mtime_ns), stat.st_size)
        return not racy and same_file and self.trust_tier == trust_tier


def gone(roots: Sequence[Path], present: set[str], stored: Mapping[str, StoredFile]) -> set[str]:
    """The stored paths to prune: under a named folder and not selected now, or no longer on disk.

    >>> gone([Path("/nonexistent/docs")], set(), {"/nonexistent/docs/a.md": StoredFile("a", "first-party", 0, 0, "", 0)})
    {'/nonexistent/docs/a.md'}
    """
    resolved = [root.resolve() for root in roots]
    return {
        path
        for path in stored
        if path not in present
        and (any(Path(path) == root or Path(path).is_relative_to(root) for root in resolved)
             or not os.path.lexists(path))
    }


def free_label(labels: Mapping[str, str], item: FoundFile) -> str:
    """The label a new file gets: its own, unless another path holds it (then its full path).

    >>> free_label({"a.md": "/x/a.md"}, FoundFile(Path("/y/a.md"), "a.md"))
    '/y/a.md'
    """
    # Two folders with the same name would give the same label; the later file keeps its full path.
    owner = labels.get(item.label)
    return item.label if owner is None or owner == str(item.path) else str(item.path)


def read_selected(path: Path) -> bytes:
    """The bytes of a selected file, refusing (``OSError``) a file replaced by a symbolic link
    since the selection, or reached through a folder replaced by one: the selection followed
    every link it took to its real path, so a link met now was not vetted against the roots.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()).resolve()
    >>> _ = (folder / "a.md").write_text("alpha")
    >>> read_selected(folder / "a.md")
    b'alpha'
    >>> (folder / "b.md").symlink_to(folder / "a.md")
    >>> read_selected(folder / "b.md")
    Traceback (most recent call last):
    OSError: [Errno 40] Too many levels of symbolic links: ...
    >>> (folder / "sub").symlink_to(folder, target_is_directory=True)
    >>> read_selected(folder / "sub" / "a.md")
    Traceback (most recent call last):
    OSError: [Errno 40] a folder on its path is a symbolic link now: ...
    """
    # O_NOFOLLOW guards the last component, the one a swap between selection and read replaces.
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as opened:
        # A folder on the way may have been swapped for a link too. The selection gave the file's
        # real path: it must still be one (no link on the way now), and still name the file that
        # was opened (a link swapped back after the open names another one).
        if os.path.realpath(path) != os.path.abspath(path) or not os.path.samestat(os.fstat(opened.fileno()), os.stat(path)):
            raise OSError(errno.ELOOP, "a folder on its path is a symbolic link now", str(path))
        return opened.read()
