"""The framework-neutral half of the LangChain and LlamaIndex adapters.

An adapter reads each of its objects into a `ChatRow` or a `PassageItem` (the text it costs, its
tool call ids, its score), and this module does the rest: pair tool calls with their results,
build the core `WorkingSet`, run `subtract_to_fit`, and hand back the input positions that
survive, so the adapter returns the caller's own objects.

Deterministic defaults, for inputs that carry no such fields:

- **Age is position.** Message ``i`` gets ``created_at = 1970-01-01 + i microseconds``: an
  ordinal that sorts like the list, not a wall-clock time.
- **Pairs are groups.** A message that issues tool calls and every later message answering one of
  them share one pair id (``calls@<index of the issuing message>``), so an assistant message with
  several calls keeps all of its results or leaves with them. A result answering a call that no
  earlier message issued is an error value, as is a call id issued twice.
- **Trace ids** are ``message[<index>]`` for messages and the passage key for passages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.adapters._b_errors import AdapterError, DuplicateToolCall, FitRejected, MissingToolCall
from thrift_fp.thrift import Message, ThriftOptions, ThriftTrace, WorkingRetrievable, WorkingSet, subtract_to_fit

_ORIGIN: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TICK: Final = timedelta(microseconds=1)


# One message as the fit sees it: (role, the text it costs, the tool call ids it issues, the call
# id it answers or None, never shed). A plain tuple, not a dataclass: an adapter builds one per
# message on the hot path, where a checked constructor costs more than building the text.
ChatRow = tuple[str, str, tuple[str, ...], str | None, bool]


@dataclass(frozen=True, slots=True)
class PassageItem:
    """One retrieved passage: the text it costs, its unique key and its score in [0, 1] or None."""

    text: str
    key: str
    score: float | None = None


@dataclass(frozen=True, slots=True)
class Kept:
    """What survived, as input positions in input order, and the core trace."""

    messages: tuple[int, ...]
    passages: tuple[int, ...]
    trace: ThriftTrace


def pair_ids(rows: Sequence[ChatRow], calls_field: str, answer_field: str) -> Result[tuple[str | None, ...], AdapterError]:
    """Each message's pair id: the issuing message and all its results share one.

    >>> pair_ids([("assistant", "", ("a", "b"), None, False), ("tool", "1", (), "a", False),
    ...           ("tool", "2", (), "b", False), ("user", "thanks", (), None, False)],
    ...          "tool_calls", "tool_call_id").unwrap()
    ('calls@0', 'calls@0', 'calls@0', None)
    >>> pair_ids([("tool", "1", (), "a", False)], "tool_calls", "tool_call_id").failure().message
    "message 0: tool_call_id 'a' answers no tool call issued by an earlier message"
    """
    # Each issued call id -> (issuing message, its group). A message that answers a call joins
    # that group, and so do the calls it issues itself: chains leave as one unit.
    issuer: dict[str, tuple[int, str]] = {}
    pairs: list[str | None] = []
    for index, (_, _, calls, answers, _) in enumerate(rows):
        pair = None
        if answers is not None:
            source = issuer.get(answers)
            if source is None:
                return Failure(MissingToolCall(index, answer_field, answers))
            pair = source[1]
        if calls:
            group = pair if pair is not None else f"calls@{index}"
            for call in calls:
                first = issuer.get(call)
                if first is not None:
                    return Failure(DuplicateToolCall(index, calls_field, call, first[0]))
                issuer[call] = (index, group)
            pair = group
        pairs.append(pair)
    return Success(tuple(pairs))


def to_working_set(
    rows: Sequence[ChatRow],
    passages: Sequence[PassageItem],
    calls_field: str,
    answer_field: str,
) -> Result[WorkingSet, AdapterError]:
    """The core working set of these messages and passages (what `fit_items` fits).

    >>> ws = to_working_set([("user", "hi", (), None, False)], [PassageItem("doc", "d1", 0.5)],
    ...                     "tool_calls", "tool_call_id").unwrap()
    >>> (ws.messages[0].id, ws.messages[0].created_at.isoformat(), ws.retrievables[0].id)
    ('message[0]', '1970-01-01T00:00:00+00:00', 'd1')
    """
    paired = pair_ids(rows, calls_field, answer_field)
    if isinstance(paired, Failure):
        return Failure(paired.failure())
    messages = tuple(
        Message(f"message[{index}]", text, _ORIGIN + _TICK * index, role=role, summary=pinned, pair_id=pair)
        for index, ((role, text, _, _, pinned), pair) in enumerate(zip(rows, paired.unwrap(), strict=True))
    )
    retrievables = tuple(WorkingRetrievable(passage.text, id=passage.key, score=passage.score) for passage in passages)
    return Success(WorkingSet(messages=messages, retrievables=retrievables))


def fit_items(
    rows: Sequence[ChatRow],
    passages: Sequence[PassageItem],
    max_tokens: int,
    encoding: str,
    calls_field: str,
    answer_field: str,
) -> Result[Kept, AdapterError]:
    """Fit the converted set into ``max_tokens`` (the whole budget: no output reserve) and return
    the surviving input positions in input order.

    >>> kept = fit_items([("user", "old " * 50, (), None, False), ("user", "new", (), None, False)], [],
    ...                  20, "cl100k_base", "tool_calls", "tool_call_id").unwrap()
    >>> (kept.messages, kept.trace.fits)
    ((1,), True)
    """
    built = to_working_set(rows, passages, calls_field, answer_field)
    if isinstance(built, Failure):
        return Failure(built.failure())
    fitted = subtract_to_fit(built.unwrap(), max_tokens, options=ThriftOptions(output_reserve=0, encoding=encoding))
    if isinstance(fitted, Failure):
        return Failure(FitRejected(fitted.failure()))
    done = fitted.unwrap()
    # The fitted set holds the very objects built above, so identity maps them back.
    ws = built.unwrap()
    message_at = {id(message): index for index, message in enumerate(ws.messages)}
    passage_at = {id(passage): index for index, passage in enumerate(ws.retrievables)}
    kept_messages = sorted(message_at[id(message)] for message in done.working_set.messages)
    kept_passages = sorted(passage_at[id(passage)] for passage in done.working_set.retrievables)
    return Success(Kept(tuple(kept_messages), tuple(kept_passages), done.trace))
