"""A byte store in a folder: one file per id, replaced atomically so no reader sees a torn value."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from returns.result import Failure, Result, Success

from thrift_fp.records._errors import StoreError, StoreFailed, ValueNotFound
from thrift_fp.records._leftovers import LOCKS_SUPPORTED, TEMP_PREFIX, creating_partial, own_partial, remove_leftovers
from thrift_fp.records._reader import SpoolReader
from thrift_fp.records._store import CHUNK_BYTES, StoreReader, Writable, check_id, checked_chunks

# Folders whose crash leftovers this process already removed (once each, at its first write there).
_swept: set[str] = set()
_swept_lock = threading.Lock()


@dataclass(frozen=True, slots=True, init=False)
class FolderStore:
    """Values as files in ``folder`` (made absolute). A write goes to a temporary file in the same
    folder, is fsynced, then ``os.replace``-d over the old file, so a reader (or a crash) sees the
    old value or the new one, never a mix. Ids are single file names (see ``check_id``).

    >>> import tempfile
    >>> store = FolderStore(tempfile.mkdtemp())
    >>> store.write("doc", "hello\\n").unwrap().read_all().unwrap()
    'hello\\n'
    >>> store.write("../x", "no").failure().message
    "invalid store id '../x': contains a path separator; ids are single names"
    """

    folder: str

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        # Any path-like is accepted; the store holds it as an absolute str (what descriptors record).
        object.__setattr__(self, "folder", os.path.abspath(os.fspath(folder)))

    @property
    def kind(self) -> str:
        """The store kind, as written in reader descriptors."""
        return "folder"

    @property
    def location(self) -> str:
        """Where the store lives, as written in reader descriptors."""
        return self.folder

    def write(self, id: str, data: Writable) -> Result[SpoolReader, StoreError]:
        """Store ``data`` under ``id``, replacing any previous value atomically.

        >>> import tempfile
        >>> FolderStore(tempfile.mkdtemp()).write("a", [b"x", b"y"]).unwrap().read_all().unwrap()
        'xy'
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        try:
            os.makedirs(self.folder, exist_ok=True)
        except OSError as exc:
            return Failure(StoreFailed("write", id, f"cannot create a file in {self.folder!r}: {exc}", exc))
        self._sweep_once()
        try:
            # Created and locked while no sweep runs: a live writer's file is never taken for a leftover.
            with creating_partial(self.folder):
                handle, temp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=self.folder)
                own_partial(handle)
        except OSError as exc:
            return Failure(StoreFailed("write", id, f"cannot create a file in {self.folder!r}: {exc}", exc))
        try:
            with os.fdopen(handle, "wb") as out:
                for chunk in checked_chunks(id, data):
                    if isinstance(chunk, Failure):
                        _discard(temp)
                        return chunk
                    out.write(chunk.unwrap())
                out.flush()
                os.fsync(out.fileno())
                if LOCKS_SUPPORTED:
                    # Renamed while still open, so the lock covers the file until it is no longer partial.
                    os.replace(temp, self._path(id))
            if not LOCKS_SUPPORTED:
                os.replace(temp, self._path(id))  # Windows cannot rename an open file
            _sync_folder(self.folder)
        except OSError as exc:
            _discard(temp)
            return Failure(StoreFailed("write", id, str(exc), exc))
        return Success(self._reader(id))

    def read(self, id: str) -> Result[SpoolReader, StoreError]:
        """A reader for ``id``.

        >>> import tempfile
        >>> FolderStore(tempfile.mkdtemp()).read("nope").failure().message
        "no value stored under id 'nope' in folder store ..."
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        if not os.path.isfile(self._path(id)):
            return Failure(self._missing(id))
        return Success(self._reader(id))

    def delete(self, id: str) -> Result[bool, StoreError]:
        """Remove ``id``; ``True`` when it was there.

        >>> import tempfile
        >>> store = FolderStore(tempfile.mkdtemp())
        >>> _ = store.write("doc", "x")
        >>> store.delete("doc").unwrap(), store.delete("doc").unwrap()
        (True, False)
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        try:
            os.unlink(self._path(id))
        except FileNotFoundError:
            return Success(False)
        except OSError as exc:
            return Failure(StoreFailed("delete", id, str(exc), exc))
        _sync_folder(self.folder)
        return Success(True)

    def size(self, id: str) -> Result[int, StoreError]:
        """Byte length of ``id``'s value, from the file's size.

        >>> import tempfile
        >>> store = FolderStore(tempfile.mkdtemp())
        >>> _ = store.write("doc", "é")
        >>> store.size("doc").unwrap()
        2
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        try:
            return Success(os.stat(self._path(id)).st_size)
        except FileNotFoundError:
            return Failure(self._missing(id))
        except OSError as exc:
            return Failure(StoreFailed("read", id, str(exc), exc))

    def chunks(self, id: str) -> Iterator[Result[bytes, StoreError]]:
        """``id``'s value in pieces, from one open file (a concurrent replace is not seen mid-read).

        >>> import tempfile
        >>> store = FolderStore(tempfile.mkdtemp())
        >>> _ = store.write("doc", "ab")
        >>> [chunk.unwrap() for chunk in store.chunks("doc")]
        [b'ab']
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            yield checked
            return
        try:
            source = open(self._path(id), "rb")  # noqa: SIM115 - closed by the with below, across yields
        except FileNotFoundError:
            yield Failure(self._missing(id))
            return
        except OSError as exc:
            yield Failure(StoreFailed("read", id, str(exc), exc))
            return
        with source:
            while True:
                try:
                    piece = source.read(CHUNK_BYTES)
                except OSError as exc:
                    yield Failure(StoreFailed("read", id, str(exc), exc))
                    return
                if not piece:
                    return
                yield Success(piece)

    def remove_leftovers(self) -> Result[tuple[str, ...], StoreError]:
        """Delete the temporary files of writers that died mid-write (``kill -9``, power loss).

        A writer holds an exclusive ``flock`` on its temporary file from creation until the file
        is renamed into place, and the kernel drops that lock when the writer dies; so a
        temporary file that can be locked has no live writer, and only such files are deleted.
        This runs by itself at a process's first write to the folder. Returns the removed names.
        (Without ``fcntl``, as on Windows, nothing is removed.)

        >>> import os, tempfile
        >>> store = FolderStore(tempfile.mkdtemp())
        >>> open(os.path.join(store.folder, ".partial-dead"), "w").close()  # a killed writer's file
        >>> store.remove_leftovers().unwrap()
        ('.partial-dead',)
        """
        try:
            return Success(remove_leftovers(self.folder))
        except OSError as exc:
            return Failure(StoreFailed("clean up", TEMP_PREFIX + "*", str(exc), exc))

    def _sweep_once(self) -> None:
        with _swept_lock:
            if self.folder in _swept:
                return
            _swept.add(self.folder)
        # Best effort: leftovers waste space but never shadow a value, so a failure here is not the write's.
        self.remove_leftovers()

    def _path(self, id: str) -> str:
        return os.path.join(self.folder, id)

    def _reader(self, id: str) -> StoreReader:
        return StoreReader(self, self.kind, self.location, id)

    def _missing(self, id: str) -> ValueNotFound:
        return ValueNotFound(f"folder store {self.folder!r}", id)


def _discard(path: str) -> None:
    # Best effort: a leftover temporary file is harmless (its name cannot be an id).
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_folder(folder: str) -> None:
    # Makes the rename itself durable; some file systems cannot fsync a folder, which is fine.
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
