"""Connection strings without their passwords, and driver messages scrubbed of them.

Two layers, so that a password never shows whatever the string looks like:

1. `redact` cuts the password out by structure, more eagerly than libpq reads it: in a URL,
   everything between the user and the *last* ``@`` before the path, and the value of every
   ``password``/``sslpassword`` query parameter; in a ``key=value`` string, those keys' values
   (quoted, escaped or bare). Malformed strings (an unclosed ``[``, a bad ``%`` escape) are cut the
   same way: libpq quotes them whole in its errors.
2. `secret_forms` asks the driver's parser (``psycopg.conninfo.conninfo_to_dict``, libpq's own,
   handed in by the PostgreSQL source) which password it will send, and lists that password as
   written, decoded, and in its percent-encoded spellings. `scrub` removes every form from a text (a display string, a driver
   or pool message), longest first.

This module imports no driver: without a parser, layer 1 and the written values still apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Final
from urllib.parse import unquote

# Where every credential-hiding module finds them (the command line and the server use them too).
from thrift_fp._scrub import HIDDEN, password_forms, scrub

__all__ = ["HIDDEN", "Parse", "invalid_port", "password_forms", "redact", "scrub", "secret_forms"]

Parse = Callable[[str], Mapping[str, Any]]
"""A connection-string parser such as ``psycopg.conninfo.conninfo_to_dict``."""

_SECRET_KEYS: Final = ("password", "sslpassword")
_SCHEME: Final = re.compile(r"(postgres(?:ql)?://)", re.IGNORECASE)
# A libpq key=value pair whose key names a secret: a quoted value (backslash escapes, possibly
# unterminated) or a bare one (backslash escapes a space too).
_KEYWORD_SECRET: Final = re.compile(
    r"(?<!\S)((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*(?:'|\\?\Z)|(?:\\.|[^\s\\])*\\?)",
    re.IGNORECASE | re.DOTALL,
)
_UNESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)


URL_SCHEMES: Final = ("postgresql://", "postgres://")
# The first key of a libpq key=value connection string (a file name rarely starts like this).
_CONNINFO_KEYWORDS: Final = re.compile(
    r"\s*(?:host|hostaddr|port|dbname|user|password|passfile|service|sslmode|options|application_name"
    r"|connect_timeout|target_session_attrs|sslpassword|require_auth)\s*=",
    re.IGNORECASE,
)


def is_database_url(value: str) -> bool:
    """Whether ``value`` names a PostgreSQL database: a ``postgresql://`` or ``postgres://`` URL, or
    a libpq ``key=value`` string that starts with a connection keyword.

    >>> is_database_url("postgresql://localhost/docs"), is_database_url("thrift-fp.db")
    (True, False)
    >>> is_database_url("host=/run/pg dbname=docs"), is_database_url("a=b.db")
    (True, False)
    """
    return value.lstrip().lower().startswith(URL_SCHEMES) or _CONNINFO_KEYWORDS.match(value) is not None


def redact(conninfo: str, parse: Parse | None = None) -> str:
    """``conninfo`` with every password replaced by ``***`` (URL or ``key=value`` form).

    >>> redact("postgresql://ann:s3cret@db.example/docs?sslmode=require")
    'postgresql://ann:***@db.example/docs?sslmode=require'
    >>> redact("postgresql://u:pa?ss@/db?host=/run/pg")
    'postgresql://u:***@/db?host=/run/pg'
    >>> redact("postgresql://u:s3cret@[::1/db")
    'postgresql://u:***@[::1/db'
    >>> redact("postgresql:///docs?host=/run/pg&password=s3cret")
    'postgresql:///docs?host=/run/pg&password=***'
    >>> redact(r"host=/run/pg password='two \\' words' dbname=docs")
    'host=/run/pg password=*** dbname=docs'
    """
    shown = _structural(conninfo)
    return scrub(shown, secret_forms(conninfo, parse))


def _structural(conninfo: str) -> str:
    scheme = _SCHEME.match(conninfo.lstrip())
    if scheme is None:
        return _KEYWORD_SECRET.sub(lambda match: match.group(1) + HIDDEN, conninfo)
    rest = conninfo.lstrip()[scheme.end() :]
    # libpq ends the user part at the first '@' before a '/'; an unencoded '@' in a password
    # would leave its tail in the host, so the user part here ends at the last one.
    path = rest.find("/")
    head = rest if path < 0 else rest[:path]
    at = head.rfind("@")
    userinfo, after = (rest[:at], rest[at:]) if at >= 0 else ("", rest)
    if userinfo:
        user, colon, _ = userinfo.partition(":")
        # A user part holding '?', '&' or '=' is a query that lost its way: show none of it.
        user = HIDDEN if any(c in user for c in "?&=") else user
        userinfo = f"{user}:{HIDDEN}" if colon else user
    address, question, query = after.partition("?")
    query = "&".join(f"{key}={HIDDEN}" if secret else f"{key}{equals}{value}" for key, equals, value, secret in _params(query))
    return f"{scheme.group(1)}{userinfo}{address}{question}{query}"


def _params(query: str) -> Iterator[tuple[str, str, str, bool]]:
    # Each `key=value` of a URL query, and whether its key (percent-decoded, as libpq reads it)
    # names a secret.
    for part in query.split("&") if query else ():
        key, equals, value = part.partition("=")
        yield key, equals, value, unquote(key).strip().lower() in _SECRET_KEYS


def secret_forms(conninfo: str, parse: Parse | None = None) -> tuple[str, ...]:
    """Every text that would reveal a password of ``conninfo``, longest first.

    The values as written (escaped, quoted, percent-encoded), decoded, the password libpq reads,
    and its percent-encodings; also ``conninfo`` itself when it holds one.

    >>> secret_forms("postgresql://ann:a%40b@/docs")
    ('postgresql://ann:a%40b@/docs', 'a%40b', 'a@b')
    >>> secret_forms("postgresql://ann@/docs")
    ()
    """
    written = list(_written_secrets(conninfo))
    forms = {*written, *password_forms(*(_decode(value) for value in written), *_driver_secrets(conninfo, parse))}
    forms.discard("")
    if forms:
        forms.add(conninfo)
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))


def _written_secrets(conninfo: str) -> Iterator[str]:
    scheme = _SCHEME.match(conninfo.lstrip())
    if scheme is None:
        for match in _KEYWORD_SECRET.finditer(conninfo):
            yield match.group(2)
        return
    rest = conninfo.lstrip()[scheme.end() :]
    path = rest.find("/")
    head = rest if path < 0 else rest[:path]
    at = head.rfind("@")
    if at >= 0:
        user, colon, password = rest[:at].partition(":")
        if colon:
            yield password
        if any(c in user for c in "?&="):
            yield user
    for _key, _equals, value, secret in _params(rest.partition("?")[2]):
        if secret:
            yield value


def _decode(value: str) -> str:
    if value.startswith("'"):
        value = value[1:-1] if len(value) > 1 and value.endswith("'") else value[1:]
    return unquote(_UNESCAPE.sub(r"\1", value))


def _driver_secrets(conninfo: str, parse: Parse | None) -> tuple[str, ...]:
    if parse is None:
        return ()
    try:
        parsed = parse(conninfo)
    except Exception:  # noqa: BLE001 - any refusal (ProgrammingError, UnicodeDecodeError): layer 1 holds
        return ()
    return tuple(str(parsed[key]) for key in _SECRET_KEYS if parsed.get(key))


def invalid_port(port: str) -> str | None:
    """Why ``port`` (libpq's comma-separated ``port`` value) is not one, or ``None`` when it is.

    >>> invalid_port("5432,"), invalid_port("abc")
    (None, 'invalid port number: "abc"')
    """
    for part in port.split(","):
        part = part.strip()
        if part and not (part.isascii() and part.isdigit() and 1 <= int(part) <= 65535):
            return f'invalid port number: "{part}"'
    return None
