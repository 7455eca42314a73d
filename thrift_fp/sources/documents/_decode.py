"""Bytes of a file to text: UTF-8 first, then a detected encoding, binary data refused.

A file is binary when its first ``BINARY_PROBE`` bytes hold a NUL byte and it does not
start with a UTF-16 or UTF-32 byte-order mark (git's rule). Text that is not UTF-8 is handed
to charset-normalizer (the ``docs`` extra); what it cannot read with confidence is refused
with the first offending byte named, never decoded with replacement characters.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.sources._errors import BinaryFile, UndecodableText

BINARY_PROBE: Final = 8000
_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_WIDE: Final = ["utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_32_be", "utf_32_le"]


@dataclass(frozen=True, slots=True)
class DecodedText:
    """A file's text and the encoding it was read with (``utf-8`` unless detected otherwise)."""

    text: str
    encoding: str


def decode_text(data: bytes, label: str = "<bytes>") -> Result[DecodedText, BinaryFile | UndecodableText]:
    """Decode a file's bytes, or say why they are not text.

    >>> decode_text("naïve".encode()).unwrap()
    DecodedText(text='naïve', encoding='utf-8')
    >>> decode_text(b"GIF89a\\x00\\x01", "logo.gif").failure().message
    'skipped logo.gif: binary data (a NUL byte at offset 6)'
    >>> decode_text(codecs.BOM_UTF16_LE + "hi".encode("utf-16-le")).unwrap().text
    'hi'
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return Success(DecodedText(data.decode(name), name.removesuffix("-sig")))
            except UnicodeDecodeError as exc:
                return Failure(UndecodableText(label, f"starts with a {name} byte-order mark but {exc.reason}"))
    nul = data.find(b"\x00", 0, BINARY_PROBE)
    if nul >= 0:
        return Failure(BinaryFile(label, nul))
    try:
        return Success(DecodedText(data.decode("utf-8"), "utf-8"))
    except UnicodeDecodeError as exc:
        return _detected(data, label, f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not UTF-8")


def _detected(data: bytes, label: str, why: str) -> Result[DecodedText, BinaryFile | UndecodableText]:
    try:
        from charset_normalizer import from_bytes
    except ImportError:
        return Failure(UndecodableText(label, f"{why}; install thrift_fp[docs] to detect its encoding"))
    # Without a byte-order mark and without NUL bytes, text is not UTF-16/32 (short
    # Latin-1 text would otherwise "detect" as UTF-16 and come back as CJK noise).
    best = from_bytes(data, cp_exclusion=_WIDE).best()
    if best is None:
        return Failure(UndecodableText(label, f"{why}, and no other encoding reads it with confidence"))
    return Success(DecodedText(str(best), best.encoding))
