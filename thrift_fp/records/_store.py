"""Byte stores: the protocol, the id rule they share, and the reader they hand out."""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from dataclasses import field
from typing import Final, Protocol, runtime_checkable

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown_exception
from thrift_fp._value import value
from thrift_fp.records._errors import (
    InvalidStoreId,
    LineOutOfRange,
    NotUtf8,
    StoreError,
    StoreFailed,
)
from thrift_fp.records._lines import lines_of, strip_line_end
from thrift_fp.records._reader import ReaderDescriptor, SpoolReader

# Values move through stores in pieces of this size, so no step needs the whole value at once.
CHUNK_BYTES: Final = 1 << 20
# The longest file name most file systems allow; every store applies the same rule.
MAX_ID_BYTES: Final = 255

Writable = str | bytes | Iterable[bytes]


@runtime_checkable
class ByteStore(Protocol):
    """Keeps UTF-8 bodies under string ids. Rewriting an id replaces its value.

    ``kind`` and ``location`` name the store in reader descriptors (see ``ReaderDescriptor``).
    Every store applies the same id rule (``check_id``) so they behave identically.

    >>> import os, tempfile
    >>> from thrift_fp.records import FolderStore, MemoryStore, SqliteStore
    >>> folder = tempfile.mkdtemp()
    >>> stores = [MemoryStore(), FolderStore(folder), SqliteStore(os.path.join(folder, "s.db"))]
    >>> [isinstance(store, ByteStore) for store in stores], [store.kind for store in stores]
    ([True, True, True], ['memory', 'folder', 'sqlite'])
    """

    @property
    def kind(self) -> str:
        """The store kind: ``memory``, ``folder`` or ``sqlite`` for the built-in stores."""

    @property
    def location(self) -> str:
        """Where this store lives (a path, or a process-local name)."""

    def write(self, id: str, data: Writable) -> Result[SpoolReader, StoreError]:
        """Store ``data`` (text, UTF-8 bytes or an iterable of byte chunks) under ``id``."""

    def read(self, id: str) -> Result[SpoolReader, StoreError]:
        """A reader for the value under ``id``."""

    def delete(self, id: str) -> Result[bool, StoreError]:
        """Remove ``id``; ``True`` when something was removed."""


@runtime_checkable
class ChunkSource(Protocol):
    """What ``StoreReader`` needs from a store: the size and the bytes of one value."""

    def size(self, id: str) -> Result[int, StoreError]:
        """Byte length of the value under ``id``."""

    def chunks(self, id: str) -> Iterator[Result[bytes, StoreError]]:
        """The value under ``id`` in pieces; a ``Failure`` item ends the stream."""


def check_id(id: str) -> Result[str, InvalidStoreId]:
    """``id`` when every store can hold it: one file-name-safe path component.

    >>> check_id("doc-1").unwrap()
    'doc-1'
    >>> check_id("../x").failure().message
    "invalid store id '../x': contains a path separator; ids are single names"
    """
    reason = _id_problem(id)
    return Success(id) if reason is None else Failure(InvalidStoreId(id, reason))


def _id_problem(id: str) -> str | None:
    if not id:
        return "is empty"
    if "\x00" in id:
        return "contains a NUL byte"
    if "/" in id or "\\" in id:
        return "contains a path separator; ids are single names"
    if id.startswith("."):
        return "starts with '.'; such names are reserved (temporary files, '.', '..')"
    try:
        encoded = id.encode("utf-8")
    except UnicodeEncodeError:
        return "is not encodable as UTF-8"
    if len(encoded) > MAX_ID_BYTES:
        return f"is {len(encoded)} UTF-8 bytes; at most {MAX_ID_BYTES} are allowed"
    return None


