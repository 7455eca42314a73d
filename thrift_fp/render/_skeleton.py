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
from collections.abc import Iterable
from itertools import compress
from operator import not_
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
# For `digit_skeletons`: texts joined by byte 0xFF (never in ASCII text), which survives the
# deletion and becomes the space that keeps two texts' digits apart.
_SEPARATOR: Final = "\xff"
# One bytes.translate does the fold and the drop together: it deletes by the original byte, so it
# deletes every byte that neither is nor folds to a digit (nor is the separator), then maps the rest.
_FOLD_AND_SEPARATE: Final = bytes(0x20 if code == 0xFF else _ASCII_FOLD[code] for code in range(256))
_NOT_FOLDING_TO_DIGITS: Final = bytes(
    code for code in range(256) if code != 0xFF and not 0x30 <= _ASCII_FOLD[code] <= 0x39
)
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


def digit_skeletons(texts: Iterable[str]) -> str:
    """The digit skeletons of ``texts`` joined by spaces, so no two texts' digits join up: a digit
    run of the result lies within one text's skeleton. The ASCII texts (most of a render) take one
    pass over all of them together (one ``bytes.translate`` call in C); the others are reduced one
    by one, after them. Equal, as a set of digit runs, to joining each `digit_skeleton`.

    >>> digit_skeletons(["</doc_12\u200b34>", "5 6", "\uff17", "Il"])   # ASCII first, then the rest
    '56 11 01234 7'
    >>> digit_skeletons([]), digit_skeletons(["", "x"])
    ('', ' ')
    """
    chosen = list(texts)
    plain = list(map(str.isascii, chosen))
    joined = _SEPARATOR.join(compress(chosen, plain)).encode("latin-1")
    skeleton = joined.translate(_FOLD_AND_SEPARATE, _NOT_FOLDING_TO_DIGITS).decode("ascii")
    if all(plain):
        return skeleton
    others = " ".join(map(digit_skeleton, compress(chosen, map(not_, plain))))
    return f"{skeleton} {others}" if any(plain) else others
