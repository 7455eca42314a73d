"""A large body kept in a byte store and read on demand, with shell-like views of its lines.

Line semantics (all views): the body's lines are ``text.splitlines()`` — see ``_lines`` — returned
without their breaks, numbered from 0. ``'a\\r\\nb\\n'`` has the lines ``('a', 'b')``.

- ``head(n)`` is ``lines[:n]``; ``tail(n)`` is ``lines[-n:]`` (``()`` for ``n == 0``);
- ``cat(start, end)`` is ``lines[start:end]`` (``end=None`` means to the end);
- ``grep(pattern)`` is ``((i, line) for i, line in enumerate(lines) if search(pattern, line))``, where
  ``search`` is RE2's (linear time; see ``_regex``).

Counts and bounds must be non-negative; a negative one is an ``InvalidLineRange`` value.
"""

from __future__ import annotations

import json
import re
import sys
from collections import deque

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp._value import value
from thrift_fp.records._errors import InvalidLineRange, RecordError, StoreError
from thrift_fp.records._guard import guarded, guarded_lines
from thrift_fp.records._lines import strip_line_end
from thrift_fp.records._reader import SpoolReader
from thrift_fp.records._regex import compile_pattern
from thrift_fp.records._stream_count import StreamedCount, count_streamed
from thrift_fp.tokens import TokenCount, TokenEncoding
from thrift_fp.tokens._encoding import get_encoding


