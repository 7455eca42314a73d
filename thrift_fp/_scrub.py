"""Text without credentials: a password in every spelling a URL or a message may give it, a
URL's password, a ``password=`` value. Shared by the PostgreSQL source (its error messages), the
server (the operator's log) and the command line (its internal-error line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final
from urllib.parse import quote, quote_plus

HIDDEN: Final = "***"
# A URL's user:password@ (any scheme), and a password given as key=value or key: value.
_URL_PASSWORD: Final = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@:]*:)[^\s/]*@")
_KEYWORD_PASSWORD: Final = re.compile(
    r"""(\b(?:ssl)?pass(?:word|wd)?\s*[=:]\s*)('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^\s&,;'"]+)""", re.IGNORECASE
)


def password_forms(*passwords: str) -> tuple[str, ...]:
    """Each password as it is and in the spellings a URL or a message may give it.

    >>> password_forms("a b")
    ('a b', 'a%20b', 'a+b')
    """
    forms: dict[str, None] = {}
    for value in passwords:
        if not value:
            continue
        spellings = [value, *(quote(value, safe=safe) for safe in ("", "/", "/:@!$&'()*+,;="))]
        spellings += [re.sub(r"%[0-9A-F]{2}", lambda match: match.group().lower(), form) for form in spellings]
        spellings += [quote_plus(value), value.encode("unicode_escape").decode("ascii"), repr(value)[1:-1]]
        forms.update(dict.fromkeys(spellings))
    return tuple(forms)


def scrub(text: str, forms: Iterable[str]) -> str:
    """``text`` with every one of ``forms`` replaced by ``***``, longest first.

    >>> scrub("bad URL postgresql://ann:hunter2@x", ("hunter2",))
    'bad URL postgresql://ann:***@x'
    """
    for form in sorted({form for form in forms if form}, key=lambda form: (-len(form), form)):
        text = text.replace(form, HIDDEN)
    return text


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
