"""From read messages to rows the core fits, and from the kept rows back to a history.

Rows. Message ``i`` is one row, or two when it is a request holding ``SystemPromptPart``\\ s and
other parts: a pinned row of its system parts and a row of the rest, so the old user prompt can
go while the system prompt stays.

Groups (rows that leave together). A response holding a tool call and every request answering it.
With whole turns, each turn before the newest (from a request with a user prompt to the next one)
is one group; the newest turn keeps its opening request pinned and sheds in units of a response
and the requests that follow it (its tool rounds), oldest first, so what is left still alternates.

Pins (never shed). System rows; the newest request; with whole turns, the newest turn's opening
request; and, when the newest request has no instructions and only answers calls, everything from
the request before it (where Pydantic AI then reads the instructions) to the end.

Back to a history. Kept messages stay the caller's own objects, in order. A request whose other
parts were shed leaves its system parts, which never stand alone before another request (Pydantic
AI would merge the two): they go at the front of the next kept request, a new ``ModelRequest``
made with ``dataclasses.replace`` (what Pydantic AI would send for the pair), or, when a response
or nothing follows, form a new request of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart, SystemPromptPart

from thrift_fp.adapters._pydantic_ai_read import Read, fallback_source

Half = Literal["system", "rest", "whole"]
SYSTEM: Final = "system"


@dataclass(frozen=True, slots=True)
class Row:
    """One row the core fits: its message, which half, its tokens, pin and group (a row index)."""

    message: int
    half: Half
    tokens: int
    pinned: bool
    group: int | None


@dataclass(frozen=True, slots=True)
class Plan:
    """The rows, and for each message the row of its system half (or None) and of the rest."""

    rows: tuple[Row, ...]
    system_row: tuple[int | None, ...]
    main_row: tuple[int | None, ...]


def plan_rows(reads: Sequence[Read], prices: Sequence[tuple[int, int]], whole_turns: bool) -> Plan:
    """Rows, pins and groups for ``reads`` (``prices``: each message's system and rest tokens).

    >>> from pydantic_ai.messages import ModelResponse, SystemPromptPart, TextPart, UserPromptPart
    >>> from thrift_fp.adapters._pydantic_ai_read import read_message
    >>> history = [ModelRequest([SystemPromptPart("s"), UserPromptPart("q0")]), ModelResponse([TextPart("a0")]),
    ...            ModelRequest([UserPromptPart("q1")])]
    >>> reads = [read_message(i, m, None) for i, m in enumerate(history)]
    >>> plan = plan_rows(reads, [(4, 5), (0, 5), (0, 5)], True)
    >>> [(row.message, row.half, row.pinned, row.group) for row in plan.rows]
    [(0, 'system', True, None), (0, 'rest', False, 1), (1, 'whole', False, 1), (2, 'whole', True, None)]
    """
    count = len(reads)
    pinned = [False] * count
    requests = [at for at in range(count) if reads[at].request]
    if requests:
        pinned[requests[-1]] = True
    source = fallback_source(reads)
    if source is not None:
        pinned[source:] = [True] * (count - source)
    starts = [read.request and read.prompt for read in reads]
    newest_turn = max((at for at in range(count) if starts[at]), default=0)
    if whole_turns and count and starts[newest_turn]:
        pinned[newest_turn] = True

    rows: list[Row] = []
    system_row: list[int | None] = []
    main_row: list[int | None] = []
    for at, read in enumerate(reads):
        system_tokens, rest_tokens = prices[at]
        split = bool(read.system_parts) and read.part_count > len(read.system_parts)
        only_system = bool(read.system_parts) and not split
        if split:
            system_row.append(len(rows))
            rows.append(Row(at, "system", system_tokens, True, None))
            main_row.append(len(rows))
            rows.append(Row(at, "rest", rest_tokens, pinned[at], None))
        else:
            system_row.append(None)
            main_row.append(len(rows))
            rows.append(Row(at, "whole", system_tokens + rest_tokens, pinned[at] or only_system, None))

    links = _Links()
    calls: dict[str, int] = {}
    for at, read in enumerate(reads):
        for _, call_id in read.answers:
            if call_id in calls:
                links.link(main_row[calls[call_id]], main_row[at])
        for call_id in read.calls:
            calls[call_id] = at
    if whole_turns:
        _link_turns(reads, starts, newest_turn, main_row, [row.pinned for row in rows], links)
    groups = links.groups(len(rows))
    return Plan(
        tuple(replace(row, group=group) for row, group in zip(rows, groups, strict=True)),
        tuple(system_row),
        tuple(main_row),
    )


def _link_turns(
    reads: Sequence[Read], starts: Sequence[bool], newest_turn: int, main_row: Sequence[int | None],
    pinned: Sequence[bool], links: _Links,
) -> None:
    unit: int | None = None
    for at, read in enumerate(reads):
        row = main_row[at]
        if row is None or pinned[row]:
            # A pinned message joins no unit: a group holding it could never be shed.
            unit = None if starts[at] or at >= newest_turn else unit
            continue
        if at < newest_turn:
            if starts[at] or unit is None:
                unit = row
        elif not read.request or unit is None:
            unit = row
        links.link(unit, row)


class _Links:
    """Union of rows that leave together; a group is named by its earliest row."""

    __slots__ = ("_parent",)

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}

    def _root(self, row: int) -> int:
        parent = self._parent
        while parent[row] != row:
            parent[row] = parent[parent[row]]
            row = parent[row]
        return row

    def link(self, first: int | None, second: int | None) -> None:
        if first is None or second is None:
            return
        for row in (first, second):
            self._parent.setdefault(row, row)
        low, high = sorted((self._root(first), self._root(second)))
        self._parent[high] = low

    def groups(self, count: int) -> list[int | None]:
        roots = [self._root(row) if row in self._parent else None for row in range(count)]
        sizes: dict[int, int] = {}
        for root in roots:
            if root is not None:
                sizes[root] = sizes.get(root, 0) + 1
        return [None if root is None or sizes[root] < 2 else root for root in roots]


def rebuild(messages: Sequence[ModelMessage], plan: Plan, kept_rows: frozenset[int]) -> list[ModelMessage]:
    """The history of the kept rows (see the module docstring).

    >>> from pydantic_ai.messages import ModelResponse, SystemPromptPart, TextPart, UserPromptPart
    >>> history = [ModelRequest([SystemPromptPart("s"), UserPromptPart("q0")]), ModelResponse([TextPart("a0")]),
    ...            ModelRequest([UserPromptPart("q1")])]
    >>> plan = Plan((Row(0, "system", 4, True, None), Row(0, "rest", 5, False, 1), Row(1, "whole", 5, False, 1),
    ...              Row(2, "whole", 5, True, None)), (0, None, None), (1, 2, 3))
    >>> out = rebuild(history, plan, frozenset({0, 3}))
    >>> [type(part).__name__ for part in out[0].parts], len(out), out[0] is history[2]
    (['SystemPromptPart', 'UserPromptPart'], 1, False)
    """
    out: list[ModelMessage] = []
    waiting = _Waiting(messages)
    for at, message in enumerate(messages):
        system = plan.system_row[at]
        main = plan.main_row[at]
        main_kept = main is not None and main in kept_rows
        if system is not None and system in kept_rows and not main_kept:
            # The rest of this request was shed: its system parts wait for what follows.
            assert isinstance(message, ModelRequest)
            waiting.add(at, [part for part in message.parts if isinstance(part, SystemPromptPart)], False)
        elif main_kept and isinstance(message, ModelRequest) and _only_system(message):
            waiting.add(at, list(message.parts), True)
        elif main_kept:
            out += waiting.before(at, message)
    out += waiting.before(len(messages), None)
    return out


class _Waiting:
    """System parts waiting for the next kept message."""

    __slots__ = ("_from", "_messages", "_parts", "_whole")

    def __init__(self, messages: Sequence[ModelMessage]) -> None:
        self._messages = messages
        self._parts: list[ModelRequestPart] = []
        self._from: list[int] = []
        self._whole = True

    def add(self, at: int, parts: list[ModelRequestPart], whole: bool) -> None:
        self._parts += parts
        self._from.append(at)
        self._whole = self._whole and whole

    def before(self, at: int, message: ModelMessage | None) -> list[ModelMessage]:
        """What to emit for ``message`` (None: the end) with the waiting parts."""
        if not self._from:
            return [] if message is None else [message]
        # Whole system-only requests that were already adjacent to each other and to what follows
        # stay the caller's objects (Pydantic AI merges them as it would have anyway).
        as_given = self._whole and self._from == list(range(self._from[0], self._from[0] + len(self._from)))
        if message is not None and isinstance(message, ModelRequest):
            if as_given and self._from[-1] == at - 1:
                out: list[ModelMessage] = [self._messages[index] for index in self._from]
                out.append(message)
            else:
                out = [replace(message, parts=[*self._parts, *message.parts])]
        else:
            if as_given:
                out = [self._messages[index] for index in self._from]
            else:
                base = self._messages[self._from[0]]
                assert isinstance(base, ModelRequest)
                out = [replace(base, parts=list(self._parts))]
            if message is not None:
                out.append(message)
        self._parts = []
        self._from = []
        self._whole = True
        return out


def _only_system(message: ModelRequest) -> bool:
    return bool(message.parts) and all(isinstance(part, SystemPromptPart) for part in message.parts)
