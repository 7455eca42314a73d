"""What a spooled artifact reads its body through, and how a reader names itself."""

from __future__ import annotations

from collections.abc import Iterator

from typing import Protocol, runtime_checkable

from returns.result import Result

from thrift_fp._value import value
from thrift_fp.records._errors import StoreError


@value
class ReaderDescriptor:
    """Where a reader's bytes live: a store kind, the store's location and the id inside it.

    A descriptor is data: it is resolved back to a reader only through a store object the caller
    passes in with the same kind and location (see ``open_reader``), never by opening the path.

    >>> ReaderDescriptor("folder", "/srv/spool", "doc-1").to_json()
    {'store': 'folder', 'location': '/srv/spool', 'id': 'doc-1'}
    """

    store: str
    location: str
    id: str

    def to_json(self) -> dict[str, str]:
        """The descriptor as a JSON object.

        >>> ReaderDescriptor("sqlite", "/srv/spool.db", "a").to_json()["store"]
        'sqlite'
        """
        return {"store": self.store, "location": self.location, "id": self.id}


@runtime_checkable
class SpoolReader(Protocol):
    """Reads one stored body as UTF-8 text, line by line (``str.splitlines`` lines, 0-based).

    Every method returns an error value when the store cannot answer (the value was deleted,
    the disk failed, the bytes are not UTF-8).

    >>> from thrift_fp.records import MemoryStore
    >>> isinstance(MemoryStore().write("doc", "x").unwrap(), SpoolReader)
    True
    """

    def line(self, index: int) -> Result[str, StoreError]:
        """Line ``index`` (0-based) without its line break."""

    def byte_length(self) -> Result[int, StoreError]:
        """UTF-8 byte length of the body."""

    def line_count(self) -> Result[int, StoreError]:
        """Number of lines (``len(text.splitlines())``)."""

    def read_all(self) -> Result[str, StoreError]:
        """The whole body (materialised)."""

    def describe(self) -> ReaderDescriptor | None:
        """Where the body lives, or ``None`` when this reader cannot name a reopenable place."""

    def iter_lines(self) -> Iterator[Result[str, StoreError]]:
        """Stream the lines *with* their breaks; a ``Failure`` item ends the stream."""
