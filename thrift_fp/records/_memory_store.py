"""A byte store in this process's memory."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

from returns.result import Failure, Result, Success

from thrift_fp.records._errors import StoreError, ValueNotFound
from thrift_fp.records._reader import SpoolReader
from thrift_fp.records._store import CHUNK_BYTES, StoreReader, Writable, check_id, checked_chunks


@dataclass(frozen=True, slots=True, eq=False)
class MemoryStore:
    """Values in a dict guarded by a lock; ``name`` (random by default) is its location.

    >>> store = MemoryStore()
    >>> store.write("doc", "old").unwrap().read_all().unwrap()
    'old'
    >>> _ = store.write("doc", "new")
    >>> store.read("doc").unwrap().read_all().unwrap()
    'new'
    """

    name: str = field(default_factory=lambda: uuid.uuid4().hex)
    _values: dict[str, bytes] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def kind(self) -> str:
        """The store kind, as written in reader descriptors."""
        return "memory"

    @property
    def location(self) -> str:
        """Where the store lives, as written in reader descriptors."""
        return self.name

    def write(self, id: str, data: Writable) -> Result[SpoolReader, StoreError]:
        """Store ``data`` under ``id``, replacing any previous value.

        >>> MemoryStore().write("", "x").failure().message
        "invalid store id '': is empty"
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        pieces: list[bytes] = []
        for chunk in checked_chunks(id, data):
            if isinstance(chunk, Failure):
                return chunk
            pieces.append(chunk.unwrap())
        with self._lock:
            self._values[id] = b"".join(pieces)
        return Success(self._reader(id))

    def read(self, id: str) -> Result[SpoolReader, StoreError]:
        """A reader for ``id``.

        >>> MemoryStore(name="m").read("nope").failure().message
        "no value stored under id 'nope' in memory store 'm'"
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        with self._lock:
            present = id in self._values
        return Success(self._reader(id)) if present else Failure(self._missing(id))

    def delete(self, id: str) -> Result[bool, StoreError]:
        """Remove ``id``; ``True`` when it was there.

        >>> store = MemoryStore()
        >>> _ = store.write("doc", "x")
        >>> store.delete("doc").unwrap(), store.delete("doc").unwrap()
        (True, False)
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        with self._lock:
            return Success(self._values.pop(id, None) is not None)

    def size(self, id: str) -> Result[int, StoreError]:
        """Byte length of ``id``'s value.

        >>> store = MemoryStore()
        >>> _ = store.write("doc", "é")
        >>> store.size("doc").unwrap()
        2
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        with self._lock:
            value = self._values.get(id)
        return Failure(self._missing(id)) if value is None else Success(len(value))

    def chunks(self, id: str) -> Iterator[Result[bytes, StoreError]]:
        """``id``'s value in pieces (the value itself is immutable, so no copy is held).

        >>> store = MemoryStore()
        >>> _ = store.write("doc", "ab")
        >>> [chunk.unwrap() for chunk in store.chunks("doc")]
        [b'ab']
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            yield checked
            return
        with self._lock:
            value = self._values.get(id)
        if value is None:
            yield Failure(self._missing(id))
            return
        view = memoryview(value)
        for start in range(0, len(value), CHUNK_BYTES):
            yield Success(bytes(view[start : start + CHUNK_BYTES]))

    def _reader(self, id: str) -> StoreReader:
        return StoreReader(self, self.kind, self.location, id)

    def _missing(self, id: str) -> ValueNotFound:
        return ValueNotFound(f"memory store {self.name!r}", id)
