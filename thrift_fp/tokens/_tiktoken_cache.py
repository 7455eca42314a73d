"""Which vocabulary files a tiktoken encoding still needs from its cache.

tiktoken's constructors name their vocabulary blobs as string constants. We read
those constants (following helper constructors they call) and look for the
cache files tiktoken would use, so a cache miss is reported before tiktoken
ever tries to download.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import types
from collections.abc import Iterator

import tiktoken.registry


def _cache_dir() -> str | None:
    # Mirrors tiktoken.load.read_file_cached; "" disables tiktoken's cache.
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable] or None
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


_BLOB = re.compile(r"[a-z][a-z0-9+.-]*://\S+")


def _blob_paths(function: object, module: str, seen: set[int]) -> Iterator[str]:
    # Follow only constructors of the same plugin module (o200k_harmony calls o200k_base).
    if not isinstance(function, types.FunctionType) or function.__module__ != module:
        return
    if id(function) in seen:
        return
    seen.add(id(function))
    code = function.__code__
    yield from (c for c in code.co_consts if isinstance(c, str) and _BLOB.fullmatch(c))
    for name in code.co_names:
        yield from _blob_paths(function.__globals__.get(name, None), module, seen)


def missing_vocabulary_files(name: str) -> tuple[str, ...]:
    """Blob paths of ``name`` that are absent from tiktoken's cache."""
    tiktoken.registry.list_encoding_names()  # populates the constructor table
    constructors = tiktoken.registry.ENCODING_CONSTRUCTORS or {}
    constructor = constructors.get(name)
    if constructor is None:
        return ()
    folder = _cache_dir()
    blobs = tuple(dict.fromkeys(_blob_paths(constructor, constructor.__module__, set())))
    if folder is None:
        return blobs
    return tuple(
        blob
        for blob in blobs
        if not os.path.exists(os.path.join(folder, hashlib.sha1(blob.encode()).hexdigest()))
    )
