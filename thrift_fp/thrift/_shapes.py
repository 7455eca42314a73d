"""Structural item shapes the working set carries, and plain dataclasses that have them.

The protocols list only the attributes every item must have. Optional attributes are read with
``getattr`` when the fit measures the set (a missing attribute takes the default below), so any
object of the right shape works, including a `thrift_fp.records.Retrievable`:

==============  ==========================================================================
item            optional attributes (default when missing or ``None``)
==============  ==========================================================================
message         ``role`` (None), ``summary`` (False), ``ephemeral`` (False),
                ``pair_id`` (None: messages sharing a pair id leave together),
                ``token_cost`` (None: measured from ``content``; an int >= 0 is charged
                as given and ``content`` is never measured)
memory          ``id`` (None: the trace names it ``memory[<input index>]``), ``importance`` (0)
retrievable     ``id`` (None: ``retrievable[<input index>]``), ``score`` (0),
                ``size_unknown`` (False), ``estimate_tokens(encoding)``
thought         ``this_turn`` (False: a prior-turn thought)
tool call       ``this_turn`` (False: a prior-turn call)
image           ``kept`` (True; False means already omitted, costs nothing)
tool            ``shed_rank`` (0: pass 10 hides lower ranks first)
==============  ==========================================================================
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

from thrift_fp._value import value


@runtime_checkable
class MessageLike(Protocol):
    """A chat message: ``id``, ``content`` (a str or anything with ``__str__``), ``created_at``."""

    @property
    def id(self) -> str: ...
    @property
    def content(self) -> object: ...
    @property
    def created_at(self) -> datetime: ...


@runtime_checkable
class MemoryLike(Protocol):
    """A remembered fact; ``importance`` is optional."""

    @property
    def content(self) -> object: ...


@runtime_checkable
class RetrievableLike(Protocol):
    """A retrieved passage (seed 000); ``id``, ``score``, ``size_unknown``, ``estimate_tokens`` optional."""

    @property
    def content(self) -> object: ...


@runtime_checkable
class ThoughtLike(Protocol):
    """A reasoning note; ``this_turn`` is optional."""

    @property
    def id(self) -> str: ...
    @property
    def content(self) -> object: ...
    @property
    def created_at(self) -> datetime: ...


@runtime_checkable
class ToolCallLike(Protocol):
    """A tool call with its result, priced by the caller in ``token_cost``; ``this_turn`` optional."""

    @property
    def ref(self) -> str: ...
    @property
    def token_cost(self) -> int: ...
    @property
    def created_at_ms(self) -> int | float: ...


@runtime_checkable
class ImageLike(Protocol):
    """An attached image priced by the caller; ``kept`` is optional."""

    @property
    def label(self) -> str: ...
    @property
    def token_cost(self) -> int: ...


@runtime_checkable
class ToolLike(Protocol):
    """A callable tool; costs ``count(name + "\\n" + description)`` tokens while visible;
    ``shed_rank`` is optional."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...


@value
class Message:
    """A plain message. ``token_cost``, when given, is what the message costs as the caller sends
    it (e.g. in a provider's chat framing): the fit charges it as given, never counting ``content``.

    >>> from datetime import datetime, timezone
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> Message("m1", "hi", at, role="user").summary, Message("m2", "hi", at, token_cost=9).token_cost
    (False, 9)
    """

    id: str
    content: str
    created_at: datetime
    role: str | None = None
    summary: bool = False
    ephemeral: bool = False
    pair_id: str | None = None
    token_cost: int | None = None


@value
class Memory:
    """A plain memory.

    >>> Memory("likes tea", importance=0.9).importance
    0.9
    """

    content: str
    importance: float | None = None
    id: str | None = None


@value
class WorkingRetrievable:
    """A plain retrieved passage (the concrete retrievable shape; records has the full one).

    >>> WorkingRetrievable("the sky is blue", id="p1", score=0.5).size_unknown
    False
    """

    content: str
    id: str | None = None
    score: float | None = None
    size_unknown: bool = False


@value
class Thought:
    """A plain thought.

    >>> from datetime import datetime, timezone
    >>> Thought("t1", "check the logs", datetime(2026, 1, 1, tzinfo=timezone.utc)).this_turn
    False
    """

    id: str
    content: str
    created_at: datetime
    this_turn: bool = False


@value
class ToolCall:
    """A plain tool call.

    >>> ToolCall("call-1", 120, 1_700_000_000_000, this_turn=True).token_cost
    120
    """

    ref: str
    token_cost: int
    created_at_ms: int | float
    this_turn: bool = False


@value
class Image:
    """A plain image.

    >>> Image("diagram.png", 765).kept
    True
    """

    label: str
    token_cost: int
    kept: bool = True


@value
class Tool:
    """A plain tool.

    >>> Tool("search", "Search the web", shed_rank=2).shed_rank
    2
    """

    name: str
    description: str
    shed_rank: int | float = 0

