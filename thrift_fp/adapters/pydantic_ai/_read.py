"""Reading one Pydantic AI message into what it sends: the texts and fixed tokens of its parts.

A message is read into two halves: its ``SystemPromptPart``\\ s (pinned: the system prompt is never
shed) and everything else, so a request holding both can lose its other parts and keep its system
parts. Each part costs `TOKENS_PER_PART` of framing plus its encoded texts:

- system and user prompt text (``str`` items, ``TextContent`` and ``StructuredContent`` by the
  ``content`` they send; a ``CachePoint`` sends nothing); any other user content item (an image,
  audio, document, video, uploaded file) costs what ``media_tokens`` prices it at (default
  `MEDIA_TOKENS`, which makes the count ``estimated``);
- text and thinking content;
- a tool call's name, id and ``args_as_json_str()``;
- a tool return's name, id and ``model_response_str()``; a retry prompt's name, id and
  ``model_response()``; retry feedback's ``model_response()``;
- a part of any other kind: the size of its fields in UTF-8 bytes (an over-count: a byte-level
  encoding never makes more tokens than bytes), ``estimated``.

A value Pydantic AI itself cannot serialise (nesting deeper than its serialiser allows) is priced
the same way, by bytes, without recursion: reading never raises on a hostile value.

A request's ``instructions`` are not part of the message's price: Pydantic AI sends only the
instructions in force (`instructions_in_force`), once per request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from typing import Final, cast

from thrift_fp._value import value
from thrift_fp.adapters._core import UnreadableField, Unread, attr, called, exact_str, unreadable

from pydantic_ai.messages import (
    BaseToolCallPart,
    BaseToolReturnPart,
    CachePoint,
    FilePart,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

try:
    from pydantic_ai.messages import RetryFeedbackPart

    _FEEDBACK: tuple[type, ...] = (RetryFeedbackPart,)
except ImportError:  # Pydantic AI releases before the retry feedback part (2.0) have none
    _FEEDBACK = ()

TOKENS_PER_PART: Final = 3
MEDIA_TOKENS: Final = 1600

MediaPricer = Callable[[object], int]
"""Prices one non-text user content item (an ``ImageUrl``, ``BinaryContent``, ...) in tokens."""


@value
class Half:
    """Part of a message: the texts to encode and the tokens already known (framing, media).

    >>> Half(("hi",), 3).fixed
    3
    """

    texts: tuple[str, ...] = ()
    fixed: int = 0


@value
class Read:
    """One message as sent: its system half and the rest, and what the fit needs to know.

    ``calls`` and ``answers``: (field, call id) of each tool call and of each part answering one;
    ``prompt``: it holds a ``UserPromptPart`` (a turn starts here); ``answers_only``: every part
    answers a call or is retry feedback (Pydantic AI then takes the instructions from the request
    before it); ``system_parts``: positions of its ``SystemPromptPart``\\ s.
    """

    request: bool
    system: Half
    rest: Half
    system_parts: tuple[int, ...]
    part_count: int
    calls: tuple[tuple[str, str], ...]
    answers: tuple[tuple[str, str], ...]
    prompt: bool
    answers_only: bool
    instructions: str | None
    estimated: bool


@value
class Misread:
    """A message field of the wrong shape (``field`` is a path such as ``parts[1].content``)."""

    index: int
    field: str
    value: object
    reason: str


@value
class Mispriced:
    """The caller's ``media_tokens`` raised or returned a non-count."""

    index: int
    field: str
    reason: str
    cause: BaseException | None = None


def read_message(
    index: int, message: object, media_tokens: MediaPricer | None
) -> Read | Misread | Mispriced | UnreadableField:
    """Read message ``index`` (see the module docstring).

    >>> read = read_message(0, ModelRequest([SystemPromptPart("s"), UserPromptPart("hi")]), None)
    >>> (read.system, read.rest, read.prompt, read.system_parts)
    (Half(texts=('s',), fixed=3), Half(texts=('hi',), fixed=3), True, (0,))
    >>> read_message(2, ModelResponse([TextPart("ok"), TextPart(7)]), None).field  # type: ignore[arg-type]
    'parts[1].content'
    """
    if not isinstance(message, ModelRequest | ModelResponse):
        return Misread(index, "(message)", type(message).__name__, "expected a ModelRequest or ModelResponse")
    try:
        return _read(index, message, media_tokens)
    except Unread as unread:
        return unreadable(unread, index, message)


