"""Measure a working set once: every item's tokens in one batch, into immutable entries.

The passes then do arithmetic on these entries only; nothing is measured twice in a fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp.thrift._errors import CountingFailed, ThriftError
from thrift_fp.thrift._fields import bad_field, content_text, flag, item_key, real_number, timestamp, token_cost
from thrift_fp.thrift._shapes import (
    ImageLike,
    MemoryLike,
    MessageLike,
    RetrievableLike,
    ThoughtLike,
    ToolCallLike,
    ToolLike,
)
from thrift_fp.thrift._working_set import WorkingSet
from thrift_fp.tokens import TokenEncoding

_Item = TypeVar("_Item")


@dataclass(frozen=True, slots=True)
class Entry(Generic[_Item]):
    """An item with its measured tokens and the attributes the passes sort on."""

    item: _Item
    key: str
    tokens: int
    index: int
    # Age (messages, thoughts, tool calls), score, importance or shed_rank, by bucket.
    rank: float
    this_turn: bool = False
    summary: bool = False
    ephemeral: bool = False
    pair: str | None = None


@dataclass(frozen=True, slots=True)
class Sized:
    """A working set and its measured entries; ``total`` is the tokens of everything visible."""

    working_set: WorkingSet
    fixed_tokens: int
    messages: tuple[Entry[MessageLike], ...]
    memories: tuple[Entry[MemoryLike], ...]
    retrievables: tuple[Entry[RetrievableLike], ...]
    thoughts: tuple[Entry[ThoughtLike], ...]
    tools: tuple[Entry[ToolLike], ...]
    tool_calls: tuple[Entry[ToolCallLike], ...]
    image: Entry[ImageLike] | None
    total: int

def _slot(texts: list[str], text: str) -> int:
    """Queue ``text`` for the one batch count of this fit; its index is the item's slot."""
    texts.append(text)
    return len(texts) - 1


def measure(
    ws: WorkingSet,
    retrievable_keys: Sequence[str],
    estimates: Sequence[int | None],
    encoding: TokenEncoding,
) -> Result[Sized, ThriftError]:
    """Measure every item of ``ws`` (with size-unknown retrievables already excluded) in one batch.

    Text: the system prompt and each standing instruction; message, memory and thought content;
    a retrievable's ``estimate`` when it counts, else its content text; ``name + "\\n" +
    description`` per tool. Tool calls and the image cost their ``token_cost``.
    """
    # Built here and only here: the texts of this one fit, counted in a single batch below.
    pending: list[str] = []
    fixed_slots = [_slot(pending, ws.system_prompt), *(_slot(pending, text) for text in ws.standing_instructions)]
    built = _collect(ws, retrievable_keys, estimates, pending)
    if isinstance(built, Failure):
        return Failure(built.failure())
    image = _image(ws.image) if ws.image is not None else Success(None)
    if isinstance(image, Failure):
        return Failure(image.failure())
    counted = encoding.count_many(pending)
    if isinstance(counted, Failure):
        return Failure(CountingFailed(counted.failure()))
    counts = counted.unwrap()
    return Success(
        _assemble(ws, built.unwrap(), image.unwrap(), counts, sum(counts[slot] for slot in fixed_slots))
    )


@dataclass(frozen=True, slots=True)
class _Row(Generic[_Item]):
    """A validated item waiting for its count: a text ``slot`` in the batch, or ``known`` tokens."""

    item: _Item
    key: str
    slot: int
    known: int
    rank: float
    this_turn: bool = False
    summary: bool = False
    ephemeral: bool = False
    pair: str | None = None


@dataclass(frozen=True, slots=True)
class _Collected:
    messages: list[_Row[MessageLike]]
    memories: list[_Row[MemoryLike]]
    retrievables: list[_Row[RetrievableLike]]
    thoughts: list[_Row[ThoughtLike]]
    tools: list[_Row[ToolLike]]
    tool_calls: list[_Row[ToolCallLike]]


def _collect(
    ws: WorkingSet,
    retrievable_keys: Sequence[str],
    estimates: Sequence[int | None],
    pending: list[str],
) -> Result[_Collected, ThriftError]:
    out = _Collected([], [], [], [], [], [])
    steps: tuple[Callable[[], Result[None, ThriftError]], ...] = (
        lambda: _messages(ws.messages, pending, out.messages),
        lambda: _memories(ws.memories, pending, out.memories),
        lambda: _retrievables(ws.retrievables, retrievable_keys, estimates, pending, out.retrievables),
        lambda: _thoughts(ws.thoughts, pending, out.thoughts),
        lambda: _tools(ws.tools, pending, out.tools),
        lambda: _tool_calls(ws.tool_calls, out.tool_calls),
    )
    for step in steps:
        done = step()
        if isinstance(done, Failure):
            return Failure(done.failure())
    return Success(out)

_OK: Success[None] = Success(None)


def _messages(items: Sequence[MessageLike], pending: list[str], out: list[_Row[MessageLike]]) -> Result[None, ThriftError]:
    for item in items:
        key = item.id
        age = timestamp("messages", key, "created_at", item.created_at)
        summary = flag("messages", key, "summary", getattr(item, "summary", None), False)
        ephemeral = flag("messages", key, "ephemeral", getattr(item, "ephemeral", None), False)
        pair = getattr(item, "pair_id", None)
        text = content_text("messages", key, item.content)
        for part in (age, summary, ephemeral, text):
            if isinstance(part, Failure):
                return Failure(part.failure())
        if pair is not None and not isinstance(pair, str):
            return bad_field("messages", key, "pair_id", pair, "expected a str or None")
        out.append(
            _Row(item, key, _slot(pending, text.unwrap()), 0, age.unwrap(), False, summary.unwrap(), ephemeral.unwrap(), pair)
        )
    return _OK


