"""Frames the SDK's JSON reader would refuse, made refusable by the tools instead.

The SDK parses each JSON-RPC frame with pydantic-core, which rejects an integer of more than
about 4300 digits ("number out of range") and nesting deeper than about 200 levels. Such a
frame has no request left to answer: over stdio it is dropped (the client waits forever), over
HTTP it is a 400. So before the SDK reads a frame, a number too long to be meant and a value
nested too deep, and text with a lone surrogate (which pydantic-core cannot read either), are
replaced by a small object that says what they were; the tool then refuses that
argument with a clear tool error, and the session goes on. Ordinary frames pass untouched (a
quick scan decides; only suspicious frames are parsed here).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Final

from thrift_fp.serve._asgi import Asgi, Message, Receive, Scope, Send, replaying

# Far below pydantic-core's limits (≈4300 digits, ≈200 levels), far above any honest argument.
MAX_DIGITS: Final = 1000
MAX_DEPTH: Final = 64
_LONG_NUMBER: Final = re.compile(r"\d{%d}" % (MAX_DIGITS + 1))
# pydantic-core refuses a surrogate escape that is not half of a pair; Python reads it.
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_MAX_FRAME: Final = 4 * 1024 * 1024


def _refused(what: str) -> dict[str, str]:
    # An object, not a string: no argument of either tool accepts one, whatever its type.
    return {"refused": what}


def _number(text: str) -> int | dict[str, str]:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= MAX_DIGITS else _refused(f"a number of {digits} digits")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _bounded(value: object, depth: int) -> object:
    if isinstance(value, str) and not _encodable(value):
        return _refused("text with a lone surrogate")
    if isinstance(value, dict | list) and depth >= MAX_DEPTH:
        return _refused(f"a value nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return {
            (key if _encodable(key) else key.encode("utf-8", "backslashreplace").decode("ascii")): _bounded(item, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_bounded(item, depth + 1) for item in value]
    return value


def tame_frame(text: str) -> str:
    """``text`` with every integer of more than ``MAX_DIGITS`` digits and every value nested
    deeper than ``MAX_DEPTH`` levels, and every string holding a lone surrogate, replaced by
    ``{"refused": what it was}`` (unchanged when it has
    neither, or is not JSON Python can read).

    >>> tame_frame('{"budget": ' + "9" * 5000 + "}")
    '{"budget": {"refused": "a number of 5000 digits"}}'
    >>> tame_frame('{"q": ' + "[" * 100 + "]" * 100 + "}")[:40]
    '{"q": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['
    >>> "a value nested deeper than 64 levels" in tame_frame('{"q": ' + "[" * 100 + "]" * 100 + "}")
    True
    >>> tame_frame('{"q": "a \\\\ud800 b", "r": "\\\\ud83d\\\\ude00"}')
    '{"q": {"refused": "text with a lone surrogate"}, "r": "😀"}'
    >>> tame_frame('{"id": 1}')
    '{"id": 1}'
    """
    suspicious = (
        _LONG_NUMBER.search(text) or _SURROGATE_ESCAPE.search(text) or text.count("[") + text.count("{") > MAX_DEPTH
    )
    if len(text) > _MAX_FRAME or not suspicious:
        return text
    try:
        parsed = json.loads(text, parse_int=_number)
    except (ValueError, RecursionError):
        return text
    return json.dumps(_bounded(parsed, 0), ensure_ascii=False)


class TamedLines(io.TextIOBase):
    """A text stream whose lines are `tame_frame`\\ d: the SDK's stdio transport reads it.
    ``at_end()`` is called when the source ends (the client closed standard input), before the
    end is handed on."""

    def __init__(self, source: io.TextIOBase, at_end: Callable[[], object] = lambda: None) -> None:
        self._source = source
        self._at_end = at_end

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]  # io's own signature varies
        """The next line, tamed (``''`` at the end).

        >>> TamedLines(io.StringIO('{"a": ' + "1" * 2000 + "}\\n")).readline()
        '{"a": {"refused": "a number of 2000 digits"}}\\n'
        """
        line = self._source.readline()
        if not line:
            self._at_end()
            return line
        tamed = tame_frame(line.rstrip("\n"))
        return tamed + "\n" if line.endswith("\n") else tamed

    def readable(self) -> bool:
        """It is read from."""
        return True


def _too_large(limit: int) -> tuple[Message, Message]:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": f"request body larger than {limit} bytes"}}
    ).encode()
    start: Message = {
        "type": "http.response.start", "status": 413,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close")],
    }
    return start, {"type": "http.response.body", "body": body}


def declared_length(scope: Scope) -> int | None:
    """The body length a request's ``Content-Length`` header declares (``None``: none, or not a
    number).

    >>> declared_length({"headers": [(b"content-length", b"12")]}), declared_length({"headers": []})
    (12, None)
    """
    found = next((value for name, value in scope.get("headers", ()) if name == b"content-length"), None)
    return int(found) if found is not None and found.isdigit() and len(found) < 20 else None


def tamed_asgi(app: Asgi, max_bytes: int = _MAX_FRAME) -> Asgi:
    """``app`` with every HTTP request body decoded (bytes that are not UTF-8 become U+FFFD) and
    `tame_frame`\\ d first. A body larger than ``max_bytes`` is refused (413) as soon as it says
    so (``Content-Length``) or grows past it, before the rest is read: the server never holds
    more than ``max_bytes`` and one chunk of a request."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        declared = declared_length(scope)
        chunks: list[bytes] = []
        size = 0
        refused = declared is not None and declared > max_bytes
        while not refused:
            message = await receive()
            if message.get("type") != "http.request":
                break
            body = message.get("body", b"")
            size += len(body)
            if size > max_bytes:
                refused = True
                break
            chunks.append(body)
            if not message.get("more_body", False):
                break
        if refused:
            chunks.clear()
            start, end = _too_large(max_bytes)
            await send(start)
            await send(end)
            return
        raw = b"".join(chunks)
        chunks.clear()
        if size <= _MAX_FRAME:
            # Bytes that are not UTF-8 become U+FFFD, as the SDK's stdio reader makes them.
            raw = tame_frame(raw.decode("utf-8", errors="replace")).encode("utf-8")
        await app(scope, replaying({"type": "http.request", "body": raw, "more_body": False}, receive), send)

    return wrapped
