"""Writing the files a test indexes: old modification times, so an unchanged file is never "racy"."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

OLD: Final = 1_000_000_000.0  # a modification time far from "now": never racy


def write_old(path: Path, data: str | bytes, mtime: float = OLD) -> Path:
    """Write ``data`` (text as UTF-8) to ``path``, making its folders, modified at ``mtime``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_old(Path(folder) / "a" / "b.md", "# B")
    ...     written.read_text(), written.stat().st_mtime == OLD
    ('# B', True)
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


def write_old_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """``root`` holding ``files`` (a relative path each, to text or bytes), each by `write_old`.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     root = write_old_tree(Path(folder) / "docs", {"a.md": "# A", "b/c.txt": b"c"})
    ...     sorted(str(p.relative_to(root)) for p in root.rglob("*.*")), (root / "a.md").stat().st_mtime == OLD
    (['a.md', 'b/c.txt'], True)
    """
    for name, data in files.items():
        write_old(root / name, data)
    return root
