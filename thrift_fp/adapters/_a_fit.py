"""The bridge to the core: priced messages in, a `WorkingSet` for `subtract_to_fit`, kept indices out.

Conversion. Message ``i`` of the caller's list becomes the core `Message` with id ``str(i)``:

- ``pair_id`` is its group (a call message and every message answering it share one, and so
  do the messages of one turn where an adapter keeps turns whole), so they leave together:
  pass 8 sheds only prefixes that no group straddles;
- ``summary=True`` pins it (never shed): system and developer instructions, the Pydantic AI
  requests holding the system prompt and the newest request;
- ``role`` is the format's role (``request``/``response`` for Pydantic AI);
- ``created_at`` is the Unix epoch for every message, so the core's age is the input order
  (message order stands for age; no wall-clock time is invented);
- ``content`` is a priced stand-in: ``FILLER_UNIT`` repeated once per token the message costs in
  its format's own framing. The core measures a message by counting its text and has no
  caller-priced message cost (tool calls and images have ``token_cost``, messages do not), so this
  is how the core's arithmetic becomes exactly the format's. ``FILLER_UNIT`` is one token in
  ``cl100k_base`` and ``o200k_base`` however often it repeats (a property pins it).

A format's tool call is a message (an assistant message, a ``ModelResponse``), so it enters as a
paired message rather than as a core tool call, which would be shed apart from its message.
Request-wide costs (reply priming, tool schemas, the documents message's framing) are the
working set's ``system_prompt``, priced the same way: never shed (a request's tool list is the
caller's contract with the model, so tools are not shed either). Prior-turn reasoning that the
provider strips (Anthropic thinking blocks) enters as core thoughts, which pass 1 strips.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.adapters._a_errors import AdapterError, FitFailed
from thrift_fp.records import Retrievable
from thrift_fp.render import FitRendered, NonceMode, RandomNonce, fit_and_render
from thrift_fp.thrift import Message, Thought, ThriftOptions, ThriftTrace, WorkingSet, subtract_to_fit

FILLER_UNIT: Final = " a"
AGE: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True, slots=True)
class Priced:
    """One message of the caller's list as the core fits it: its tokens in the format's framing,
    its tool group (``None`` when it pairs with nothing) and whether it is pinned.

    >>> Priced(12, "calls@1").pinned
    False
    """

    tokens: int
    group: str | None = None
    pinned: bool = False
    role: str | None = None


@dataclass(frozen=True, slots=True)
class StrippedThought:
    """Reasoning the provider drops from prior turns: its id and what it would cost if sent."""

    id: str
    tokens: int


@dataclass(frozen=True, slots=True)
class Budgeting:
    """The window and reserve the caller chose (see `thrift_fp.thrift.resolve_budget`)."""

    context_window: int | float
    output_reserve: int | float | None = None
    reserve_fraction: float = 0.35


@dataclass(frozen=True, slots=True)
class CoreFit:
    """What the core kept: message indices (input order), the trace, and the documents' render."""

    kept: tuple[int, ...]
    trace: ThriftTrace
    documents: FitRendered | None


def filler(tokens: int) -> str:
    """A text of exactly ``tokens`` tokens in ``cl100k_base`` and ``o200k_base``.

    >>> from thrift_fp.tokens import count_tokens
    >>> count_tokens(filler(5), "o200k_base").unwrap().tokens
    5
    """
    return FILLER_UNIT * tokens


def working_set_of(
    messages: Sequence[Priced],
    fixed_tokens: int,
    thoughts: Sequence[StrippedThought] = (),
    documents: Sequence[Retrievable] = (),
) -> WorkingSet:
    """The converted working set the core fits (see the module docstring).

    >>> ws = working_set_of([Priced(4), Priced(6, "g"), Priced(5, "g")], 3)
    >>> [(m.id, m.pair_id, len(m.content) // 2) for m in ws.messages]
    [('0', None, 4), ('1', 'g', 6), ('2', 'g', 5)]
    """
    return WorkingSet(
        system_prompt=filler(fixed_tokens),
        messages=tuple(
            Message(str(index), filler(item.tokens), AGE, item.role, item.pinned, pair_id=item.group)
            for index, item in enumerate(messages)
        ),
        thoughts=tuple(Thought(item.id, filler(item.tokens), AGE) for item in thoughts),
        retrievables=tuple(documents),
    )


