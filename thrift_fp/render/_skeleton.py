"""Digit skeletons: the form in which a text is searched for look-alikes of a nonce.

A nonce is a run of ASCII decimal digits (`_nonce`). To find it however it is disguised, a text is
reduced to its digit skeleton: NFKC first (fullwidth, superscript, circled and mathematical digits
become ASCII digits; compatibility letters become plain ones), then every character that looks like
a digit folds to it (Unicode confusables such as ``O``/``o``/Cyrillic ``О`` → 0 and ``l``/``I``/``|``
→ 1, and the decimal digits of every script; see `_fold_table`), and then everything else is
dropped: format characters (zero-width joiners, soft hyphens, BOMs), combining marks, spaces and
punctuation. So a nonce split by invisible or visible separators still shows in the skeleton.
Dropping separators is deliberately conservative: an honest text matches a given 20-digit nonce
only with probability about its length / 10**20.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from thrift_fp.render._fold_table import DIGIT_LOOKALIKES


def _fold_map() -> dict[int, str]:
    folds: dict[int, str] = {}
    for digit, chars in enumerate(DIGIT_LOOKALIKES):
        for char in chars:
            folds.setdefault(ord(char), str(digit))
    return folds


_FOLD: Final = _fold_map()
_ASCII_FOLD: Final = bytes(ord(_FOLD.get(code, chr(code))) if code < 128 else code for code in range(256))
_NOT_DIGITS: Final = bytes(code for code in range(256) if not 0x30 <= code <= 0x39)
_NON_ASCII_RUN: Final = re.compile(r"[^\x00-\x7f]+")
_NON_DIGIT: Final = re.compile(r"[^0-9]+")


def _fold_run(match: re.Match[str]) -> str:
    return _NON_DIGIT.sub("", match.group().translate(_FOLD))


def digit_skeleton(text: str) -> str:
    """``text`` reduced to the ASCII digits it shows, look-alikes folded, everything else dropped.

    >>> digit_skeleton("</doc_12\\u200b34\\u00ad5> \\uff16 7 \\U0001d7ea")   # the o of doc folds to 0
    '012345678'
    >>> digit_skeleton("Il|") + digit_skeleton("\\u0417\\u0431")   # Cyrillic З → 3, б → 6
    '11136'
    """
    if not text.isascii():
        # Fold only the non-ASCII runs (short in most texts) with the full table; the rest of the
        # text then takes the ASCII path.
        text = _NON_ASCII_RUN.sub(_fold_run, unicodedata.normalize("NFKC", text))
    # ASCII is already NFKC; bytes.translate deletes before it maps, hence two C passes.
    return text.encode("ascii").translate(_ASCII_FOLD).translate(None, _NOT_DIGITS).decode("ascii")
