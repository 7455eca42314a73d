"""The working-set JSON format of ``thrift-fp fit``: parse it strictly, write the fitted result.

The format is published as a JSON Schema in ``thrift_fp/schema/working-set.schema.json``;
this module is its executable reading and reports every problem with its JSON path.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.cli._errors import InvalidJson, InvalidWorkingSet
from thrift_fp.thrift import (
    Fitted,
    Image,
    ImageLike,
    Memory,
    MemoryLike,
    Message,
    MessageLike,
    ThoughtLike,
    Thought,
    ThriftOptions,
    Tool,
    ToolCall,
    ToolCallLike,
    ToolLike,
    WorkingRetrievable,
    RetrievableLike,
    WorkingSet,
)

_Value = TypeVar("_Value")

# The published JSON Schema of this format (shipped as package data).
WORKING_SET_SCHEMA: Final = Path(__file__).resolve().parent.parent / "schema" / "working-set.schema.json"

# Allowed keys per object, in the schema's order (tests check the schema says the same).
FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    "request": ("working_set", "context_window", "relevant_tool_names", "options"),
    "working_set": (
        "system_prompt", "standing_instructions", "messages", "memories", "retrievables",
        "thoughts", "tools", "visible_tool_names", "tool_calls", "image",
    ),
    "options": (
        "output_reserve", "reserve_fraction", "strip_prior_turn_thoughts", "keep_thought_ids",
        "this_turn_result_keep", "protected_tool_names", "encoding",
    ),
    "message": ("id", "content", "created_at", "role", "summary", "ephemeral", "pair_id"),
    "memory": ("content", "importance", "id"),
    "retrievable": ("content", "id", "score", "size_unknown"),
    "thought": ("id", "content", "created_at", "this_turn"),
    "tool": ("name", "description", "shed_rank"),
    "tool_call": ("ref", "token_cost", "created_at_ms", "this_turn"),
    "image": ("label", "token_cost", "kept"),
}
_REQUIRED: Final[Mapping[str, frozenset[str]]] = {
    "request": frozenset({"working_set"}),
    "working_set": frozenset(),
    "options": frozenset(),
    "message": frozenset({"id", "content", "created_at"}),
    "memory": frozenset({"content"}),
    "retrievable": frozenset({"content"}),
    "thought": frozenset({"id", "content", "created_at"}),
    "tool": frozenset({"name", "description"}),
    "tool_call": frozenset({"ref", "token_cost", "created_at_ms"}),
    "image": frozenset({"label", "token_cost"}),
}


@value
class FitRequest:
    """A parsed ``fit`` input: the working set, the window (if the file names one) and options."""

    working_set: WorkingSet
    context_window: int | float | None
    relevant_tool_names: tuple[str, ...] | None
    options: ThriftOptions


@dataclass(slots=True)
class _Reader:
    # Mutable only while one parse runs; it never escapes `parse_fit_request`.
    problems: list[str] = field(default_factory=list)

    def problem(self, path: str, reason: str) -> None:
        self.problems.append(f"{path}: {reason}")

    def obj(self, raw: object, path: str, shape: str) -> dict[str, object]:
        if not isinstance(raw, dict):
            self.problem(path, f"expected an object, got {_json_type(raw)}")
            return {}
        for key in sorted(set(raw) - set(FIELDS[shape])):
            self.problem(f"{path}.{key}", f"unknown key; allowed: {', '.join(FIELDS[shape])}")
        for key in sorted(_REQUIRED[shape] - set(raw)):
            self.problem(f"{path}.{key}", "required")
        return raw

    def text(self, raw: object, path: str) -> str:
        if not isinstance(raw, str):
            self.problem(path, f"expected a string, got {_json_type(raw)}")
            return ""
        return raw

    def flag(self, raw: object, path: str) -> bool:
        if not isinstance(raw, bool):
            self.problem(path, f"expected true or false, got {_json_type(raw)}")
            return False
        return raw

    def number(
        self, raw: object, path: str, *, integer: bool = False, minimum: int | float | None = None
    ) -> int | float:
        is_number = isinstance(raw, int | float) and not isinstance(raw, bool)
        if not is_number or (integer and not isinstance(raw, int)) or not math.isfinite(float(str(raw))):
            self.problem(path, f"expected {'an integer' if integer else 'a finite number'}, got {_json_type(raw)}")
            return 0
        value: int | float = raw if isinstance(raw, int) else float(str(raw))
        if minimum is not None and value < minimum:
            self.problem(path, f"must be at least {minimum:g}, got {value!r}")
        return value

    def timestamp(self, raw: object, path: str) -> datetime:
        text = self.text(raw, path)
        try:
            stamp = datetime.fromisoformat(text)
        except ValueError:
            if isinstance(raw, str):
                self.problem(path, f"expected an ISO-8601 timestamp, got {text!r}")
            return datetime.min
        if stamp.tzinfo is None:
            self.problem(path, f"timestamp {text!r} has no time zone (add Z or +00:00)")
        return stamp

    def items(self, raw: object, path: str, parse: Callable[[object, str], _Value]) -> tuple[_Value, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.problem(path, f"expected an array, got {_json_type(raw)}")
            return ()
        return tuple(parse(item, f"{path}[{index}]") for index, item in enumerate(raw))

    def optional(
        self, raw: dict[str, object], key: str, parse: Callable[[object, str], _Value], path: str
    ) -> _Value | None:
        value = raw.get(key)
        return None if value is None else parse(value, f"{path}.{key}")


def _json_type(raw: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    if isinstance(raw, bool) or raw is None:
        return names[type(raw)]
    if isinstance(raw, int | float):
        return f"the number {raw!r}"
    return names.get(type(raw), type(raw).__name__)


def load_json(text: str, origin: str) -> Result[object, InvalidJson]:
    """Parse JSON text; a syntax error names the line and column.

    JSON that Python cannot hold as data is refused too: nesting deeper than the
    decoder's recursion, integers past Python's digit limit, and lone surrogate
    escapes (not Unicode text: the fitted output could never be written).

    >>> load_json('{"a": 1}', "x.json").unwrap()
    {'a': 1}
    >>> load_json('{"a": ', "x.json").failure().message
    'x.json is not valid JSON: Expecting value (line 1, column 7)'
    >>> print(load_json('["\\\\ud800"]', "x.json").failure().message)
    x.json is not valid JSON: the escape \\ud800 is a lone surrogate, not Unicode text
    """
    try:
        loaded: object = json.loads(text)
    except json.JSONDecodeError as exc:
        return Failure(InvalidJson(origin, f"{exc.msg} (line {exc.lineno}, column {exc.colno})"))
    except RecursionError:
        return Failure(InvalidJson(origin, "arrays or objects are nested too deeply"))
    except ValueError as exc:
        # Only the int-conversion digit limit; its advice (sys.set_int_max_str_digits) is not the user's.
        return Failure(InvalidJson(origin, f"a number is too long: {str(exc).split(';')[0]}"))
    surrogate = _lone_surrogate(loaded)
    if surrogate is not None:
        escape = f"\\u{ord(surrogate):04x}"
        return Failure(InvalidJson(origin, f"the escape {escape} is a lone surrogate, not Unicode text"))
    return Success(loaded)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _lone_surrogate(loaded: object) -> str | None:
    # Iterative: the decoder accepts nesting close to the recursion limit.
    pending = [loaded]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found is not None:
                return found.group()
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def parse_fit_request(raw: object, origin: str = "input") -> Result[FitRequest, InvalidWorkingSet]:
    """Read a ``fit`` request, reporting every problem with its JSON path.

    >>> request = parse_fit_request({"context_window": 100, "working_set": {
    ...     "system_prompt": "Be brief.",
    ...     "retrievables": [{"content": "The sky is blue.", "id": "p1", "score": 0.9}]}}).unwrap()
    >>> request.context_window, request.working_set.retrievables[0].id
    (100, 'p1')
    >>> for problem in parse_fit_request({"working_set": {"messages": [{"id": 1}]}}).failure().problems:
    ...     print(problem)
    $.working_set.messages[0].content: required
    $.working_set.messages[0].created_at: required
    $.working_set.messages[0].id: expected a string, got the number 1
    """
    reader = _Reader()
    top = reader.obj(raw, "$", "request")
    working_set = _working_set(reader, top.get("working_set", {}), "$.working_set")
    window = reader.optional(top, "context_window", lambda v, p: reader.number(v, p, minimum=0), "$")
    names = reader.optional(top, "relevant_tool_names", lambda v, p: reader.items(v, p, reader.text), "$")
    options = _options(reader, top.get("options", {}), "$.options")
    if reader.problems:
        return Failure(InvalidWorkingSet(origin, tuple(reader.problems)))
    return Success(FitRequest(working_set, window, names, options))


def _working_set(reader: _Reader, raw: object, path: str) -> WorkingSet:
    ws = reader.obj(raw, path, "working_set")
    def each(key: str, parse: Callable[[_Reader, object, str], _Value]) -> tuple[_Value, ...]:
        return reader.items(ws.get(key), f"{path}.{key}", lambda v, p: parse(reader, v, p))

    # Keyword arguments evaluate in order, so problems are reported in the schema's order.
    return WorkingSet(
        system_prompt=reader.optional(ws, "system_prompt", reader.text, path) or "",
        standing_instructions=each("standing_instructions", lambda r, v, p: r.text(v, p)),
        messages=each("messages", _message),
        memories=each("memories", _memory),
        retrievables=each("retrievables", _retrievable),
        thoughts=each("thoughts", _thought),
        tools=each("tools", _tool),
        visible_tool_names=reader.optional(
            ws, "visible_tool_names", lambda v, p: frozenset(reader.items(v, p, reader.text)), path
        ),
        tool_calls=each("tool_calls", _tool_call),
        image=reader.optional(ws, "image", lambda v, p: _image(reader, v, p), path),
    )


def _stamped(reader: _Reader, item: dict[str, object], path: str) -> tuple[str, str, datetime]:
    # What a message and a thought both hold: id, content and when (datetime.min when absent).
    return (
        reader.text(item.get("id", ""), f"{path}.id"),
        reader.text(item.get("content", ""), f"{path}.content"),
        reader.timestamp(item.get("created_at", ""), f"{path}.created_at") if "created_at" in item else datetime.min,
    )


def _message(reader: _Reader, raw: object, path: str) -> MessageLike:
    m = reader.obj(raw, path, "message")
    return Message(
        *_stamped(reader, m, path),
        role=reader.optional(m, "role", reader.text, path),
        summary=bool(reader.optional(m, "summary", reader.flag, path)),
        ephemeral=bool(reader.optional(m, "ephemeral", reader.flag, path)),
        pair_id=reader.optional(m, "pair_id", reader.text, path),
    )


def _memory(reader: _Reader, raw: object, path: str) -> MemoryLike:
    m = reader.obj(raw, path, "memory")
    return Memory(
        reader.text(m.get("content", ""), f"{path}.content"),
        importance=reader.optional(m, "importance", lambda v, p: float(reader.number(v, p)), path),
        id=reader.optional(m, "id", reader.text, path),
    )


def _retrievable(reader: _Reader, raw: object, path: str) -> RetrievableLike:
    r = reader.obj(raw, path, "retrievable")
    score = reader.optional(r, "score", lambda v, p: float(reader.number(v, p)), path)
    if score is not None and not 0 <= score <= 1:
        reader.problem(f"{path}.score", f"must be within [0, 1], got {score!r}")
    return WorkingRetrievable(
        reader.text(r.get("content", ""), f"{path}.content"),
        id=reader.optional(r, "id", reader.text, path),
        score=score,
        size_unknown=bool(reader.optional(r, "size_unknown", reader.flag, path)),
    )


def _thought(reader: _Reader, raw: object, path: str) -> ThoughtLike:
    t = reader.obj(raw, path, "thought")
    return Thought(*_stamped(reader, t, path), this_turn=bool(reader.optional(t, "this_turn", reader.flag, path)))


def _tool(reader: _Reader, raw: object, path: str) -> ToolLike:
    t = reader.obj(raw, path, "tool")
    return Tool(
        reader.text(t.get("name", ""), f"{path}.name"),
        reader.text(t.get("description", ""), f"{path}.description"),
        shed_rank=reader.optional(t, "shed_rank", reader.number, path) or 0,
    )


def _tool_call(reader: _Reader, raw: object, path: str) -> ToolCallLike:
    c = reader.obj(raw, path, "tool_call")
    return ToolCall(
        reader.text(c.get("ref", ""), f"{path}.ref"),
        int(reader.number(c.get("token_cost", 0), f"{path}.token_cost", integer=True, minimum=0)),
        reader.number(c.get("created_at_ms", 0), f"{path}.created_at_ms"),
        this_turn=bool(reader.optional(c, "this_turn", reader.flag, path)),
    )


def _image(reader: _Reader, raw: object, path: str) -> ImageLike:
    i = reader.obj(raw, path, "image")
    kept = reader.optional(i, "kept", reader.flag, path)
    return Image(
        reader.text(i.get("label", ""), f"{path}.label"),
        int(reader.number(i.get("token_cost", 0), f"{path}.token_cost", integer=True, minimum=0)),
        kept=True if kept is None else kept,
    )


def _options(reader: _Reader, raw: object, path: str) -> ThriftOptions:
    o = reader.obj(raw, path, "options")
    defaults = ThriftOptions()
    fraction = reader.optional(o, "reserve_fraction", lambda v, p: reader.number(v, p, minimum=0), path)
    strip = reader.optional(o, "strip_prior_turn_thoughts", reader.flag, path)
    keep = reader.optional(o, "this_turn_result_keep", lambda v, p: reader.number(v, p, integer=True, minimum=0), path)
    return ThriftOptions(
        output_reserve=reader.optional(o, "output_reserve", lambda v, p: reader.number(v, p, minimum=0), path),
        reserve_fraction=defaults.reserve_fraction if fraction is None else float(fraction),
        strip_prior_turn_thoughts=defaults.strip_prior_turn_thoughts if strip is None else strip,
        keep_thought_ids=frozenset(reader.items(o.get("keep_thought_ids"), f"{path}.keep_thought_ids", reader.text)),
        this_turn_result_keep=defaults.this_turn_result_keep if keep is None else int(keep),
        protected_tool_names=frozenset(
            reader.items(o.get("protected_tool_names"), f"{path}.protected_tool_names", reader.text)
        ),
        encoding=reader.optional(o, "encoding", reader.text, path) or defaults.encoding,
    )


def fitted_to_json(fitted: Fitted) -> dict[str, object]:
    """The fitted working set (in the input format) and the trace, ready for ``json.dumps``.

    >>> from thrift_fp.thrift import subtract_to_fit
    >>> request = parse_fit_request({"working_set": {"retrievables": [
    ...     {"content": "a " * 300, "id": "long", "score": 0.1},
    ...     {"content": "short", "id": "s", "score": 0.9}]}}).unwrap()
    >>> out = fitted_to_json(subtract_to_fit(request.working_set, 200).unwrap())
    >>> [r["id"] for r in out["working_set"]["retrievables"]], out["trace"]["fits"]
    (['s'], True)
    """
    ws = fitted.working_set
    return {
        "working_set": {
            "system_prompt": ws.system_prompt,
            "standing_instructions": list(ws.standing_instructions),
            "messages": [_dump(m, FIELDS["message"]) for m in ws.messages],
            "memories": [_dump(m, FIELDS["memory"]) for m in ws.memories],
            "retrievables": [_dump(r, FIELDS["retrievable"]) for r in ws.retrievables],
            "thoughts": [_dump(t, FIELDS["thought"]) for t in ws.thoughts],
            "tools": [_dump(t, FIELDS["tool"]) for t in ws.tools],
            "visible_tool_names": None if ws.visible_tool_names is None else sorted(ws.visible_tool_names),
            "tool_calls": [_dump(c, FIELDS["tool_call"]) for c in ws.tool_calls],
            "image": None if ws.image is None else _dump(ws.image, FIELDS["image"]),
        },
        "trace": fitted.trace.as_dict(),
    }


def _dump(item: object, keys: tuple[str, ...]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key in keys:
        value = getattr(item, key, None)
        if value is None:
            continue
        out[key] = value.isoformat() if isinstance(value, datetime) else str(value) if key == "content" else value
    return out