def checked_chunks(id: str, data: Writable) -> Iterator[Result[bytes, StoreError]]:
    """``data`` as UTF-8-checked byte pieces of at most about ``CHUNK_BYTES``.

    A ``Failure`` item (not UTF-8, a non-bytes item, the caller's iterable raised) ends the stream
    and means the write must not happen.

    >>> [c.unwrap() for c in checked_chunks("x", [b"ab", b"c"])]
    [b'abc']
    >>> [c.failure().message for c in checked_chunks("x", [b"\\xc3"])]
    ["value for id 'x' is not UTF-8 text: ..."]
    """
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as exc:
            yield Failure(NotUtf8(id, str(exc)))
            return
    pieces: Iterable[bytes] = (data,) if isinstance(data, bytes) else data
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer = bytearray()
    iterator = iter(pieces)
    while True:
        try:
            piece: object = next(iterator)
        except StopIteration:
            break
        except Exception as exc:  # noqa: BLE001 - the caller's iterable is a user callback; keep the cause
            yield Failure(StoreFailed("write", id, f"the byte iterable raised {shown_exception(exc)}", exc))
            return
        if not isinstance(piece, bytes):
            yield Failure(StoreFailed("write", id, f"the byte iterable yielded {type(piece).__name__}, not bytes"))
            return
        # A large piece is taken a chunk at a time, so neither the check nor the buffer copies it whole.
        view = memoryview(piece)
        for start in range(0, len(piece), CHUNK_BYTES):
            part = view[start : start + CHUNK_BYTES]
            try:
                decoder.decode(part)
            except UnicodeDecodeError as exc:
                yield Failure(NotUtf8(id, str(exc)))
                return
            buffer += part
            if len(buffer) >= CHUNK_BYTES:
                yield Success(bytes(buffer[:CHUNK_BYTES]))
                del buffer[:CHUNK_BYTES]
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        yield Failure(NotUtf8(id, str(exc)))
        return
    yield Success(bytes(buffer))


@value
class StoreReader:
    """The reader every built-in store hands out: live, by id (a rewrite is seen, a delete fails).

    Two readers are equal when they name the same store kind, location and id.

    >>> from thrift_fp.records import MemoryStore
    >>> reader = MemoryStore().write("doc", "one\\r\\ntwo\\n").unwrap()
    >>> reader.line(1).unwrap(), reader.line_count().unwrap(), reader.byte_length().unwrap()
    ('two', 2, 9)
    """

    source: ChunkSource = field(compare=False, repr=False)
    kind: str
    location: str
    id: str

    def line(self, index: int) -> Result[str, StoreError]:
        """Line ``index`` (0-based) without its break.

        >>> from thrift_fp.records import MemoryStore
        >>> MemoryStore().write("doc", "a\\nb").unwrap().line(5).failure().message
        "line 5 of 'doc' does not exist; it has 2 lines (0-based)"
        """
        seen = 0
        for item in self.iter_lines():
            if isinstance(item, Failure):
                return item
            if seen == index:
                return Success(strip_line_end(item.unwrap()))
            seen += 1
        return Failure(LineOutOfRange(self.id, index, seen))

    def byte_length(self) -> Result[int, StoreError]:
        """UTF-8 byte length, without reading the body.

        >>> from thrift_fp.records import MemoryStore
        >>> MemoryStore().write("doc", "é").unwrap().byte_length().unwrap()
        2
        """
        return self.source.size(self.id)

    def line_count(self) -> Result[int, StoreError]:
        """Number of lines, streamed.

        >>> from thrift_fp.records import MemoryStore
        >>> MemoryStore().write("doc", "a\\n").unwrap().line_count().unwrap()
        1
        """
        count = 0
        for item in self.iter_lines():
            if isinstance(item, Failure):
                return item
            count += 1
        return Success(count)

    def read_all(self) -> Result[str, StoreError]:
        """The whole body.

        >>> from thrift_fp.records import MemoryStore
        >>> MemoryStore().write("doc", [b"a", b"b"]).unwrap().read_all().unwrap()
        'ab'
        """
        parts: list[str] = []
        for item in self.iter_lines():
            if isinstance(item, Failure):
                return item
            parts.append(item.unwrap())
        return Success("".join(parts))

    def describe(self) -> ReaderDescriptor:
        """Store kind, location and id.

        >>> from thrift_fp.records import MemoryStore
        >>> MemoryStore(name="m").write("doc", "x").unwrap().describe()
        ReaderDescriptor(store='memory', location='m', id='doc')
        """
        return ReaderDescriptor(self.kind, self.location, self.id)

    def iter_lines(self) -> Iterator[Result[str, StoreError]]:
        """Lines with their breaks, streamed in bounded memory.

        >>> from thrift_fp.records import MemoryStore
        >>> [line.unwrap() for line in MemoryStore().write("doc", "a\\r\\nb").unwrap().iter_lines()]
        ['a\\r\\n', 'b']
        """
        return lines_of(self.source.chunks(self.id), self.id)