def fit_priced(
    messages: Sequence[Priced],
    fixed_tokens: int,
    budgeting: Budgeting,
    encoding: str,
    *,
    thoughts: Sequence[StrippedThought] = (),
    documents: Sequence[Retrievable] = (),
    nonce: NonceMode = RandomNonce(),
) -> Result[CoreFit, AdapterError]:
    """Fit the converted set; with documents, `fit_and_render` prices each at its rendered cost.

    >>> done = fit_priced([Priced(50), Priced(30), Priced(20)], 3, Budgeting(100, 40), "cl100k_base").unwrap()
    >>> (done.kept, done.trace.total_after, done.trace.fits)
    ((1, 2), 53, True)
    """
    ws = working_set_of(messages, fixed_tokens, thoughts, documents)
    options = ThriftOptions(budgeting.output_reserve, budgeting.reserve_fraction, encoding=encoding)
    if documents:
        rendered = fit_and_render(ws, budgeting.context_window, None, options, nonce=nonce, encoding=encoding)
        if isinstance(rendered, Failure):
            return Failure(FitFailed(rendered.failure()))
        done = rendered.unwrap()
        return Success(CoreFit(_kept(done.working_set), done.trace, done))
    fitted = subtract_to_fit(ws, budgeting.context_window, None, options, encoding=encoding)
    if isinstance(fitted, Failure):
        return Failure(FitFailed(fitted.failure()))
    return Success(CoreFit(_kept(fitted.unwrap().working_set), fitted.unwrap().trace, None))


def _kept(ws: WorkingSet) -> tuple[int, ...]:
    return tuple(sorted(int(message.id) for message in ws.messages))


class Groups:
    """Union of messages linked by tool-call ids (and turns); a group's id is its earliest member's index.

    >>> groups = Groups()
    >>> groups.link(1, 2); groups.link(4, 2); groups.link(6, 7)
    >>> groups.ids(8)
    (None, 'calls@1', 'calls@1', None, 'calls@1', None, 'calls@6', 'calls@6')
    """

    __slots__ = ("_parent",)

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}

    def _root(self, index: int) -> int:
        parent = self._parent
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    def link(self, first: int, second: int) -> None:
        """Put messages ``first`` and ``second`` in one group."""
        for index in (first, second):
            self._parent.setdefault(index, index)
        low, high = sorted((self._root(first), self._root(second)))
        self._parent[high] = low

    def link_turns(self, starts: Sequence[bool], pinned: Sequence[bool]) -> None:
        """Group every message with the turn it belongs to: a turn runs from a message that starts
        one (``starts``) to the next; messages before the first start form a turn of their own.
        Pinned messages join no turn (a group holding a pinned message could never be shed); the
        messages after a pinned start form a turn of their own.

        >>> groups = Groups()
        >>> groups.link_turns([False, True, False, True, False], [True, False, False, False, False])
        >>> groups.ids(5)
        (None, 'calls@1', 'calls@1', 'calls@3', 'calls@3')
        """
        start: int | None = None
        for index, (begins, fixed) in enumerate(zip(starts, pinned, strict=True)):
            if fixed:
                # A pinned message that starts a turn still ends the one before it.
                start = None if begins else start
                continue
            if begins or start is None:
                start = index
            self.link(start, index)

    def ids(self, count: int) -> tuple[str | None, ...]:
        """The group id of each of messages ``0 .. count - 1`` (``None`` when linked to no other)."""
        roots = [self._root(index) if index in self._parent else None for index in range(count)]
        sizes = Counter(root for root in roots if root is not None)
        return tuple(None if root is None or sizes[root] < 2 else f"calls@{root}" for root in roots)
