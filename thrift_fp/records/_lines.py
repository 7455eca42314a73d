"""The line rule shared by readers, artifacts and size hints: ``str.splitlines`` semantics.

A body's lines are ``text.splitlines()``: every line break ``str.splitlines`` knows ends a line
(``\\n``, ``\\r\\n``, ``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``,
``\\u2029``), ``\\r\\n`` is one break, a trailing break does not start another line, and ``''`` has
no lines. Readers stream the same lines *with* their breaks (``splitlines(keepends=True)``), so
joining what they yield gives back the exact text.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.records._errors import NotUtf8, StoreError

LINE_BREAKS: Final = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def size_hints(text: str) -> tuple[int, int]:
    """UTF-8 byte length and line count of ``text`` (the auto-spool size hints).

    >>> size_hints("one\\ntwo"), size_hints(""), size_hints("a\\n"), size_hints("a\\r\\nb")
    ((7, 2), (0, 0), (2, 1), (4, 2))
    """
    return len(text.encode("utf-8", "surrogatepass")), len(text.splitlines())


def strip_line_end(line: str) -> str:
    """A line as ``splitlines(keepends=True)`` yields it, without its break.

    >>> strip_line_end("a\\r\\n"), strip_line_end("b\\r"), strip_line_end("c")
    ('a', 'b', 'c')
    """
    if line.endswith("\r\n"):
        return line[:-2]
    if line and line[-1] in LINE_BREAKS:
        return line[:-1]
    return line


def lines_of(chunks: Iterable[Result[bytes, StoreError]], id: str) -> Iterator[Result[str, StoreError]]:
    """Decode UTF-8 chunks and yield whole lines with their breaks; a failure ends the stream.

    Only the line being assembled is held, so memory is bounded by the longest line.

    >>> [line.unwrap() for line in lines_of([Success(b"a\\r"), Success(b"\\nb\\xc3"), Success(b"\\xa9")], "x")]
    ['a\\r\\n', 'bé']
    >>> [line.failure().message for line in lines_of([Success(b"\\xff")], "x")]
    ["value for id 'x' is not UTF-8 text: ..."]
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts: list[str] = []  # the unfinished line, kept as parts so a very long line is joined once
    carriage = False  # the unfinished line ends in '\r', which a following '\n' joins
    for chunk in chunks:
        if isinstance(chunk, Failure):
            yield chunk
            return
        try:
            text = decoder.decode(chunk.unwrap())
        except UnicodeDecodeError as exc:
            yield Failure(NotUtf8(id, str(exc)))
            return
        if carriage and text:
            if text.startswith("\n"):
                parts.append("\n")
                text = text[1:]
            yield Success("".join(parts))
            parts, carriage = [], False
        if not text:
            continue
        pieces = text.splitlines(keepends=True)
        if len(pieces) == 1 and pieces[0][-1] not in LINE_BREAKS:
            parts.append(pieces[0])
            continue
        if parts:
            pieces[0] = "".join(parts) + pieces[0]
            parts = []
        last = pieces[-1]
        if last[-1] not in LINE_BREAKS or last[-1] == "\r":
            carriage = last[-1] == "\r"
            parts.append(pieces.pop())
        for piece in pieces:
            yield Success(piece)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        yield Failure(NotUtf8(id, str(exc)))
        return
    if parts:
        yield Success("".join(parts))