def _read(index: int, message: ModelRequest | ModelResponse, media_tokens: MediaPricer | None) -> Read | Misread | Mispriced:
    """`read_message` of a message, every read of it guarded (`Unread`)."""
    parts: object = attr(message, "parts", "parts")
    if not isinstance(parts, Sequence) or isinstance(parts, str | bytes):
        return Misread(index, "parts", parts, "expected a list of parts")
    instructions: object = attr(message, "instructions", "instructions") if isinstance(message, ModelRequest) else None
    if instructions is not None and not isinstance(instructions, str):
        return Misread(index, "instructions", instructions, "expected a str or None")
    reader = _Reader(index, media_tokens)
    for at, part in enumerate(parts):
        failed = reader.part(at, part)
        if failed is not None:
            return failed
    return Read(
        isinstance(message, ModelRequest),
        Half(tuple(reader.system_texts), reader.system_fixed),
        Half(tuple(reader.texts), reader.fixed),
        tuple(reader.system_parts),
        len(parts),
        tuple(reader.calls),
        tuple(reader.answers),
        reader.prompt,
        bool(parts) and reader.answering == len(parts),
        instructions,
        reader.estimated,
    )


def _newest_requests(reads: Sequence[Read]) -> list[int]:
    """The positions of the two newest requests, newest first (scanning back from the end)."""
    found: list[int] = []
    for at in range(len(reads) - 1, -1, -1):
        if reads[at].request:
            found.append(at)
            if len(found) == 2:
                break
    return found


def instructions_source(reads: Sequence[Read]) -> int | None:
    """The position of the request whose ``instructions`` Pydantic AI sends, as its own
    ``get_instructions_source`` picks it: the newest request when it has instructions; else the
    request before it when the newest only answers calls (a request made for a tool's result).

    >>> def request(text, instructions=None):
    ...     return read_message(0, ModelRequest([UserPromptPart(text)], instructions=instructions), None)
    >>> instructions_source([request("a", "old"), request("b", "new")])
    1
    >>> instructions_source([request("a", "old"), request("b")]) is None
    True
    """
    requests = _newest_requests(reads)
    if not requests:
        return None
    newest = requests[0]
    if reads[newest].instructions is not None:
        return newest
    if len(requests) == 2 and reads[newest].answers_only and reads[requests[1]].instructions is not None:
        return requests[1]
    return None


def fallback_source(reads: Sequence[Read]) -> int | None:
    """The request before the newest when the newest has no instructions and only answers calls,
    and some request before it has instructions: Pydantic AI would look there for instructions,
    so shedding it could change what is sent.

    >>> fallback_source([read_message(0, ModelRequest([UserPromptPart("a")]), None)]) is None
    True
    """
    requests = _newest_requests(reads)
    if len(requests) < 2 or reads[requests[0]].instructions is not None or not reads[requests[0]].answers_only:
        return None
    # Only requests carry instructions, so the nearest message before the newest that has some is a request.
    if all(reads[at].instructions is None for at in range(requests[0] - 1, -1, -1)):
        return None
    return requests[1]


