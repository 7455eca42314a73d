"""What the operator's log says of a failure the agent is told of only in plain words.

An agent never reads a Python exception's type or text (a tool error says what failed, in plain
words); the operator's log gets both, with the traceback, but never a credential: a URL's
password, a ``password=`` value, and each spelling of the served database's own password are
replaced by ``***`` first (`scrubbed`).
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Iterable
from typing import Final

from thrift_fp.sources.postgres._secrets import HIDDEN, password_forms, scrub

# A URL's user:password@ (any scheme), and a password given as key=value or key: value.
_URL_PASSWORD: Final = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@:]*:)[^\s/]*@")
_KEYWORD_PASSWORD: Final = re.compile(
    r"""(\b(?:ssl)?pass(?:word|wd)?\s*[=:]\s*)('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^\s&,;'"]+)""", re.IGNORECASE
)


def secrets_of(backend: object) -> tuple[str, ...]:
    """The spellings of the password ``backend`` connects with (none for an index file).

    >>> secrets_of(object())
    ()
    """
    password = getattr(getattr(backend, "database", None), "password", None)
    return password_forms(password) if isinstance(password, str) and password else ()


def scrubbed(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every credential hidden: each of ``secrets``, a URL's password and a
    ``password=`` (or ``password:``) value.

    >>> scrubbed("connect postgresql://ann:s3cret@db/docs failed; password=hunter2 sslpassword='a b'")
    'connect postgresql://ann:***@db/docs failed; password=*** sslpassword=***'
    >>> scrubbed("the token is T0P", ("T0P",))
    'the token is ***'
    """
    text = scrub(text, secrets)
    text = _URL_PASSWORD.sub(lambda found: found.group(1) + HIDDEN + "@", text)
    return _KEYWORD_PASSWORD.sub(lambda found: found.group(1) + HIDDEN, text)


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
