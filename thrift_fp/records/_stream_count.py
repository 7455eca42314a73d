"""Counting a spooled body's tokens without holding the body: chunks cut where counts add up.

tiktoken first splits text into pieces with a regular expression, then runs BPE inside each
piece, so counting two chunks separately gives the whole-text count exactly when no piece spans
the cut. For the patterns of ``gpt2``/``r50k_base``/``p50k_*``, ``cl100k_base`` and ``o200k_*``, a
cut right after a ``'\\n'`` is such a place when the character before that ``'\\n'`` is not
whitespace and the character after it is neither whitespace nor ``'/'`` (o200k's punctuation
piece ``?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*`` would carry ``'.\\n/'`` across). ``str.isspace`` is wider than
the patterns' ``\\s``, which only makes the rule more cautious.

Chunks are cut at such places once they reach ``TARGET_CHARS``. When no safe place appears for
``FORCE_CHARS`` characters (say, every line starts with indentation) the chunk is cut anyway and
the count is marked ``estimated`` with the reason. Custom estimators promise nothing about
chunking, so a body longer than one chunk counts as ``estimated`` under them.
One line is always held whole: a body that is one enormous line costs that line's memory.
"""

from __future__ import annotations

from collections.abc import Iterable

from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.records._errors import RecordError, StoreError
from thrift_fp.tokens import Precision, TokenCount, TokenEncoding

TARGET_CHARS: Final = 128 * 1024
FORCE_CHARS: Final = 8 * 1024 * 1024
# Chunks counted per call: bounds the token lists alive at once (each token is a Python int).
BATCH_CHUNKS: Final = 8
# Encodings whose split pattern the safe-cut rule above was checked against.
CHECKED_ENCODINGS: Final = frozenset(
    {"gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base", "o200k_harmony"}
)


@value
class StreamedCount:
    """A streamed token count, how many chunks it took, and why it is estimated (if it is).

    >>> from thrift_fp.tokens import get_encoding
    >>> lines = [Success("Hello world.\\n"), Success("Bye.\\n")]
    >>> count_streamed(lines, get_encoding("cl100k_base").unwrap()).unwrap()
    StreamedCount(count=TokenCount(tokens=6, encoding='cl100k_base', precision='exact'), chunks=1, estimated_because=None)
    """

    count: TokenCount
    chunks: int
    estimated_because: str | None


def safe_cut(before: str, after: str) -> bool:
    """Whether counting ``before`` and ``after`` separately adds up to counting them joined.

    ``before`` is the line that ends the first chunk, ``after`` the line that starts the next.

    >>> safe_cut("end.\\n", "Next"), safe_cut("end \\n", "Next"), safe_cut("end\\n", " next")
    (True, False, False)
    >>> safe_cut("end.\\n", "/path"), safe_cut("end\\r\\n", "Next")
    (False, False)
    """
    return (
        len(before) >= 2
        and before[-1] == "\n"
        and not before[-2].isspace()
        and after != ""
        and not after[0].isspace()
        and after[0] != "/"
    )


def count_streamed(
    lines: Iterable[Result[str, StoreError]], encoding: TokenEncoding
) -> Result[StreamedCount, RecordError]:
    """Count the text the ``lines`` (with breaks) join to, one bounded chunk at a time.

    >>> from thrift_fp.tokens import get_encoding
    >>> count_streamed([], get_encoding("cl100k_base").unwrap()).unwrap()  # nothing is one empty chunk
    StreamedCount(count=TokenCount(tokens=0, encoding='cl100k_base', precision='exact'), chunks=1, estimated_because=None)
    """
    cuts_are_exact = encoding.name in CHECKED_ENCODINGS
    total = 0
    chunks = 0
    forced = False
    buffer: list[str] = []
    size = 0
    batch: list[str] = []
    previous = ""

    for item in lines:
        if isinstance(item, Failure):
            return Failure(item.failure())
        line = item.unwrap()
        if size >= TARGET_CHARS:
            safe = safe_cut(previous, line) if cuts_are_exact else True
            if safe or size >= FORCE_CHARS:
                forced = forced or not safe
                batch.append("".join(buffer))
                chunks += 1
                buffer, size = [], 0
                if len(batch) >= BATCH_CHUNKS:
                    flushed = encoding.count_many(batch)
                    if isinstance(flushed, Failure):
                        return Failure(flushed.failure())
                    total += sum(flushed.unwrap())
                    batch = []
        buffer.append(line)
        size += len(line)
        previous = line
    if buffer or chunks == 0:
        batch.append("".join(buffer))
        chunks += 1
    flushed = encoding.count_many(batch)
    if isinstance(flushed, Failure):
        return Failure(flushed.failure())
    total += sum(flushed.unwrap())
    reason = _estimated_because(encoding, chunks, forced, cuts_are_exact)
    precision: Precision = "estimated" if reason is not None else "exact"
    return Success(StreamedCount(TokenCount(total, encoding.name, precision), chunks, reason))


def _estimated_because(encoding: TokenEncoding, chunks: int, forced: bool, cuts_are_exact: bool) -> str | None:
    if encoding.precision == "estimated":
        return f"encoding {encoding.name!r} is itself an estimator"
    if chunks > 1 and not cuts_are_exact:
        return f"custom estimator {encoding.name!r} gives no guarantee that chunk counts add up"
    if forced:
        return f"no exact cut point (a line break between non-space text) within {FORCE_CHARS} characters"
    return None
