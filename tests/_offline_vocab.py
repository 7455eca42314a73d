"""Test helpers for offline runs: a tiktoken cache seeded from the bundled vocabularies, and a
script prelude that refuses the network.

tiktoken names cache files by the SHA-1 of the vocabulary URL; seeding them lets
tiktoken's *own* constructors run offline so tests can compare against them.
"""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

from thrift_fp.tokens._vocabulary import bundled_vocabulary_bytes

# The start of a script for a fresh interpreter in which every socket call raises (connect,
# lookups, and any socket event the audit hook sees), before anything else is imported.
NETWORK_REFUSED = textwrap.dedent(
    """
    import json, socket, sys

    def refuse(*args, **kwargs):
        raise OSError("network blocked by test")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    def audit(event, args):
        if event.startswith("socket.") and event != "socket.__new__":
            raise OSError("network blocked by test: " + event)

    sys.addaudithook(audit)
    """
)

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