def _memories(items: Sequence[MemoryLike], pending: list[str], out: list[_Row[MemoryLike]]) -> Result[None, ThriftError]:
    for index, item in enumerate(items):
        key = item_key(item, "memory", index)
        importance = real_number("memories", key, "importance", getattr(item, "importance", None))
        text = content_text("memories", key, item.content)
        if isinstance(importance, Failure):
            return Failure(importance.failure())
        if isinstance(text, Failure):
            return Failure(text.failure())
        out.append(_Row(item, key, _slot(pending, text.unwrap()), 0, importance.unwrap()))
    return _OK


def _retrievables(
    items: Sequence[RetrievableLike],
    keys: Sequence[str],
    estimates: Sequence[int | None],
    pending: list[str],
    out: list[_Row[RetrievableLike]],
) -> Result[None, ThriftError]:
    # The hot loop of a large fit: plain str content and float/None scores skip the checked helpers.
    for item, key, estimate in zip(items, keys, estimates, strict=True):
        raw_score = getattr(item, "score", None)
        if raw_score is None:
            score = 0.0
        elif type(raw_score) is float and math.isfinite(raw_score):
            score = raw_score
        else:
            checked = real_number("retrievables", key, "score", raw_score)
            if isinstance(checked, Failure):
                return Failure(checked.failure())
            score = checked.unwrap()
        if estimate is not None:
            out.append(_Row(item, key, -1, estimate, score))
            continue
        content = item.content
        if type(content) is str:
            text = content
        else:
            rendered = content_text("retrievables", key, content, owner=item)
            if isinstance(rendered, Failure):
                return Failure(rendered.failure())
            text = rendered.unwrap()
        pending.append(text)
        out.append(_Row(item, key, len(pending) - 1, 0, score))
    return _OK


def _thoughts(items: Sequence[ThoughtLike], pending: list[str], out: list[_Row[ThoughtLike]]) -> Result[None, ThriftError]:
    for item in items:
        key = item.id
        age = timestamp("thoughts", key, "created_at", item.created_at)
        this_turn = flag("thoughts", key, "this_turn", getattr(item, "this_turn", None), False)
        text = content_text("thoughts", key, item.content)
        for part in (age, this_turn, text):
            if isinstance(part, Failure):
                return Failure(part.failure())
        out.append(_Row(item, key, _slot(pending, text.unwrap()), 0, age.unwrap(), this_turn.unwrap()))
    return _OK


def _tools(items: Sequence[ToolLike], pending: list[str], out: list[_Row[ToolLike]]) -> Result[None, ThriftError]:
    for item in items:
        key = item.name
        rank = real_number("tools", key, "shed_rank", getattr(item, "shed_rank", None))
        text = content_text("tools", key, item.description)
        if isinstance(rank, Failure):
            return Failure(rank.failure())
        if isinstance(text, Failure):
            return Failure(text.failure())
        out.append(_Row(item, key, _slot(pending, f"{key}\n{text.unwrap()}"), 0, rank.unwrap()))
    return _OK


def _tool_calls(items: Sequence[ToolCallLike], out: list[_Row[ToolCallLike]]) -> Result[None, ThriftError]:
    for item in items:
        key = item.ref
        cost = token_cost("tool-calls", key, item.token_cost)
        age = real_number("tool-calls", key, "created_at_ms", item.created_at_ms)
        this_turn = flag("tool-calls", key, "this_turn", getattr(item, "this_turn", None), False)
        for part in (cost, age, this_turn):
            if isinstance(part, Failure):
                return Failure(part.failure())
        out.append(_Row(item, key, -1, cost.unwrap(), age.unwrap(), this_turn.unwrap()))
    return _OK


def _image(item: ImageLike) -> Result[_Row[ImageLike] | None, ThriftError]:
    key = item.label
    cost = token_cost("image", key, item.token_cost)
    kept = flag("image", key, "kept", getattr(item, "kept", None), True)
    if isinstance(cost, Failure):
        return Failure(cost.failure())
    if isinstance(kept, Failure):
        return Failure(kept.failure())
    # An image already omitted (kept=False) costs nothing and is left alone.
    return Success(_Row(item, key, -1, cost.unwrap() if kept.unwrap() else 0, 0.0))


def _entries(rows: Sequence[_Row[_Item]], counts: Sequence[int]) -> tuple[Entry[_Item], ...]:
    return tuple(
        Entry(
            row.item,
            row.key,
            counts[row.slot] if row.slot >= 0 else row.known,
            index,
            row.rank,
            row.this_turn,
            row.summary,
            row.ephemeral,
            row.pair,
        )
        for index, row in enumerate(rows)
    )


def _assemble(
    ws: WorkingSet, rows: _Collected, image_row: _Row[ImageLike] | None, counts: Sequence[int], fixed: int
) -> Sized:
    messages = _entries(rows.messages, counts)
    memories = _entries(rows.memories, counts)
    retrievables = _entries(rows.retrievables, counts)
    thoughts = _entries(rows.thoughts, counts)
    tools = _entries(rows.tools, counts)
    tool_calls = _entries(rows.tool_calls, counts)
    image = _entries((image_row,), counts)[0] if image_row is not None else None
    visible = ws.visible_tool_names
    total = (
        fixed
        + sum(entry.tokens for entry in messages)
        + sum(entry.tokens for entry in memories)
        + sum(entry.tokens for entry in retrievables)
        + sum(entry.tokens for entry in thoughts)
        + sum(entry.tokens for entry in tool_calls)
        + sum(entry.tokens for entry in tools if visible is None or entry.key in visible)
        + (image.tokens if image is not None else 0)
    )
    return Sized(ws, fixed, messages, memories, retrievables, thoughts, tools, tool_calls, image, total)
