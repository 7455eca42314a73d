"""Reading the JSON-like values inside users' messages safely, and their SDK objects as mappings.

A message field can hold anything a caller's code put there, including values no provider could
be sent: an int of more than 4,300 digits (``json`` and ``str`` refuse it) or a structure nested
thousands deep (``json.dumps`` and ``repr`` overflow the stack). They are walked iteratively
here, and such a value is a reason string the adapter turns into an error value naming the
message index and field, never a ``ValueError`` or ``RecursionError``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, cast

from thrift_fp.adapters._core._errors import MalformedMessage
from thrift_fp.adapters._core._reads import Unread

MAX_DEPTH: Final = 100
"""Deepest nesting read in a message field (JSON-like data is never that deep in practice)."""

MAX_INT_BITS: Final = 14_000
"""Largest int read (about 4,200 decimal digits, under Python's 4,300-digit ``str`` limit)."""


def leaves(value: object, skip: frozenset[str] = frozenset()) -> list[str] | str:
    """Every ``str`` inside ``value`` (mappings, lists and tuples walked in order), leaving out the
    values of keys in ``skip`` at any depth; numbers and bools as JSON writes them; other
    objects by ``str()``. A value that cannot be sent is the reason why (a ``str``... inside a
    one-element tuple would be ambiguous, so the reason comes back as a bare ``str``).

    >>> leaves({"type": "file", "file": {"filename": "a.pdf", "size": 3}}, frozenset({"type"}))
    ['a.pdf', '3']
    >>> leaves({"n": 10**5000})
    'holds an int too large to send as JSON'
    >>> nested: object = "x"
    >>> for _ in range(5000):
    ...     nested = [nested]
    >>> leaves(nested)
    'nested deeper than 100 levels'
    """
    found: list[str] = []
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        # By the builtin's own methods: a subclass's ``__str__``, ``__eq__`` or ``__hash__``
        # (a caller's) is never called, and a text found is an exact ``str``.
        kind = type(item)
        if issubclass(kind, str):
            found.append(str.__str__(cast(str, item)))
        elif issubclass(kind, bool):
            found.append("true" if item else "false")
        elif issubclass(kind, int):
            if int.bit_length(cast(int, item)) > MAX_INT_BITS:
                return "holds an int too large to send as JSON"
            found.append(int.__repr__(cast(int, item)))
        elif issubclass(kind, float):
            found.append(float.__repr__(cast(float, item)))
        elif item is None:
            continue
        elif depth >= MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        elif isinstance(item, Mapping):
            try:
                pairs = list(item.items())
            except Exception as exc:  # noqa: BLE001 - a user's mapping may raise anything
                return f"could not be read ({type(exc).__name__})"
            stack.extend((inner, depth + 1) for key, inner in reversed(pairs) if exact_str(key) not in skip)
        elif isinstance(item, list | tuple):
            stack.extend((inner, depth + 1) for inner in reversed(item))
        else:
            try:
                found.append(str(item))
            except Exception as exc:  # noqa: BLE001 - a user's __str__ may raise anything
                return f"could not be read as text ({type(exc).__name__})"
    return found


def exact_str(value: object) -> str | None:
    """``value`` as an exact ``str`` when its type is ``str`` or a subclass (copied by ``str``'s
    own method: a subclass's ``__eq__``, ``__hash__`` or ``__str__``, a caller's code that may
    raise, is never called), else ``None``. Every caller-given text an adapter compares, hashes
    or counts is read through it.

    >>> class Shouty(str):
    ...     def __eq__(self, other):
    ...         raise RuntimeError("no comparing")
    ...     __hash__ = str.__hash__
    >>> exact_str(Shouty("user")) == "user", type(exact_str(Shouty("user"))).__name__, exact_str(3)
    (True, 'str', None)
    """
    kind = type(value)
    if kind is str:
        return cast(str, value)
    return str.__str__(cast(str, value)) if issubclass(kind, str) else None


def json_text(value: object, sort_keys: bool = True) -> str | None:
    """``value`` as JSON, keys sorted unless ``sort_keys`` is False (other objects by ``str``),
    or ``None`` when it cannot be sent (see `leaves` for why; call it first for the reason).

    >>> json_text({"b": 1, "a": [True, None]})
    '{"a": [true, null], "b": 1}'
    >>> json_text({"n": 10**5000}) is None
    True
    """
    if isinstance(leaves(value), str):
        return None
    try:
        return json.dumps(value, sort_keys=sort_keys, default=str, ensure_ascii=False)
    except Exception:  # noqa: BLE001 - unsortable keys, a raising __str__: not sendable as is
        return None


def call_line(shown: object, index: int, field: str, value: object) -> str | MalformedMessage:
    """A tool call as the one JSON line its message is counted with (``shown``, in its own key
    order), or the `MalformedMessage` naming ``field`` (holding ``value``) when it cannot be sent.

    >>> call_line({"id": "c1", "name": "add", "args": {"a": 1}}, 0, "tool_calls[0].args", {"a": 1})
    '{"id": "c1", "name": "add", "args": {"a": 1}}'
    >>> call_line({"args": {"n": 10**5000}}, 2, "tool_calls[0].args", None).message
    'messages[2].tool_calls[0].args: holds an int too large to send as JSON, got None'
    """
    problem = leaves(shown)
    line = json_text(shown, sort_keys=False) if not isinstance(problem, str) else None
    if line is None:
        return MalformedMessage(index, field, value, problem if isinstance(problem, str) else "not JSON")
    return line


def as_mapping(value: object, field: str = "") -> Mapping[str, object] | None:
    """A message as a mapping: a mapping as it is, a pydantic model (an SDK object such as
    OpenAI's ``ChatCompletionMessage`` or an Anthropic content block) by ``model_dump`` without
    its ``None`` fields, else ``None``; a dump that raises raises `Unread` (the reader names it).

    >>> as_mapping({"role": "user"}), as_mapping(3)
    ({'role': 'user'}, None)
    """
    if isinstance(value, Mapping):
        return value
    dump = getattr(type(value), "model_dump", None)
    if not callable(dump):
        return None
    try:
        dumped = dump(value, exclude_none=True, mode="python")
    except Exception as exc:  # noqa: BLE001 - a model whose dump raises: named, never lost
        raise Unread(f"{field}.model_dump()" if field else "model_dump()", exc) from exc
    return dumped if isinstance(dumped, Mapping) else None


def non_empty_str(value: object) -> bool:
    """A ``str`` with at least one character.

    >>> non_empty_str(""), non_empty_str("x"), non_empty_str(3)
    (False, True, False)
    """
    return issubclass(type(value), str) and bool(str.__len__(cast(str, value)))