@value
class SpooledArtifact:
    """A reader-backed body plus optional size hints (declared, never read from the body).

    >>> from thrift_fp.records import MemoryStore
    >>> reader = MemoryStore().write("log", "boot\\r\\nerror: disk\\nok\\n").unwrap()
    >>> artifact = SpooledArtifact(reader, byte_length_hint=21, line_count_hint=3)
    >>> artifact.head(2).unwrap(), artifact.tail(1).unwrap()
    (('boot', 'error: disk'), ('ok',))
    >>> artifact.grep("err").unwrap()
    ((1, 'error: disk'),)
    """

    reader: SpoolReader
    byte_length_hint: int | None = None
    line_count_hint: int | None = None

    @property
    def has_size_hints(self) -> bool:
        """Whether either size hint is set (a hinted body is priced without reading it)."""
        return self.byte_length_hint is not None or self.line_count_hint is not None

    def head(self, n: int = 10) -> Result[tuple[str, ...], RecordError]:
        """The first ``n`` lines (``lines[:n]``).

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "a\\nb").unwrap()).head(-1).failure().message
        'head: n must be >= 0, got -1'
        """
        if n < 0:
            return Failure(InvalidLineRange("head", f"n must be >= 0, got {shown(n)}"))
        return self._lines(0, n)

    def tail(self, n: int = 10) -> Result[tuple[str, ...], RecordError]:
        """The last ``n`` lines (``lines[-n:]``, empty for ``n == 0``); streams, keeping ``n`` lines.

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "a\\nb\\n").unwrap()).tail(5).unwrap()
        ('a', 'b')
        """
        if n < 0:
            return Failure(InvalidLineRange("tail", f"n must be >= 0, got {shown(n)}"))
        # No body has more lines than sys.maxsize, and deque refuses a longer bound (tail(2**63)).
        kept: deque[str] = deque(maxlen=min(n, sys.maxsize))
        for item in guarded_lines(self.reader):
            if isinstance(item, Failure):
                return Failure(item.failure())
            kept.append(item.unwrap())
        return Success(tuple(strip_line_end(line) for line in kept))

    def cat(self, start: int = 0, end: int | None = None) -> Result[tuple[str, ...], RecordError]:
        """Lines ``start`` up to (not including) ``end`` (``lines[start:end]``).

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "a\\nb\\nc").unwrap()).cat(1).unwrap()
        ('b', 'c')
        """
        if start < 0 or (end is not None and end < 0):
            return Failure(InvalidLineRange("cat", f"start and end must be >= 0, got {shown(start)} and {shown(end)}"))
        return self._lines(start, end)

    def grep(self, pattern: str | re.Pattern[str]) -> Result[tuple[tuple[int, str], ...], RecordError]:
        """``(index, line)`` for each line where ``pattern`` matches, on the linear-time RE2 engine.

        The pattern may come from a model, so it runs on RE2 (see ``_regex``): ``(a+)+$`` takes
        linear time, and a pattern RE2 refuses (look-around, backreferences, a repeat over 1000)
        is an ``InvalidPattern`` value.

        >>> from thrift_fp.records import MemoryStore
        >>> body = SpooledArtifact(MemoryStore().write("x", "a" * 5000 + "b").unwrap())
        >>> body.grep("(a+)+$").unwrap()
        ()
        >>> body.grep("(").failure().message
        "grep pattern '(' is not a valid regular expression: missing ): ("
        """
        compiled = compile_pattern(pattern)
        if isinstance(compiled, Failure):
            return Failure(compiled.failure())
        matches = compiled.unwrap()
        found: list[tuple[int, str]] = []
        for index, item in enumerate(guarded_lines(self.reader)):
            if isinstance(item, Failure):
                return Failure(item.failure())
            line = strip_line_end(item.unwrap())
            if matches(line):
                found.append((index, line))
        return Success(tuple(found))

    def byte_length(self) -> Result[int, StoreError]:
        """The body's real UTF-8 byte length (asks the reader; hints are not consulted).

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "one\\ntwo").unwrap()).byte_length().unwrap()
        7
        """
        return guarded(self.reader, "read", self.reader.byte_length)

    def line_count(self) -> Result[int, StoreError]:
        """The body's real line count (``len(text.splitlines())``).

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "one\\ntwo").unwrap()).line_count().unwrap()
        2
        """
        return guarded(self.reader, "read", self.reader.line_count)

    def as_string(self) -> Result[str, StoreError]:
        """The whole body, materialised.

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "a\\r\\n").unwrap()).as_string().unwrap()
        'a\\r\\n'
        """
        return guarded(self.reader, "read", self.reader.read_all)

    def estimate_tokens(self, encoding: str = "cl100k_base") -> Result[TokenCount, RecordError]:
        """Token count of the body, streamed in bounded memory (see ``count_tokens_streamed``).

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "hello world").unwrap()).estimate_tokens().unwrap()
        TokenCount(tokens=2, encoding='cl100k_base', precision='exact')
        """
        return self.count_tokens_streamed(encoding).map(lambda streamed: streamed.count)

    def count_tokens_streamed(self, encoding: str = "cl100k_base") -> Result[StreamedCount, RecordError]:
        """The streamed count with its chunk count and, when estimated, the reason.

        >>> from thrift_fp.records import MemoryStore
        >>> SpooledArtifact(MemoryStore().write("x", "hi\\n").unwrap()).count_tokens_streamed().unwrap().chunks
        1
        """
        resolved = get_encoding(encoding)
        if isinstance(resolved, Failure):
            return Failure(resolved.failure())
        return count_streamed(guarded_lines(self.reader), resolved.unwrap())

    def handle_text(self, call_id: str, encoding: str | None = None) -> str:
        """The text rendered in place of the body in handle mode; reads only the hints.

        With ``encoding`` and a byte-length hint it adds a size-based token estimate
        (``ceil(bytes / 3.5)``, labelled as such).

        >>> from thrift_fp.records import MemoryStore
        >>> artifact = SpooledArtifact(MemoryStore().write("x", "one\\ntwo").unwrap(), 7, 2)
        >>> print(artifact.handle_text("doc-1", "cl100k_base"))
        [spooled artifact "doc-1": 7 bytes, 2 lines, about 2 cl100k_base tokens (estimated from size); read it with head, tail, grep or cat]
        >>> print(SpooledArtifact(artifact.reader).handle_text("doc-1"))
        [spooled artifact "doc-1": size unknown; read it with head, tail, grep or cat]
        """
        sizes: list[str] = []
        if self.byte_length_hint is not None:
            sizes.append(f"{_count(self.byte_length_hint)} bytes")
        if self.line_count_hint is not None:
            sizes.append(f"{_count(self.line_count_hint)} lines")
        if encoding is not None and self.byte_length_hint is not None:
            # ceil(bytes / 3.5) in integers: a float division overflows past 2**1024.
            tokens = -(-2 * self.byte_length_hint // 7)
            sizes.append(f"about {_count(tokens)} {encoding} tokens (estimated from size)")
        size = ", ".join(sizes) if sizes else "size unknown"
        return f"[spooled artifact {json.dumps(call_id)}: {size}; read it with head, tail, grep or cat]"

    def _lines(self, start: int, end: int | None) -> Result[tuple[str, ...], RecordError]:
        found: list[str] = []
        # Stopping early drops the stream; CPython closes it (and its file or database) at once.
        for index, item in enumerate(guarded_lines(self.reader)):
            if end is not None and index >= end:
                break
            if isinstance(item, Failure):
                return Failure(item.failure())
            if index >= start:
                found.append(strip_line_end(item.unwrap()))
        return Success(tuple(found))


def _count(value: int) -> str:
    # parse_retrievable bounds hints to 64 bits; a directly built artifact may hold any int.
    return str(value) if value.bit_length() <= 64 else shown(value)
