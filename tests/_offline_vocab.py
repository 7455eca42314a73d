"""Test helper: a tiktoken cache seeded from the bundled vocabularies.

tiktoken names cache files by the SHA-1 of the vocabulary URL; seeding them lets
tiktoken's *own* constructors run offline so tests can compare against them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from thrift_fp.tokens._vocabulary import bundled_vocabulary_bytes

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def seed_tiktoken_cache(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, url in _URLS.items():
        data = bundled_vocabulary_bytes(name).unwrap()
        (folder / hashlib.sha1(url.encode()).hexdigest()).write_bytes(data)
    return folder