class _Reader:
    __slots__ = (
        "answering", "answers", "calls", "estimated", "field", "fixed", "index", "media_tokens", "prompt",
        "system_fixed", "system_parts", "system_texts", "texts",
    )

    def __init__(self, index: int, media_tokens: MediaPricer | None) -> None:
        self.index = index
        self.media_tokens = media_tokens
        self.system_texts: list[str] = []
        self.system_fixed = 0
        self.system_parts: list[int] = []
        self.texts: list[str] = []
        self.fixed = 0
        self.calls: list[tuple[str, str]] = []
        self.answers: list[tuple[str, str]] = []
        self.prompt = False
        self.answering = 0
        self.estimated = False
        self.field = ""

    def part(self, at: int, part: object) -> Misread | Mispriced | None:
        self.field = field = f"parts[{at}]"
        if isinstance(part, SystemPromptPart):
            given = attr(part, "content", f"{field}.content")
            content = _text(given)
            if content is None:
                return self._misread(".content", given, "expected a str")
            self.system_texts.append(content)
            self.system_fixed += TOKENS_PER_PART
            self.system_parts.append(at)
            return None
        self.fixed += TOKENS_PER_PART
        if isinstance(part, UserPromptPart):
            self.prompt = True
            return self._user(attr(part, "content", f"{field}.content"))
        if isinstance(part, TextPart | ThinkingPart):
            given = attr(part, "content", f"{field}.content")
            content = _text(given)
            if content is None:
                return self._misread(".content", given, "expected a str")
            self.texts.append(content)
            return None
        if isinstance(part, BaseToolCallPart):
            failed, tool_id = self._tool_part(part, field, "args_as_json_str", "args")
            if failed is None and isinstance(part, ToolCallPart):
                self.calls.append((f"{field}.tool_call_id", tool_id))
            return failed
        if isinstance(part, BaseToolReturnPart):
            failed, tool_id = self._tool_part(part, field, "model_response_str", "content")
            if failed is None and isinstance(part, ToolReturnPart):
                self.answers.append((f"{field}.tool_call_id", tool_id))
                self.answering += 1
            return failed
        if isinstance(part, RetryPromptPart):
            name = _exact(attr(part, "tool_name", f"{field}.tool_name"))
            call_id = _exact(attr(part, "tool_call_id", f"{field}.tool_call_id"))
            failed = self._ids("" if name is None else name, call_id)
            if failed is not None:
                return failed
            self._sent(part, "model_response", "content")
            if name is not None:
                self.answers.append((f"{field}.tool_call_id", cast(str, call_id)))
            self.answering += 1
            return None
        if isinstance(part, _FEEDBACK):
            self._sent(part, "model_response", "content")
            self.answering += 1
            return None
        if isinstance(part, FilePart):
            return self._media(".content", attr(part, "content", f"{field}.content"))
        self.fixed += called(lambda: _bytes_of(part), field)
        self.estimated = True
        return None

    def _misread(self, field: str, value: object, reason: str) -> Misread:
        return Misread(self.index, self.field + field, value, reason)

    def _tool_part(self, part: object, field: str, render: str, value: str) -> tuple[Misread | None, str]:
        # A tool call or return: its name and id checked, then its rendered body priced (`_sent`).
        call_id = _exact(attr(part, "tool_call_id", f"{field}.tool_call_id"))
        failed = self._ids(_exact(attr(part, "tool_name", f"{field}.tool_name")), call_id)
        if failed is None:
            self._sent(part, render, value)
        return failed, cast(str, call_id)

    def _ids(self, name: object, call_id: object) -> Misread | None:
        if not isinstance(name, str):
            return self._misread(".tool_name", name, "expected a str")
        if not isinstance(call_id, str):
            return self._misread(".tool_call_id", call_id, "expected a str")
        self.texts += (name, call_id)
        return None

    def _sent(self, part: object, render: str, value: str) -> None:
        # Pydantic AI's own rendering is what the provider receives; a value it cannot render
        # (nesting past its serialiser's depth) is priced by bytes instead, never raised. The
        # part's own fields are read guarded: one that raises is named.
        given = attr(part, value, f"{self.field}.{value}")
        method = attr(part, render, f"{self.field}.{render}")
        try:
            text = method() if callable(method) else None
        except Exception:  # noqa: BLE001 - any failure of the framework's renderer prices by bytes
            text = None
        if isinstance(text, str):
            self.texts.append(text)
        else:
            self.fixed += called(lambda: _bytes_of(given), f"{self.field}.{value}")
            self.estimated = True

    def _user(self, content: object) -> Misread | Mispriced | None:
        text = exact_str(content)
        if text is not None:
            self.texts.append(text)
            return None
        if not isinstance(content, Sequence) or isinstance(content, bytes):
            return self._misread(".content", content, "expected a str or a list of user content")
        for at, item in enumerate(content):
            if (plain := exact_str(item)) is not None:
                self.texts.append(plain)
            elif isinstance(item, TextContent):
                given = attr(item, "content", f"{self.field}.content[{at}].content")
                text = _text(given)
                if text is None:
                    return self._misread(f".content[{at}].content", given, "expected a str")
                self.texts.append(text)
            elif isinstance(item, CachePoint):
                continue
            else:
                failed = self._media(f".content[{at}]", item)
                if failed is not None:
                    return failed
        return None

    def _media(self, field: str, item: object) -> Mispriced | None:
        if self.media_tokens is None:
            self.fixed += MEDIA_TOKENS
            self.estimated = True
            return None
        try:
            tokens: object = self.media_tokens(item)
        except Exception as exc:  # noqa: BLE001 - the caller's pricing callback; keep the cause
            return Mispriced(self.index, self.field + field, f"raised {type(exc).__name__}: {exc}", exc)
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            return Mispriced(self.index, self.field + field, f"returned {_shown(tokens)}; expected an int >= 0")
        self.fixed += tokens
        return None


