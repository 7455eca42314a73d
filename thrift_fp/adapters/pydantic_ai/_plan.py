"""From read messages to the core's rows, and from the kept rows back to a history.

Rows. Message ``i`` is row ``i`` (so the trace's ``messages[i]`` is the caller's message ``i``),
priced at what its parts other than ``SystemPromptPart``\\ s cost: system parts are never shed, so
their cost is request-wide, like the instructions in force.

Groups (rows that leave together). A response holding a tool call and every request answering it.
With whole turns, each turn before the newest (from a request with a user prompt to the next one)
is one group; the newest turn keeps its opening request pinned and sheds in units of a response
and the requests that follow it (its tool rounds), oldest first, so what is left still alternates.
A history with no user prompt is one turn before the newest: kept whole (or the fit is over budget).
Turn and unit groups reach the core as each row's ``group`` key (``turn@`` and the head's position).

Pins (never shed). The newest request; with whole turns, the newest turn's opening request and the
unit leading into any later pinned request of that turn (the response before it: without it the
two requests would be adjacent); and, when the newest request has no instructions and only
answers calls, everything from the request before it (where Pydantic AI then reads the
instructions, when any request before has some) to the end.

Back to a history. Kept messages stay the caller's own objects, in order. A request whose other
parts were shed leaves its system parts, which never stand alone before another request (Pydantic
AI would merge the two): they go at the front of the next kept request, a new ``ModelRequest``
made with ``dataclasses.replace`` (what Pydantic AI would send for the pair), or, when a response
or nothing follows, form a new request of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import compress, count
from operator import attrgetter
from typing import Final, NamedTuple

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart, SystemPromptPart

from thrift_fp._value import value
from thrift_fp.adapters._core import Row
from thrift_fp.adapters.pydantic_ai._read import Read, fallback_source

_new: Final = tuple.__new__
_system_parts: Final = attrgetter("system_parts")


@value
class PlanCarry:
    """What one plan hands the next (see `plan_rows`): its rows and turn heads, and ``guard``, the
    first position whose row another message can change (a pin or the newest turn); ``resume``
    is where the next plan of a grown history will likely start anew."""

    whole_turns: bool
    rows: tuple[Row, ...]
    heads: list[int | None]
    guard: int
    resume: int


def plan_rows(
    reads: Sequence[Read], prices: Sequence[int], whole_turns: bool, carried: PlanCarry | None = None,
    first: int = 0,
) -> tuple[tuple[Row, ...], PlanCarry]:
    """One core row per message (``prices``: each message's tokens without its system parts).

    ``carried`` (the previous plan) with ``first`` (the first position whose read is not the
    previous plan's) keeps the previous rows up to where any could differ: before the first
    changed read, the pins and the newest turn of both plans, and the turn holding that point.

    >>> from pydantic_ai.messages import ModelResponse, TextPart, UserPromptPart
    >>> from thrift_fp.adapters.pydantic_ai._read import read_message
    >>> history = [ModelRequest([SystemPromptPart("s"), UserPromptPart("q0")]), ModelResponse([TextPart("a0")]),
    ...            ModelRequest([UserPromptPart("q1")])]
    >>> rows, _ = plan_rows([read_message(i, m, None) for i, m in enumerate(history)], [5, 5, 5], True)
    >>> [(row.pinned, row.group) for row in rows]
    [(False, 'turn@0'), (False, 'turn@0'), (False, None)]
    """
    count = len(reads)
    pinned, newest_turn, guard = _pins(reads, whole_turns)
    start = 0
    if carried is not None and carried.whole_turns == whole_turns:
        start = min(first, carried.guard, guard, len(carried.rows), count)
        # The turn holding the last kept row may gain or lose members: it is planned anew.
        head = carried.heads[start - 1] if whole_turns and start else None
        start = start if head is None else head
    heads = [*(carried.heads[:start] if carried is not None else ()), *([None] * (count - start))]
    if whole_turns:
        _turn_heads(reads, newest_turn, pinned, heads, start)
    members = {head for at in range(start, count) if (head := heads[at]) is not None and head != at}
    rows: list[Row] = []
    append = rows.append
    last = count - 1
    for at in range(start, count):
        read = reads[at]
        head = heads[at]
        # Positional, in `Row`'s field order: one row per new message on every step of an agent loop.
        # The last row needs no pin: the core never sheds the newest message.
        append(_new(Row, (prices[at], read.calls, read.answers, False, pinned[at] and at != last,
                          "request" if read.request else "response", read.estimated,
                          f"turn@{head}" if head in members else None)))
    planned = (*(carried.rows[:start] if carried is not None else ()), *rows)
    resume = min(guard, count)
    head = heads[resume - 1] if whole_turns and resume else None
    return planned, PlanCarry(whole_turns, planned, heads, guard, resume if head is None else head)


def _pins(reads: Sequence[Read], whole_turns: bool) -> tuple[list[bool], int, int]:
    """Which messages are pinned (see the module docstring), the newest turn's opening, and the
    first position that either can reach. Scans back from the end: a step costs what is new."""
    count = len(reads)
    pinned = [False] * count
    newest_request = next((at for at in range(count - 1, -1, -1) if reads[at].request), None)
    guard = count
    if newest_request is not None:
        pinned[newest_request] = True
        guard = newest_request
    source = fallback_source(reads)
    if source is not None:
        pinned[source:] = [True] * (count - source)
        guard = min(guard, source)
    prompted = next((at for at in range(count - 1, -1, -1) if reads[at].request and reads[at].prompt), None)
    # No request holds a user prompt: the history is one turn with no question, which `_turn_heads`
    # keeps whole (any cut would open on a response or a tool return); without whole turns, the
    # newest turn starts at the beginning.
    newest_turn = prompted if prompted is not None else count if whole_turns else 0
    guard = min(guard, newest_turn)
    if whole_turns and prompted is not None:
        pinned[newest_turn] = True
        # A pinned request later in the newest turn keeps the unit leading into it (the response
        # before it and any requests between): shedding that unit alone would leave two requests
        # adjacent, the opening and this one.
        for at in range(newest_turn + 1, count):
            if pinned[at] and reads[at].request:
                lead = at - 1
                while lead > newest_turn and reads[lead].request:
                    lead -= 1
                if lead > newest_turn:
                    pinned[lead:at] = [True] * (at - lead)
    return pinned, newest_turn, guard


def _turn_heads(reads: Sequence[Read], newest_turn: int, pinned: Sequence[bool], heads: list[int | None], start: int) -> None:
    """Each message's group head from ``start`` on (a turn's opening there): its turn's first
    message before the newest turn; in the newest turn, the response opening its unit. Pinned
    messages join no group (one holding them could never be shed)."""
    head: int | None = None
    for at in range(start, len(reads)):
        read = reads[at]
        opens = read.request and read.prompt
        if pinned[at]:
            head = None if opens or at >= newest_turn else head
            continue
        if at < newest_turn:
            if opens or head is None:
                head = at
        elif not read.request or head is None:
            head = at
        heads[at] = head


def rebuild(messages: Sequence[ModelMessage], kept: Sequence[int], reads: Sequence[Read]) -> list[ModelMessage]:
    """The history of the kept rows (``kept``: ascending positions; see the module docstring).

    >>> from pydantic_ai.messages import ModelResponse, TextPart, UserPromptPart
    >>> from thrift_fp.adapters.pydantic_ai._read import read_message
    >>> history = [ModelRequest([SystemPromptPart("s"), UserPromptPart("q0")]), ModelResponse([TextPart("a0")]),
    ...            ModelRequest([UserPromptPart("q1")])]
    >>> out = rebuild(history, (2,), [read_message(i, m, None) for i, m in enumerate(history)])
    >>> [type(part).__name__ for part in out[0].parts], len(out), out[0] is history[2]
    (['SystemPromptPart', 'UserPromptPart'], 1, False)
    """
    keeping = frozenset(kept)
    # The common case in C-level passes: every message holding system parts is kept with other
    # parts, so no system part waits and what is sent is the kept messages themselves.
    holding = compress(count(), map(_system_parts, reads))
    if all(at in keeping and len(reads[at].system_parts) < reads[at].part_count for at in holding):
        return list(map(messages.__getitem__, kept))
    out: list[ModelMessage] = []
    waiting = _Waiting(messages)
    for at, message in enumerate(messages):
        system = [part for part in message.parts if isinstance(part, SystemPromptPart)] \
            if isinstance(message, ModelRequest) else []
        only_system = bool(system) and len(system) == len(message.parts)
        if system and (only_system or at not in keeping):
            # System parts are never shed; without the rest of their request they wait for what follows.
            waiting.add(at, list(system), only_system)
        elif at in keeping:
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
        out: list[ModelMessage]
        if isinstance(message, ModelRequest):
            if as_given and self._from[-1] == at - 1:
                out = [*(self._messages[index] for index in self._from), message]
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
