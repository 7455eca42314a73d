"""Every working-set item has the attributes its bucket's protocol names, checked at the boundary.

beartype checks one sampled element of a tuple (and production does not check the `WorkingSet`
constructor at all), so an item without ``id`` or ``content`` would reach the passes and raise
there. This pass reads each required attribute once per item whose type does not declare it,
and a missing or raising one is an error value naming the bucket, the item and the attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown_exception
from thrift_fp.thrift._errors import MalformedItem, ThriftError
from thrift_fp.thrift._working_set import WorkingSet

# The attributes each bucket's protocol requires (thrift_fp.thrift._shapes).
REQUIRED: Final[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
    ("messages", "messages", ("id", "content", "created_at")),
    ("memories", "memories", ("content",)),
    ("retrievables", "retrievables", ("content",)),
    ("thoughts", "thoughts", ("id", "content", "created_at")),
    ("tool-calls", "tool_calls", ("ref", "token_cost", "created_at_ms")),
    ("tools", "tools", ("name", "description")),
)
_IMAGE: Final = ("label", "token_cost")


def check_shapes(ws: WorkingSet) -> Result[None, ThriftError]:
    """Success when every item has its bucket's attributes, else the first `MalformedItem`.

    >>> from thrift_fp.thrift._shapes import Memory
    >>> check_shapes(WorkingSet(memories=(Memory("a"),)))
    <Success: None>
    >>> check_shapes(WorkingSet(memories=(Memory("a"), 3))).failure().message  # type: ignore[arg-type]
    "memories[1] (a int) has no usable content: AttributeError: 'int' object has no attribute 'content'"
    """
    for bucket, field, names in REQUIRED:
        found = first_malformed(bucket, getattr(ws, field), names)
        if found is not None:
            return Failure(found)
    image = () if ws.image is None else (ws.image,)
    found = first_malformed("image", image, _IMAGE)
    return Success(None) if found is None else Failure(found)


def first_malformed(bucket: str, items: Sequence[object], names: tuple[str, ...]) -> MalformedItem | None:
    # The common case costs one C-level pass over the types: a class that declares every
    # attribute (a dataclass field, a slot, a property) needs no per-item reads.
    suspects = {cls for cls in set(map(type, items)) if not all(hasattr(cls, name) for name in names)}
    if not suspects:
        return None
    for index, item in enumerate(items):
        if type(item) not in suspects:
            continue
        for name in names:
            try:
                getattr(item, name)
            except Exception as exc:  # noqa: BLE001 - a user's object may raise anything here
                return MalformedItem(bucket, index, type(item).__name__, name, shown_exception(exc))
    return None