def _text(value: object) -> str | None:
    return exact_str(value)


def _exact(value: object) -> object:
    """A str (subclass) as an exact ``str`` copy (its own ``__eq__`` and ``__hash__``, a caller's
    code, are never called: ids are compared and hashed); any other value as it is."""
    found = exact_str(value)
    return value if found is None else found


def _shown(value: object) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile repr is named by its type
        return f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


_MAX_WALK: Final = 1_000_000


def _bytes_of(value: object) -> int:
    """An upper bound on the tokens of ``value`` written out: the UTF-8 bytes of its leaves
    (a JSON escape is at most 6 bytes a character, so strings count 6 a character plus quotes),
    plus 2 per container and per item; walked with an explicit stack, never recursion.

    >>> _bytes_of({"a": [1, "é"]}) >= len('{"a":[1,"é"]}'.encode())
    True
    >>> nested: list[object] = []
    >>> cursor = nested
    >>> for _ in range(10_000):
    ...     cursor.append([]); cursor = cursor[0]
    >>> _bytes_of(nested) > 0 and _bytes_of(10**5000) >= 5000
    True
    """
    total = 0
    stack: list[object] = [value]
    seen: set[int] = set()
    walked = 0
    while stack:
        item = stack.pop()
        walked += 1
        total += 2
        if walked > _MAX_WALK:
            break
        if item is None or isinstance(item, bool):
            total += 5
        elif isinstance(item, str):
            total += 6 * len(item)
        elif isinstance(item, bytes | bytearray | memoryview):
            # Base64 in JSON: 4 characters per 3 bytes.
            total += 4 * (len(item) // 3 + 1)
        elif isinstance(item, int):
            # Decimal digits from the bit length, without converting (no 4,300-digit limit).
            total += item.bit_length() * 30103 // 100000 + 2
        elif isinstance(item, float):
            total += 24
        elif id(item) in seen:
            continue
        elif isinstance(item, Mapping):
            seen.add(id(item))
            for key, entry in item.items():
                stack += (key, entry)
        elif isinstance(item, Sequence | set | frozenset):
            seen.add(id(item))
            stack.extend(item)
        elif is_dataclass(item) and not isinstance(item, type):
            seen.add(id(item))
            stack.extend(getattr(item, field.name, None) for field in fields(item))
            total += sum(len(field.name) for field in fields(item))
        else:
            total += _str_bytes(item)
    return total


def _str_bytes(item: object) -> int:
    try:
        text = str(item)
    except Exception:  # noqa: BLE001 - a hostile __str__ is priced by its type name
        text = type(item).__name__
    return 6 * len(text)
