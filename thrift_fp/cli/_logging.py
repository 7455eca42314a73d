"""The command's logging: one line per failed call by default, the driver's warnings with ``-v``.

The library adds no handler of its own (only a ``NullHandler`` on the ``thrift_fp`` logger, as a
library should): the command, being the application, configures logging for the length of one
run and restores the previous configuration afterwards, so that ``run`` can be called again in
the same process (tests, embedding).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Final

__all__ = ["QUIET_BELOW_ERROR", "configure_logging"]

# Loggers whose warnings repeat what the command's own error line says: the connection pool
# logs each failed reconnection (about twenty lines while a server restarts), the driver its
# ignored cleanup errors. At the default verbosity only their errors show.
QUIET_BELOW_ERROR: Final = ("psycopg", "psycopg_pool")
_FORMAT: Final = "thrift-fp: %(levelname)s: %(name)s: %(message)s"


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        noisy = any(record.name == name or record.name.startswith(name + ".") for name in QUIET_BELOW_ERROR)
        return not noisy or record.levelno >= logging.ERROR


def configure_logging(verbose: bool) -> Callable[[], None]:
    """Send log records to standard error for one run; returns the function that undoes it.

    By default: warnings, but none below error from the driver and its pool (the command's own
    error line says what failed). ``verbose`` (``-v``): every warning and informational record.

    >>> undo = configure_logging(False)
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     undo(); undo = configure_logging(False)
    ...     logging.getLogger("psycopg_pool").warning("error connecting in 'thrift_fp'")
    ...     logging.getLogger("thrift_fp.sources").warning("a warning")
    >>> undo(); err.getvalue()
    'thrift-fp: WARNING: thrift_fp.sources: a warning\\n'
    """
    level = logging.INFO if verbose else logging.WARNING
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.setLevel(level)
    if not verbose:
        handler.addFilter(_Quiet())
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(min(level, previous) if previous != logging.NOTSET else level)

    def undo() -> None:
        root.removeHandler(handler)
        root.setLevel(previous)

    return undo
