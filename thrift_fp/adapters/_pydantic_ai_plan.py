"""From read messages to the core's rows, and from the kept rows back to a history.

Rows. Message ``i`` is row ``i`` (so the trace's ``messages[i]`` is the caller's message ``i``),
priced at what its parts other than ``SystemPromptPart``\\ s cost: system parts are never shed, so
their cost is request-wide, like the instructions in force.

Groups (rows that leave together). A response holding a tool call and every request answering it.
With whole turns, each turn before the newest (from a request with a user prompt to the next one)
is one group; the newest turn keeps its opening request pinned and sheds in units of a response
and the requests that follow it (its tool rounds), oldest first, so what is left still alternates.
Turn and unit groups reach the core as links of ids of their own (never a real call id).

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
from typing import Final

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart, SystemPromptPart

from thrift_fp.adapters._core import Row
from thrift_fp.adapters._pydantic_ai_read import Read, fallback_source

# A group link's id: a NUL byte never starts a provider's tool-call id.
_GROUP: Final = "\x00group@"
_new: Final = tuple.__new__


def plan_rows(reads: Sequence[Read], prices: Sequence[int], whole_turns: bool) -> tuple[Row, ...]:
    """One core row per message (``prices``: each message's tokens without its system parts).

    >>> from pydantic_ai.messages import ModelResponse, TextPart, UserPromptPart
    >>> from thrift_fp.adapters._pydantic_ai_read import read_message
    >>> history = [ModelRequest([SystemPromptPart("s"), UserPromptPart("q0")]), ModelResponse([TextPart("a0")]),
    ...            ModelRequest([UserPromptPart("q1")])]
    >>> rows = plan_rows([read_message(i, m, None) for i, m in enumerate(history)], [5, 5, 5], True)
    >>> [(row.pinned, row.issues, row.answers) for row in rows]
    [(False, (('(turn)', '\\x00group@0'),), ()), (False, (), (('(turn)', '\\x00group@0'),)), (True, (), ())]
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
    heads: list[int | None] = [None] * count
    if whole_turns:
        heads = _turn_heads(reads, starts, newest_turn, pinned)
    members = {head for at, head in enumerate(heads) if head is not None and head != at}
    links = {head: ("(turn)", f"{_GROUP}{head}") for head in members}
    rows: list[Row] = []
    append = rows.append
    for at, read in enumerate(reads):
        head = heads[at]
        issues = read.calls
        answers = read.answers
        if head is not None:
            if head != at:
                answers = (*answers, links[head])
            elif at in links:
                issues = (*issues, links[at])
        # Positional, in `Row`'s field order: one row per message on every step of an agent loop.
        append(_new(Row, (prices[at], issues, answers, False, pinned[at],
                          "request" if read.request else "response", read.estimated)))
    return tuple(rows)


def _turn_heads(reads: Sequence[Read], starts: Sequence[bool], newest_turn: int, pinned: Sequence[bool]) -> list[int | None]:
    """Each message's group head: its turn's first message before the newest turn; in the newest
    turn, the response opening its unit. Pinned messages join no group (one holding them could
    never be shed)."""
    heads: list[int | None] = [None] * len(reads)
    head: int | None = None
    for at, read in enumerate(reads):
        if pinned[at]:
            head = None if starts[at] or at >= newest_turn else head
            continue
        if at < newest_turn:
            if starts[at] or head is None:
                head = at
        elif not read.request or head is None:
            head = at
        heads[at] = head
    return heads


def rebuild(messages: Sequence[ModelMessage], kept: frozenset[int]) -> list[ModelMessage]:
    """The history of the kept rows (see the module docstring).

    >>> from pydantic_ai.messages import ModelResponse, TextPart, UserPromptPart
    >>> history = [ModelRequest([SystemPromptPart("s"), UserPromptPart("q0")]), ModelResponse([TextPart("a0")]),
    ...            ModelRequest([UserPromptPart("q1")])]
    >>> out = rebuild(history, frozenset({2}))
    >>> [type(part).__name__ for part in out[0].parts], len(out), out[0] is history[2]
    (['SystemPromptPart', 'UserPromptPart'], 1, False)
    """
    out: list[ModelMessage] = []
    waiting = _Waiting(messages)
    for at, message in enumerate(messages):
        system = [part for part in message.parts if isinstance(part, SystemPromptPart)] \
            if isinstance(message, ModelRequest) else []
        only_system = bool(system) and len(system) == len(message.parts)
        if system and (only_system or at not in kept):
            # System parts are never shed; without the rest of their request they wait for what follows.
            waiting.add(at, list(system), only_system)
        elif at in kept:
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
