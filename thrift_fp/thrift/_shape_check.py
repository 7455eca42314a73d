"""Every working-set item has the attributes its bucket's protocol names, checked at the boundary.

beartype checks one sampled element of a tuple (and production does not check the `WorkingSet`
constructor at all), so an item without ``id`` or ``content`` would reach the passes and raise
there. This pass reads each required attribute once per item whose type does not declare it,
and a missing or raising one is an error value naming the bucket, the item and the attribute.
The optional attributes a fit reads (``score``, ``summary``, ...) are read too when the item's
type computes them (a property, ``__getattr__``): a caller's property may raise anything, and
that must be an error value, not an exception out of the fit.
"""

from __future__ import annotations

import collections
import types
from collections.abc import Sequence
from functools import lru_cache
from inspect import getattr_static
from typing import Any, Final, cast

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
# The optional attributes a fit reads, by bucket (getattr with a default: absent is fine).
OPTIONAL: Final[dict[str, tuple[str, ...]]] = {
    "messages": ("role", "summary", "ephemeral", "pair_id", "token_cost"),
    "memories": ("id", "importance"),
    "retrievables": ("id", "score", "size_unknown", "estimate_tokens"),
    "thoughts": ("this_turn",),
    "tool-calls": ("this_turn",),
    "tools": ("shed_rank",),
    "image": ("kept",),
}
# Class attributes whose reading on an instance cannot run a caller's code.
_PLAIN_DESCRIPTORS: Final = (
    types.FunctionType, types.MemberDescriptorType, types.GetSetDescriptorType, types.BuiltinFunctionType,
    types.MethodDescriptorType, types.WrapperDescriptorType, staticmethod, classmethod,
    # A named tuple's field: a read of the tuple's own slot, total (the adapters' priced messages).
    type(collections.namedtuple("_Field", "value").__dict__["value"]),  # noqa: PYI024 - only its field's type is wanted
)


def check_shapes(ws: WorkingSet) -> Result[None, ThriftError]:
    """Success when every item has its bucket's attributes, else the first `MalformedItem`.

    >>> from thrift_fp.thrift._shapes import Memory
    >>> check_shapes(WorkingSet(memories=(Memory("a"),)))
    <Success: None>
    >>> check_shapes(WorkingSet(memories=(Memory("a"), 3))).failure().message  # type: ignore[arg-type]
    "memories[1] (a int) has no usable content: AttributeError: 'int' object has no attribute 'content'"
    """
    for bucket, field, names in REQUIRED:
        found = first_malformed(bucket, getattr(ws, field), names, OPTIONAL[bucket])
        if found is not None:
            return Failure(found)
    image = () if ws.image is None else (ws.image,)
    found = first_malformed("image", image, _IMAGE, OPTIONAL["image"])
    return Success(None) if found is None else Failure(found)


def first_malformed(
    bucket: str, items: Sequence[object], names: tuple[str, ...], optional: tuple[str, ...] = ()
) -> MalformedItem | None:
    """The first item missing a required attribute, or whose required or optional attribute raises.

    >>> class Lazy:
    ...     content = "text"
    ...     def __getattr__(self, name: str) -> object:
    ...         raise ValueError(f"{name} is not loaded yet")
    >>> first_malformed("retrievables", [Lazy()], ("content",), ("score",)).message
    'retrievables[0] (a Lazy) has no usable score: ValueError: score is not loaded yet'
    """
    # The common case costs one C-level pass over the types: a class that declares every
    # required attribute as a plain value (a dataclass field, a slot) needs no per-item reads.
    kinds = set(map(type, items))
    suspects = {cls for cls in kinds if _suspect(cls, names, optional)}
    # A named tuple's field reads its slot by place, which ``tuple.__new__`` can leave out: such a
    # short tuple makes its class a suspect (its fields then read one by one, the short one fails).
    for cls in kinds - suspects:
        width = _tuple_width(cls, (*names, *optional)) if issubclass(cls, tuple) else 0
        if not width:
            continue
        # (C-level passes: the items of one class are all of them when it is the only one.)
        same = items if len(kinds) == 1 else [item for item in items if type(item) is cls]
        if min(map(len, cast(Sequence[tuple[object, ...]], same))) < width:
            suspects.add(cls)
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
        for name in optional:
            try:
                getattr(item, name, None)
            except Exception as exc:  # noqa: BLE001 - a user's property may raise anything here
                return MalformedItem(bucket, index, type(item).__name__, name, shown_exception(exc))
    return None


@lru_cache(maxsize=1024)
def _suspect(cls: type, names: tuple[str, ...], optional: tuple[str, ...]) -> bool:
    # Whether reading these attributes on an instance of ``cls`` may fail: a required one the
    # class does not declare, or any one the class computes (a property, a caller's descriptor,
    # __getattr__ or a custom __getattribute__). Cached (bounded): a fit meets few classes, many times.
    if not all(hasattr(cls, name) for name in names):
        return True
    # A builtin base's own lookup (a named tuple's is tuple's, in C) is not a caller's.
    custom_lookup = not isinstance(getattr_static(cls, "__getattribute__", None), types.WrapperDescriptorType)
    if custom_lookup or getattr_static(cls, "__getattr__", None) is not None:
        return True
    for name in (*names, *optional):
        static = getattr_static(cls, name, None)
        if hasattr(type(static), "__get__") and not isinstance(static, _PLAIN_DESCRIPTORS) and not _ours(static):
            return True
    return False


@lru_cache(maxsize=1024)
def _tuple_width(cls: type, names: tuple[str, ...]) -> int:
    # How long a tuple of ``cls`` must be for these names' named-tuple fields to read (0: none is one).
    places: list[int] = []
    for name in names:
        static: Any = getattr_static(cls, name, None)
        if type(static) is _PLAIN_DESCRIPTORS[-1]:
            # A field's descriptor reduces to its place: ``(_tuplegetter, (index, doc))``.
            places.append(static.__reduce__()[1][0])
    return max(places, default=-1) + 1


def _ours(static: object) -> bool:
    # This package's own properties (a record's size_unknown) are total: no per-item read.
    module = getattr(static.fget, "__module__", None) if isinstance(static, property) else None
    return isinstance(module, str) and module.startswith("thrift_fp.")
