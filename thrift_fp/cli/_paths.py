"""Where the command keeps its files: the per-user cache, and reading FILE or ``-``."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Final

import platformdirs
from returns.result import Failure, Result, Success

from thrift_fp.sources import PathNotFound, SourceError, UnreadableFile, embedded_corpus

CACHE_ENV: Final = "THRIFT_FP_CACHE_DIR"


def cache_dir() -> Path:
    """The per-user cache folder (``$THRIFT_FP_CACHE_DIR`` when set, else platformdirs').

    >>> os.environ[CACHE_ENV] = "/tmp/thrift-fp-cache"
    >>> cache_dir()
    PosixPath('/tmp/thrift-fp-cache')
    >>> del os.environ[CACHE_ENV]
    """
    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else Path(platformdirs.user_cache_dir("thrift-fp", appauthor=False))


def embedded_database() -> Path:
    """The index of this installation's embedded corpus, built on first use inside `cache_dir`.

    The name carries a digest of the corpus folder: installations (venvs, Python versions)
    share the per-user cache, and an index only updates the files under the folder it is
    given, so a shared file would keep serving another installation's corpus.

    >>> embedded_database().name.startswith("embedded-corpus-"), embedded_database().suffix
    (True, '.db')
    """
    digest = hashlib.sha256(os.fsencode(embedded_corpus())).hexdigest()[:16]
    return cache_dir() / f"embedded-corpus-{digest}.db"


def read_input(name: str) -> Result[str, SourceError]:
    """The UTF-8 text of file ``name``, or of standard input for ``-``.

    >>> read_input("/nonexistent").failure().message
    'no such file or folder: /nonexistent'
    """
    if name == "-":
        if sys.stdin is None:  # the process started with descriptor 0 closed
            return Failure(UnreadableFile("standard input", "it is closed"))
        try:
            return Success(sys.stdin.buffer.read().decode("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            return Failure(UnreadableFile("standard input", str(exc), exc))
    path = Path(name)
    if not path.exists():
        return Failure(PathNotFound(name))
    try:
        return Success(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Failure(UnreadableFile(name, str(exc), exc))
