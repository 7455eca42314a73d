"""How deep a search of an SQLite index ranks densely, and which version of the file it ranks:
what the search and ``ask``'s question child (`thrift_fp.sources.sqlite._ahead`) must agree on,
kept apart from the search's own layers so that the child need not import them (issue 35)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from thrift_fp.sources.dense import DENSE_POOL  # the lazy face: `_scored` alone, not the ranking layer

# The most hits a search takes: SQLite's INTEGER is 64 bits, and a Python list of that many never
# exists; a bound far past any index keeps the arithmetic small.
MAX_LIMIT: Final = 2**31 - 1


def dense_pool(limit: int) -> int:
    """How many passages a search for ``limit`` hits (at most `MAX_LIMIT`) takes from the dense side.

    >>> dense_pool(8), dense_pool(80)
    (50, 80)
    """
    return max(min(limit, MAX_LIMIT), DENSE_POOL)


def file_version(database: Path, model_id: str, dimensions: int) -> tuple[str, str, int, int, int, str, int]:
    """The version of the index file's vectors under the model ``model_id`` (of ``dimensions``
    values): the file's `file_stamp`, and the model.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as held:
    ...     file_version(Path(held.name), "m", 2)[5:]
    ('m', 2)
    """
    return (*file_stamp(database), model_id, dimensions)


def file_stamp(database: Path) -> tuple[str, str, int, int, int]:
    """The index file as it is now: an index run replaces the file by a rename and any write
    changes its mtime, so a new inode, mtime or size is a new version.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as held:
    ...     file_stamp(Path(held.name))[0]
    'sqlite'
    """
    status = os.stat(database)
    return "sqlite", str(database.resolve()), status.st_ino, status.st_mtime_ns, status.st_size
