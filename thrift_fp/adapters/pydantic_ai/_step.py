"""What a history processor carries from one model call to the next, and how it notices edits.

An agent's history grows by appending, so the next call's messages start with this call's very
objects. But the caller's code may also edit an earlier message in place between two calls
(replace a part, a part's text, a request's instructions, or the parts list itself). A `Snapshot`
remembers, in C-level passes, each message's field values, its parts, and each part's field
values; the next call compares the new snapshot with the old one element by element (identity
first, then ``==`` only for what was replaced) and re-reads only the messages that differ. A
message whose parts list or part was replaced, or whose field was set to a new value, is read
again; what cannot be noticed without reading everything is a container mutated in place inside
a part (a tool call's ``args`` dict changed key by key), which the caller must replace instead.

A message that no longer sits where it did (an insertion or removal before it) is matched by
identity to its old position when its snapshot there is unchanged.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, chain, compress, count, repeat
from operator import attrgetter, is_, is_not, ne, not_
from typing import Final, TypeVar, cast

from thrift_fp._value import value

_parts: Final = attrgetter("parts")
# An object's own fields: its ``__dict__`` (an object without one, or a class, whose is a mapping
# proxy, makes `dict` below refuse it, so it is read afresh every time).
_dict: Final = cast("Callable[[object], dict[str, object]]", attrgetter("__dict__"))
_LISTS: Final = {list, tuple}
_T = TypeVar("_T")


@value
class Snapshot:
    """Each message (``items``), its parts list and ``instructions`` objects (``lists``,
    ``instructions``), every part, flat (``parts``; message ``i`` has ``lengths[i]`` of them), and
    a copy of each part's fields (``fields``). A copy equal to the live fields is reused by the
    next snapshot, so a step allocates only for what is new or edited. (A message's other fields,
    such as its timestamp, change nothing Pydantic AI sends.)"""

    items: tuple[object, ...]
    lists: list[object]
    instructions: list[object]
    parts: list[object]
    lengths: list[int]
    fields: list[dict[str, object]]


@value
class Origins:
    """Where each message's reading comes from: the first ``shared`` messages from their own
    positions in the old snapshot, except those in ``moved`` (new position: old position) and
    ``fresh`` (read again, ascending); every message from ``shared`` on is in one of the two."""

    total: int
    shared: int
    moved: dict[int, int]
    fresh: list[int]

    def first(self) -> int:
        """The first position whose reading is not the old one at the same position."""
        return min((self.shared, *self.fresh[:1], *self.moved))

    def gather(self, values: Sequence[_T], default: _T) -> list[_T]:
        """``values`` (the old snapshot's, by position) where they still hold, ``default`` where fresh."""
        out = [*values[:self.shared], *repeat(default, self.total - self.shared)]
        for at, before in self.moved.items():
            out[at] = values[before]
        for at in self.fresh:
            out[at] = default
        return out


def snapshot(messages: Sequence[object], old: Snapshot | None = None) -> tuple[Snapshot, Origins] | None:
    """The snapshot of ``messages`` and where each message's reading comes from (`Origins`: the
    same object with an unchanged snapshot in ``old``, or read again). ``None`` when a message or
    part has no plain ``__dict__`` or its parts are not a list or tuple: then nothing is carried.

    >>> from pydantic_ai.messages import ModelRequest, UserPromptPart
    >>> history = [ModelRequest([UserPromptPart("a")]), ModelRequest([UserPromptPart("b")])]
    >>> before, found = snapshot(history)
    >>> found.fresh, before.lengths
    ([0, 1], [1, 1])
    >>> history[0].parts[0].content = "edited"
    >>> after = snapshot([*history, ModelRequest([UserPromptPart("c")])], before)[1]
    >>> after.shared, after.fresh, after.first()
    (2, [0, 2], 0)
    >>> snapshot(history[1:], before)[1].moved
    {0: 1}
    >>> snapshot(["not a message"]) is None
    True
    """
    items = tuple(messages)
    total = len(items)
    try:
        lists = list(map(_parts, items))
        if set(map(type, lists)) - _LISTS:
            return None
        instructions = list(map(getattr, items, repeat("instructions", total), repeat(None, total)))
        parts = list(chain.from_iterable(lists))
        fields = list(map(_dict, parts))
    except Exception:  # noqa: BLE001 - anything unusual is read afresh, every time
        return None
    lengths = list(map(len, lists))
    if old is None:
        return Snapshot(items, lists, instructions, parts, lengths, list(map(dict, fields))), Origins(total, 0, {}, list(range(total)))
    shared = min(len(old.items), total)
    same = _aligned(old, items, lists, instructions, parts, lengths, fields, shared)
    changed = [at for at in compress(count(), map(not_, same))]
    moved: dict[int, int] = {}
    fresh: list[int] = []
    where: dict[int, int] = {}
    ends: list[int] = []
    olds: list[int] = []
    if changed:
        # Something moved or changed: a message may now sit elsewhere, unchanged.
        where = dict(zip(map(id, old.items), count()))
        ends, olds = [0, *accumulate(lengths)], [0, *accumulate(old.lengths)]
    for at in (*changed, *range(shared, total)):
        if changed:
            before = where.get(id(items[at]))
            if before is not None and _same_at(old, before, items[at], lists[at], instructions[at],
                                               parts[ends[at]:ends[at + 1]], fields[ends[at]:ends[at + 1]], olds):
                moved[at] = before
                continue
        fresh.append(at)
    # Copies: the old ones where nothing changed (equal to the live fields), new ones elsewhere.
    copies: list[dict[str, object]]
    if not changed and lengths[:shared] == old.lengths[:shared]:
        prefix = sum(lengths[:shared])
        copies = [*old.fields[:prefix], *map(dict, fields[prefix:])]
    else:
        ends = [0, *accumulate(lengths)]
        olds = [0, *accumulate(old.lengths)]
        copies = []
        for at in range(total):
            before = at if at < shared and same[at] else moved.get(at, -1)
            copies += old.fields[olds[before]:olds[before + 1]] if before >= 0 else map(dict, fields[ends[at]:ends[at + 1]])
    return Snapshot(items, lists, instructions, parts, lengths, copies), Origins(total, shared, moved, fresh)


def _aligned(
    old: Snapshot, items: tuple[object, ...], lists: list[object], instructions: list[object], parts: list[object],
    lengths: list[int], fields: list[dict[str, object]], shared: int,
) -> list[bool]:
    """Whether each of the first ``shared`` messages is unchanged at its own position."""
    same = [True] * shared
    for at in chain(compress(count(), map(is_not, items[:shared], old.items[:shared])),
                    compress(count(), map(is_not, lists[:shared], old.lists[:shared])),
                    compress(count(), map(is_not, instructions[:shared], old.instructions[:shared]))):
        same[at] = False
    if lengths[:shared] != old.lengths[:shared]:
        ends, olds = [0, *accumulate(lengths)], [0, *accumulate(old.lengths)]
        return [flag and _same_at(old, at, items[at], lists[at], instructions[at], parts[ends[at]:ends[at + 1]],
                                  fields[ends[at]:ends[at + 1]], olds) for at, flag in enumerate(same)]
    end = sum(lengths[:shared])
    try:
        slots = [*compress(count(), map(is_not, parts[:end], old.parts[:end])),
                 *compress(count(), map(ne, fields[:end], old.fields[:end]))]
    except Exception:  # noqa: BLE001 - a replaced value whose == raises: compare one by one
        slots = [slot for slot in range(end) if not _same_part(parts[slot], fields[slot], old.parts[slot], old.fields[slot])]
    if slots:
        closing = list(accumulate(lengths))
        for slot in slots:
            same[bisect_right(closing, slot)] = False
    return same


def _same_part(part: object, fields: dict[str, object], old_part: object, old_fields: dict[str, object]) -> bool:
    try:
        return part is old_part and bool(fields == old_fields)
    except Exception:  # noqa: BLE001 - any failure to compare means: read the message again
        return False


def _same_at(
    old: Snapshot, before: int, item: object, parts_list: object, instructions: object, parts: list[object],
    fields: list[dict[str, object]], olds: list[int],
) -> bool:
    # A value that cannot compare (a hostile __eq__, nesting past the recursion limit) counts as changed.
    start, end = olds[before], olds[before + 1]
    try:
        return bool(
            old.items[before] is item
            and old.lists[before] is parts_list
            and old.instructions[before] is instructions
            and len(parts) == end - start
            and all(map(is_, parts, old.parts[start:end]))
            and old.fields[start:end] == fields
        )
    except Exception:  # noqa: BLE001 - any failure to compare means: read the message again
        return False
