"""A verified cache of a vocabulary's parsed ranks, for processes that count once and exit.

Reading a bundled vocabulary costs a one-question ``thrift-fp ask`` about 75 ms of CPU before
tiktoken sees it: gunzip, SHA-256, and base64 decoding of every one of its 100,256 (cl100k) or
199,998 (o200k) lines. The ranks in the form below load in about a third of that. Only an
application that names a folder (`thrift_fp.tokens.use_rank_cache`; the command line gives its
cache folder) has one: the library alone writes no file.

A cache file is trusted only when its SHA-256 is the digest pinned for that vocabulary
(``ranks_sha256`` in `thrift_fp.tokens._vocabulary.BUNDLED`: the digest of this form of the ranks
parsed from the vocabulary that hashes to tiktoken's own pinned SHA-256; a test recomputes the
chain). So a damaged, stale or hostile file is never read as ranks: it is ignored, and the ranks
are read from the verified vocabulary and written again. Counts cannot change through the cache.

The form (all integers little-endian): ``MAGIC``, the number of tokens *n* (4 bytes), each
token's length (*n* × 2 bytes), each token's rank (*n* × 4 bytes), then the tokens' bytes one
after the other, in the vocabulary's order.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile
from array import array
from collections.abc import Callable, Mapping
from itertools import accumulate
from pathlib import Path
from typing import Final

_LOG: Final = logging.getLogger(__name__)

MAGIC: Final = b"thrift-fp ranks 1\n"
# The largest token length and rank the form holds (2 and 4 bytes).
_MAX_LENGTH: Final = 0xFFFF
_MAX_RANK: Final = 0xFFFF_FFFF
# A cache file is read only up to this size (cl100k's is 1.2 MB, o200k's 2.6 MB).
_MAX_FILE_BYTES: Final = 16 * 1024 * 1024

# Where the application keeps its cache (a function, called only when a vocabulary is built);
# empty: no cache, no file written. One slot, replaced by `use_rank_cache`.
_folder: list[Callable[[], Path]] = []


def use_rank_cache(folder: Callable[[], Path] | None) -> None:
    """Keep the parsed ``cl100k_base``/``o200k_base`` vocabularies under ``folder()`` (in
    ``vocabularies/``) from now on, for processes that count once and exit (``None``: stop).
    ``folder`` is called only when an encoding is first built, so naming it costs nothing until
    then. A cache file is read only when it hashes to the digest pinned in the package, so it can
    never change a count; without a folder (the default) counting writes no file.

    >>> import tempfile, pathlib
    >>> use_rank_cache(lambda: pathlib.Path(tempfile.mkdtemp()))
    >>> rank_cache_folder() is not None
    True
    >>> use_rank_cache(None)
    >>> rank_cache_folder() is None
    True
    """
    _folder.clear()
    if folder is not None:
        _folder.append(folder)


def rank_cache_folder() -> Path | None:
    """The folder `use_rank_cache` named (``vocabularies`` inside it), or ``None``."""
    return _folder[0]() / "vocabularies" if _folder else None


def ranks_bytes(ranks: Mapping[bytes, int]) -> bytes | None:
    """``ranks`` in the cache's form (see the module's docstring); ``None`` when a token is longer
    than 65,535 bytes or a rank is outside 0..2³²-1.

    >>> ranks_bytes({b"a": 0, b"bc": 1}).removeprefix(MAGIC).hex(" ")
    '02 00 00 00 01 00 02 00 00 00 00 00 01 00 00 00 61 62 63'
    """
    lengths, values = array("H"), array("I")
    if lengths.itemsize != 2 or values.itemsize != 4:
        return None  # 2 and 4 bytes on every platform CPython supports; checked, not assumed
    try:
        lengths.extend(map(len, ranks))
        values.extend(ranks.values())
    except OverflowError:
        return None
    if any(length > _MAX_LENGTH for length in lengths) or any(value > _MAX_RANK for value in values):
        return None
    if sys.byteorder == "big":
        lengths.byteswap()
        values.byteswap()
    return b"".join((MAGIC, len(ranks).to_bytes(4, "little"), lengths.tobytes(), values.tobytes(), *ranks))


def ranks_from_bytes(data: bytes) -> dict[bytes, int] | None:
    """The ranks ``data`` holds in the cache's form, or ``None`` when it is not in that form.

    >>> ranks_from_bytes(ranks_bytes({b"a": 0, b"bc": 1}))
    {b'a': 0, b'bc': 1}
    >>> ranks_from_bytes(b"not ranks") is None
    True
    """
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        return None
    start = len(MAGIC) + 4
    count = int.from_bytes(data[len(MAGIC):start], "little")
    blob = start + 6 * count
    if blob > len(data):
        return None
    lengths, values = array("H"), array("I")
    if lengths.itemsize != 2 or values.itemsize != 4:
        return None
    lengths.frombytes(data[start:start + 2 * count])
    values.frombytes(data[start + 2 * count:blob])
    if sys.byteorder == "big":
        lengths.byteswap()
        values.byteswap()
    ends = list(accumulate(lengths, initial=blob))
    if ends[-1] != len(data):
        return None
    tokens = [data[begin:end] for begin, end in zip(ends, ends[1:])]
    ranks = dict(zip(tokens, values))
    return ranks if len(ranks) == count else None  # a token twice is not a vocabulary


def cached_ranks(name: str, sha256: str) -> dict[bytes, int] | None:
    """The ranks of ``name`` from the cache, only when its file hashes to ``sha256``; else ``None``.

    >>> use_rank_cache(None)
    >>> cached_ranks("cl100k_base", "0" * 64) is None
    True
    """
    path = _path(name, sha256)
    if path is None:
        return None
    try:
        with path.open("rb") as file:
            data = file.read(_MAX_FILE_BYTES + 1)
    except OSError:
        return None  # no cache yet (or unreadable): the vocabulary is read instead
    if len(data) > _MAX_FILE_BYTES or hashlib.sha256(data).hexdigest() != sha256:
        _LOG.debug("ignoring the damaged or foreign rank cache %s", path)
        return None
    return ranks_from_bytes(data)


def store_ranks(name: str, sha256: str, ranks: Mapping[bytes, int]) -> bool:
    """Write ``ranks`` to the cache when their form hashes to ``sha256`` (so only verified ranks
    are ever written), atomically; whether a file was written. A cache that cannot be written
    (read-only, full) is only a slower next start: nothing is raised.

    >>> use_rank_cache(None)
    >>> store_ranks("x", "0" * 64, {b"a": 0})
    False
    """
    path = _path(name, sha256)
    data = ranks_bytes(ranks)
    if path is None or data is None or hashlib.sha256(data).hexdigest() != sha256:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # A temporary file beside it, then a rename: a reader sees the old file or the whole new one.
        handle, temporary = tempfile.mkstemp(prefix=f".{name}-", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as error:
        _LOG.debug("cannot write the rank cache %s: %s", path, error)
        return False
    return True


def _path(name: str, sha256: str) -> Path | None:
    folder = rank_cache_folder()
    # The digest in the name: another vocabulary of the same name never meets this file.
    return None if folder is None else folder / f"{name}-{sha256[:16]}.ranks"

