"""Western European prose in Latin-1 or Windows-1252 is read right or refused, never mis-read.

A sample is a run of consecutive words from one of the real texts in ``tests/legacy_text/``
(French, German, Spanish), saved in an encoding that holds it. The decoder either gives back
exactly that text, or lists the file as undecodable with cp1252 named as one of its readings.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, example, given
from hypothesis import strategies as st
from returns.result import Failure, Success

from thrift_fp.sources import UndecodableText
from thrift_fp.sources.documents import decode_text

LEGACY = Path(__file__).parent.parent / "tests" / "legacy_text"
PROSE = tuple(
    path.read_bytes().decode("cp1252" if ".cp1252." in path.name else "latin-1").split(" ")
    for path in sorted(LEGACY.glob("*.txt"))
)


@st.composite
def western_prose(draw: st.DrawFn) -> tuple[str, str]:
    words = draw(st.sampled_from(PROSE))
    start = draw(st.integers(0, len(words) - 1))
    length = draw(st.integers(1, 40))
    encoding = draw(st.sampled_from(["latin-1", "cp1252"]))
    return " ".join(words[start:start + length]), encoding


def _read_right_or_listed_with_cp1252_named(text: str, encoding: str) -> None:
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        assume(False)  # œ, „ or — has no Latin-1 byte: that text is only ever saved as cp1252
        raise
    assume(not data.isascii())  # plain ASCII is UTF-8, never detected
    match decode_text(data, "sample.txt"):
        case Success(decoded):
            assert decoded.text == text, (decoded.encoding, decoded.text)
        case Failure(error):
            assert isinstance(error, UndecodableText)
            assert "reads as cp1252 (Western European)" in error.message


ACCENTED = tuple(sorted({word for words in PROSE for word in words if not word.isascii()}))


@st.composite
def accented_words(draw: st.DrawFn) -> tuple[str, str]:
    # The hard case for language models: only the accented words, in any order ("añadidura
    # sábados más" reads as Polish in Windows-1250 often enough to fool one detector).
    text = " ".join(draw(st.lists(st.sampled_from(ACCENTED), min_size=1, max_size=30)))
    return text, draw(st.sampled_from(["latin-1", "cp1252"]))


@given(western_prose())
def test_western_prose_is_read_right_or_listed_with_cp1252_named(sample: tuple[str, str]) -> None:
    _read_right_or_listed_with_cp1252_named(*sample)


@given(accented_words())
@example(("—¿Qué —¿Qué —¿Qué", "cp1252"))  # found on a random run: chardet says Greek, charset-normalizer nothing
def test_accented_word_salad_is_read_right_or_listed_with_cp1252_named(sample: tuple[str, str]) -> None:
    _read_right_or_listed_with_cp1252_named(*sample)
