"""Bytes of a file to text: UTF-8 first, then a detected encoding, binary data refused.

A file is binary when its first ``BINARY_PROBE`` bytes hold a NUL byte and it does not
start with a UTF-16 or UTF-32 byte-order mark (git's rule). Text that is not UTF-8 goes to two
detectors (the ``docs`` extra): chardet's language models name an encoding, charset-normalizer
says which readings are free of mess. What they cannot settle is refused with the first
offending byte and the guesses named, never decoded with replacement characters.

Single-byte code pages are the trap: most byte strings read as *some* text in each of them,
and French in Windows-1252 read as Windows-1250 is "crčme brűlée" — plausible letters, wrong
words. So Western European text is read as Western European when the detector says so; another
reading of bytes that also read as plausible Western text is never taken: the file is a listed
problem naming both readings. No amount of text made the statistics safe — two detectors
agreed on "sičge" for French "siège" in a 50-byte mix of French and Spanish — so Central
European files (Windows-1250, ISO-8859-2) come back as problems too: a refusal that names the
encoding costs the user one conversion, a wrong reading costs them every search. Text whose
Windows-1252 reading is no prose (Cyrillic, Greek, Hebrew, ...) is read when both detectors
agree on it.
"""

from __future__ import annotations

import codecs
import unicodedata

from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.contract import BinaryFile, UndecodableText

BINARY_PROBE: Final = 8000
_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_WIDE: Final = ["utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_32_be", "utf_32_le"]
_ALL_ACCENTED: Final = 3
_CHAOS_TIE: Final = 0.01


@value
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
    >>> decode_text("Où est la crème brûlée ? À la française, après le café.".encode("cp1252")).unwrap().text
    'Où est la crème brûlée ? À la française, après le café.'
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
        import chardet
        from charset_normalizer import from_bytes
    except ImportError:
        return Failure(UndecodableText(label, f"{why}; install thrift_fp[docs] to detect its encoding"))
    western = _reading(data, "cp1252")
    guess = chardet.detect(
        data, prefer_superset=False, compat_names=False,
        # The data is not UTF-8, so "utf-8" is a sentinel for "nothing fit" that never decodes it.
        no_match_encoding="utf-8",
    )
    named = guess["encoding"]
    guessed = _reading(data, named) if named is not None else None
    if guessed is not None and guessed == western:
        return Success(DecodedText(guessed, codecs.lookup(str(named)).name))
    # Without a byte-order mark and without NUL bytes, text is not UTF-16/32 (short
    # Latin-1 text would otherwise "detect" as UTF-16 and come back as CJK noise).
    matches = from_bytes(data, cp_exclusion=_WIDE)
    best = matches.best()
    language = guess["language"] or "no language"
    if western is not None and _looks_western(western):
        # Named whatever the detectors say: short Western text can defeat both ("—¿Qué" three
        # times: chardet says Greek, charset-normalizer nothing), and the user must learn its encoding.
        if guessed is not None:
            other = f"as {named} (chardet's guess, {language})"
        elif best is not None:
            other = f"as {best.encoding} (charset-normalizer's guess)"
        else:
            return Failure(UndecodableText(
                label, f"{why}; it reads as cp1252 (Western European), which neither detector confirms:"
                       " save it as UTF-8",
            ))
        return Failure(UndecodableText(
            label, f"{why}; it reads as cp1252 (Western European) and {other}, and statistics cannot tell"
                   " which: save it as UTF-8",
        ))
    if best is None:
        return Failure(UndecodableText(label, f"{why}, and no other encoding reads it with confidence"))
    clean = {
        str(match) for match in matches
        if abs(match.chaos - best.chaos) < _CHAOS_TIE and abs(match.coherence - best.coherence) < _CHAOS_TIE
    }
    agreed = guessed is not None and guessed in clean
    if agreed:
        return Success(DecodedText(str(guessed), codecs.lookup(str(named)).name))
    return Failure(UndecodableText(
        label, f"{why}; the detectors disagree (chardet: {named or 'nothing'}, charset-normalizer: {best.encoding}):"
               " save it as UTF-8",
    ))


def _reading(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def _looks_western(text: str) -> bool:
    """Whether text could be Western European prose: Latin letters, each word mostly plain.

    Cyrillic, Greek, Hebrew or Arabic bytes read as Windows-1252 come out as words made only
    of accented letters ("Áþäæåò"); Western words of three letters or more always hold a plain
    one ("été", "Öl", "añadidura").

    >>> _looks_western("Größe und Übung, à la française"), _looks_western("Áþäæåò îêíà ìèíóñ")
    (True, False)
    """
    run = 0  # the current word's letters, while all of them are accented
    for char in text:
        if char.isascii():
            run = 0
        elif char.isalpha():
            if not unicodedata.name(char, "").startswith("LATIN"):
                return False
            run += 1
            if run >= _ALL_ACCENTED:
                return False
        elif unicodedata.category(char)[0] in "PSZN":
            run = 0
        else:
            return False  # a control or unassigned character is no prose
    return True
