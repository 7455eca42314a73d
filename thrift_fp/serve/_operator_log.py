"""What the operator's log says of a failure the agent is told of only in plain words.

An agent never reads a Python exception's type or text (a tool error says what failed, in plain
words); the operator's log gets both, with the traceback, but never a credential: a URL's
password, a ``password=`` value, and each spelling of the served database's own password are
replaced by ``***`` first (`scrubbed`).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable

from thrift_fp._scrub import password_forms, scrubbed

def secrets_of(backend: object) -> tuple[str, ...]:
    """The spellings of the password ``backend`` connects with (none for an index file).

    >>> secrets_of(object())
    ()
    """
    password = getattr(getattr(backend, "database", None), "password", None)
    return password_forms(password) if isinstance(password, str) and password else ()


def log_failure(log: logging.Logger, what: str, error: BaseException, secrets: Iterable[str] = ()) -> str:
    """Log ``what`` failed, with ``error``'s type, text and traceback, `scrubbed`; the line logged.

    >>> try:
    ...     raise KeyError("postgresql://u:pw@db/x")
    ... except KeyError as error:
    ...     shown = log_failure(logging.getLogger("thrift_fp.serve"), "tool search", error)
    >>> "KeyError" in shown, "pw@" in shown, "u:***@db" in shown
    (True, False, True)
    """
    detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    line = scrubbed(f"{what} failed: {detail}".rstrip(), secrets)
    log.error("%s", line)
    return line
