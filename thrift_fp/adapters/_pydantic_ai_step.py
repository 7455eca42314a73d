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

from dataclasses import dataclass

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, chain, compress, count, repeat
from operator import attrgetter, eq, is_, ne, not_
from typing import Final, NamedTuple, cast, no_type_check

_parts: Final = attrgetter("parts")
# ``vars`` gives the object's own ``__dict__`` (a dict; a mapping proxy only for a class, which
# ``dict.values`` refuses, so it is read afresh).
_values: Final = cast("Callable[[object], Iterable[object]]", dict.values)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Each message (``items``), its fields' values (``heads``), its parts (``parts``), and every
    part's fields' values, flat (``fields``; message ``i``'s parts are
    ``fields[offsets[i]:offsets[i + 1]]``). Unchecked at run time: built by `snapshot` alone."""

    items: tuple[object, ...]
    heads: list[tuple[object, ...]]
    parts: list[tuple[object, ...]]
    fields: list[tuple[object, ...]]
    offsets: list[int]


def snapshot(messages: Sequence[object]) -> Snapshot | None:
    """The snapshot of ``messages`` (``None`` when a message or part is not a plain object with a
    ``__dict__``, or its parts are not iterable: then nothing is carried).

    >>> from pydantic_ai.messages import ModelRequest, UserPromptPart
    >>> taken = snapshot([ModelRequest([UserPromptPart("hi")])])
    >>> len(taken.fields), taken.offsets
    (1, [0, 1])
    >>> snapshot(["not a message"]) is None
    True
    """
    items = tuple(messages)
    try:
        heads = list(map(tuple, map(_values, map(vars, items))))
        parts = list(map(tuple, map(_parts, items)))
        fields: list[tuple[object, ...]] = list(map(tuple, map(_values, map(vars, chain.from_iterable(parts)))))
    except Exception:  # noqa: BLE001 - anything unusual is read afresh, every time
        return None
    return Snapshot(items, heads, parts, fields, [0, *accumulate(map(len, parts))])


def origins(old: Snapshot | None, new: Snapshot | None) -> list[int]:
    """For each message of ``new``, the position in ``old`` of the same object with an unchanged
    snapshot (its reading still holds), or -1 (read it again).

    >>> from pydantic_ai.messages import ModelRequest, UserPromptPart
    >>> history = [ModelRequest([UserPromptPart("a")]), ModelRequest([UserPromptPart("b")])]
    >>> before = snapshot(history)
    >>> history[0].parts[0].content = "edited"
    >>> origins(before, snapshot([*history, ModelRequest([UserPromptPart("c")])]))
    [-1, 1, -1]
    >>> origins(before, snapshot(history[1:]))
    [1]
    """
    if new is None:
        return []
    total = len(new.items)
    if old is None:
        return [-1] * total
    shared = min(len(old.items), total)
    same = _aligned(old, new, shared)
    found = [*range(shared), *repeat(-1, total - shared)]
    changed = [at for at in compress(count(), map(not_, same))]
    if not changed:
        return found
    for at in changed:
        found[at] = -1
    where = dict(zip(map(id, old.items), count()))
    for at in (*changed, *range(shared, total)):
        before = where.get(id(new.items[at]))
        if before is not None and old.items[before] is new.items[at] and _same_at(old, before, new, at):
            found[at] = before
    return found


def _aligned(old: Snapshot, new: Snapshot, shared: int) -> list[bool]:
    """Whether each of the first ``shared`` messages is unchanged at its own position."""
    try:
        same = list(map(all, zip(
            map(is_, new.items[:shared], old.items[:shared]),
            map(eq, new.heads[:shared], old.heads[:shared]),
            map(eq, new.parts[:shared], old.parts[:shared]),
        )))
        if new.offsets[:shared + 1] != old.offsets[:shared + 1]:
            return [flag and _same_at(old, at, new, at) for at, flag in enumerate(same)]
        end = new.offsets[shared]
        for slot in compress(count(), map(ne, new.fields[:end], old.fields[:end])):
            same[bisect_right(new.offsets, slot) - 1] = False
        return same
    except Exception:  # noqa: BLE001 - a replaced value whose == raises: compare one by one
        return [_same_at(old, at, new, at) for at in range(shared)]


def _same_at(old: Snapshot, before: int, new: Snapshot, at: int) -> bool:
    # A value that cannot compare (a hostile __eq__, nesting past the recursion limit) counts as changed.
    try:
        return bool(
            old.items[before] is new.items[at]
            and old.heads[before] == new.heads[at]
            and old.parts[before] == new.parts[at]
            and old.fields[old.offsets[before]:old.offsets[before + 1]] == new.fields[new.offsets[at]:new.offsets[at + 1]]
        )
    except Exception:  # noqa: BLE001 - any failure to compare means: read the message again
        return False
