"""Writing the files a test indexes: old modification times, so an unchanged file is never "racy"."""

from __future__ import annotations

import os
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
