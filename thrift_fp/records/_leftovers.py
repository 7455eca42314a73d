"""Which temporary files of a folder store are crash leftovers, decided by locks the kernel keeps.

The protocol (POSIX ``flock``; the kernel releases a dead process's locks, ``kill -9`` included):

- A writer holds a *shared* lock on the folder itself only while it creates its
  temporary file and takes an *exclusive* lock on that file; it keeps the file lock until the
  file has been renamed into place (or deleted).
- A sweep holds the *exclusive* folder lock, so no writer is between creating and locking its
  file, and deletes a ``.partial-*`` file only when it can lock it without waiting, and only if
  the name still refers to the file it locked.

So a file a live writer owns is never deleted: its lock is held, or it is about to be and the
sweep waits. Locks are per open file, so this holds between threads of one process too.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from typing import Final

if sys.platform == "win32":  # pragma: no cover - Windows has no flock; leftovers are then kept
    LOCKS_SUPPORTED: Final = False
else:
    import fcntl

    LOCKS_SUPPORTED: Final = True

# Temporary files start with '.', a prefix store ids may not use, so they never shadow a value.
TEMP_PREFIX: Final = ".partial-"


@contextlib.contextmanager
def _folder_lock(folder: str, mode: int) -> Iterator[None]:
    if not LOCKS_SUPPORTED:
        yield
        return
    # The folder itself is the lock (flock works on a directory), so no lock file is left in it.
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, mode)
        yield
    finally:
        os.close(descriptor)  # closing drops the lock


def creating_partial(folder: str) -> contextlib.AbstractContextManager[None]:
    """Hold while creating and locking a temporary file: no sweep runs meanwhile.

    >>> import tempfile
    >>> with creating_partial(tempfile.mkdtemp()):
    ...     pass
    """
    return _folder_lock(folder, fcntl.LOCK_SH if LOCKS_SUPPORTED else 0)


def own_partial(descriptor: int) -> None:
    """Lock a just-created temporary file for its writer (until ``descriptor`` is closed).

    >>> import tempfile
    >>> handle, _ = tempfile.mkstemp()
    >>> own_partial(handle)
    >>> os.close(handle)
    """
    if LOCKS_SUPPORTED:
        fcntl.flock(descriptor, fcntl.LOCK_EX)


def remove_leftovers(folder: str) -> tuple[str, ...]:
    """Delete the ``.partial-*`` files in ``folder`` that no live writer owns; their names.

    A missing folder has none. ``OSError`` from the folder itself propagates to the caller.

    >>> import tempfile
    >>> remove_leftovers(os.path.join(tempfile.mkdtemp(), "absent"))
    ()
    """
    if not LOCKS_SUPPORTED or not os.path.isdir(folder):
        return ()
    removed: list[str] = []
    with _folder_lock(folder, fcntl.LOCK_EX):
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries if entry.name.startswith(TEMP_PREFIX)]
        for name in sorted(names):
            if _remove_if_abandoned(os.path.join(folder, name)):
                removed.append(name)
    return tuple(removed)


def _remove_if_abandoned(path: str) -> bool:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False  # gone already, a symlink, or unreadable: not ours to judge
    try:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode):
            return False
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live writer holds it
        try:
            current = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if (current.st_dev, current.st_ino) != (opened.st_dev, opened.st_ino):
            return False
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(descriptor)
