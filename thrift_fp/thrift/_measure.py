"""Measure a working set once: every item's tokens in one batch, into entries the passes sort on.

The passes then do arithmetic on these entries only; nothing is measured twice in a fit.

Why this module's per-item code is unchecked at run time: a fit touches every item of the working
set, and beartype's claw would otherwise check every per-item call and construction (the profile
of a 5,000-passage fit spent a quarter of its time outside tiktoken doing exactly that). The
public boundary (`subtract_to_fit`) is checked; below it, each item attribute is validated here,
once, by the plain checks in `_Collector` (an error value names the offending field), and
everything after runs on that trusted data. `typing.no_type_check` on a class is what beartype
honours; on a module-level function the claw's decorator would already be applied.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from itertools import islice, repeat
from operator import attrgetter, is_, le
from typing import Any, Final, TypeVar, cast, no_type_check
from functools import lru_cache

from returns.result import Failure, Result, Success

from thrift_fp._args import EachSequence, Shaped
from thrift_fp.thrift._errors import CountingFailed, InvalidItemField, ThriftError
from thrift_fp.thrift._fields import content_text, flag, real_number, timestamp, token_cost
from thrift_fp.thrift._shapes import (
    ImageLike,
    MemoryLike,
    MessageLike,
    RetrievableLike,
    ThoughtLike,
    ToolCallLike,
    ToolLike,
)
from thrift_fp.thrift._entry import Entry, MessageColumns, Sized
from thrift_fp.thrift._history import History, Reuse
from thrift_fp.thrift._text_priced import priced_text
from thrift_fp.thrift._shapes import Message
from thrift_fp.thrift._working_set import WorkingSet
from thrift_fp.tokens import TokenCounts, TokenEncoding, Tokenizable
from thrift_fp.tokens._counts import INLINE_CHARS, MAX_RETAINED_CHARS, NOTHING_KNOWN, Known, carrying, count_known

_Item = TypeVar("_Item")
_created_at: Final = attrgetter("created_at")
_content: Final = attrgetter("content")
_id: Final = attrgetter("id")
_tzinfo: Final = attrgetter("tzinfo")
_entry_item: Final = attrgetter("item")
_DATETIME: Final = {datetime}
_STR: Final = {str}
_MESSAGE: Final = {Message}
_INT: Final = {int}


# C-level construction of a bucket's entries from rows (``zip`` of its columns); unchecked.
_new: Final = tuple.__new__


def _built(rows: Iterable[tuple[Any, ...]]) -> list[Entry]:
    return cast(list[Entry], list(map(_new, repeat(Entry), rows)))


# A named tuple's field: an attribute read that is a positional read of the tuple.
_TUPLEGETTER: Final = type(Entry.key)
# The message attributes `_Collector._message_columns` reads, in the order it reads them.
_MESSAGE_FIELDS: Final = ("token_cost", "created_at", "content", "id", "summary", "ephemeral", "pair_id")


def _transposed(items: Sequence[object]) -> tuple[list[Any], ...] | None:
    """The message attributes of ``items`` column by column in one C-level transposition, when
    every item is a tuple of one class (a named tuple, such as the adapters' priced messages)
    on which each attribute is a plain field: read by position, exactly as ``getattr`` reads
    it; otherwise ``None`` (the attributes are then read one by one).

    >>> from typing import NamedTuple
    >>> class Row(NamedTuple):
    ...     id: str; content: str; created_at: object; summary: bool; ephemeral: bool; pair_id: None; token_cost: int
    >>> _transposed([Row("a", "x", None, False, False, None, 3), Row("b", "y", None, True, False, None, 4)])[:4]
    ([3, 4], [None, None], ['x', 'y'], ['a', 'b'])
    >>> _transposed([("a", "x")]) is None
    True
    """
    if not items:
        return None
    kind: type = type(items[0])
    places = _field_places(kind)
    if places is None:
        return None
    rows = cast(Sequence[tuple[Any, ...]], items)
    if set(map(type, rows)) != {kind}:
        return None
    # Lists, as the attribute path reads them, filled a slice of rows at a time: ``zip(*rows)``
    # makes an iterator per row, all alive at once, which for a long history would wake the
    # garbage collector several times over objects that die a moment later.
    columns: tuple[list[Any], ...] = tuple([] for _ in places)
    widest = max(places)
    for start in range(0, len(rows), _TRANSPOSED_ROWS):
        part = tuple(zip(*rows[start:start + _TRANSPOSED_ROWS]))
        # ``zip`` stops at the shortest item (``tuple.__new__`` can make one short of its fields).
        if len(part) <= widest:
            return None
        for column, place in zip(columns, places):
            column += part[place]
    return columns


@lru_cache(maxsize=256)
def _field_places(kind: type) -> tuple[int, ...] | None:
    """The places of the message attributes in a tuple class whose every one is a plain named
    tuple field, else ``None`` (cached: a fit meets few classes, many times)."""
    # An own attribute lookup could compute what it returns: only tuple's own lookup is read by position.
    if not issubclass(kind, tuple) or kind.__getattribute__ is not tuple.__getattribute__:
        return None
    places: list[int] = []
    for name in _MESSAGE_FIELDS:
        try:
            found = inspect.getattr_static(kind, name)
        except AttributeError:
            return None
        if type(found) is not _TUPLEGETTER:
            return None
        # A field's descriptor reduces to its place: ``(_tuplegetter, (index, doc))``.
        place: Any = found.__reduce__()[1][0]
        places.append(place)
    return tuple(places)


# Rows transposed at a time (under the collector's first threshold, 700 new objects).
_TRANSPOSED_ROWS: Final = 512


def _all_utc(created: Sequence[datetime]) -> bool:
    """Whether every datetime of ``created`` (all ``datetime``s) is UTC (``timezone.utc``)."""
    count = len(created)
    if count and all(map(is_, created, repeat(created[0], count))):
        # One shared object (the adapters' rows): one check.
        return _tzinfo(created[0]) is timezone.utc
    return all(map(is_, map(_tzinfo, created), repeat(timezone.utc, count)))


def measure(
    ws: WorkingSet,
    retrievables: EachSequence[RetrievableLike],
    retrievable_keys: Sequence[str],
    estimates: Sequence[int | None],
    encoding: TokenEncoding,
    counts: TokenCounts,
    threads: int | None,
    reuse: Reuse | None = None,
) -> Result[tuple[Sized, TokenCounts], ThriftError]:
    """Measure every item of ``ws`` (its ``retrievables`` without the size-unknown ones) in one batch,
    reusing ``counts`` for texts it already holds and ``reuse`` (measured by ``encoding``) for the
    leading messages it shares with the previous fit; also returns the counts of this fit's texts,
    carrying its message `History` when it has one.

    Text: the system prompt and each standing instruction; message, memory and thought content;
    a retrievable's ``estimate`` when it counts, else its content text; ``name + "\\n" +
    description`` per tool. Tool calls, the image and priced messages cost their ``token_cost``.
    """
    collector = _Collector([ws.system_prompt, *ws.standing_instructions])
    error = collector.collect(ws, retrievables, retrievable_keys, estimates, reuse)
    if error is not None:
        return Failure(error)
    carried = collector.carried
    # Caller-priced messages were never counted: there is no text of theirs to know.
    known = NOTHING_KNOWN if carried is None or carried.history.priced else Known(
        carried.texts(), carried.counts(), collector.shared_chars
    )
    counted = count_known(counts, encoding, tuple(collector.pending), threads=threads, known=known)
    if isinstance(counted, Failure):
        return Failure(CountingFailed(counted.failure()))
    values, next_counts = counted.unwrap()
    sized = collector.sized(ws, values)
    history = collector.history(encoding, ws.messages, sized.messages, values)
    return Success((sized, next_counts if history is None else carrying(next_counts, history)))


@no_type_check
class _Collector:
    """Validates every item once and queues its text for the fit's one batch count (unchecked
    at run time on purpose; see the module docstring)."""

    __slots__ = ("pending", "fixed", "messages", "memories", "retrievables", "thoughts", "tools",
                 "tool_calls", "image", "bulk_messages", "bulk_retrievables", "carried", "shared_chars",
                 "priced")

    def __init__(self, fixed: list[str]) -> None:
        self.pending = fixed
        self.fixed = len(fixed)
        self.messages: list[Entry] = []
        self.memories: list[Entry] = []
        self.retrievables: list[Entry] = []
        self.thoughts: list[Entry] = []
        self.tools: list[Entry] = []
        self.tool_calls: list[Entry] = []
        self.image: Entry | None = None
        # A bucket decided by its bulk path: its columns, zipped into entries once counted.
        self.bulk_messages: MessageColumns | None = None
        self.bulk_retrievables: tuple[Any, ...] | None = None
        # The leading messages measured by the previous fit (their entries stand), when used.
        self.carried: Reuse | None = None
        self.shared_chars = 0
        # The caller-given costs of priced messages: charged as given, never counted.
        self.priced = 0

    def collect(
        self,
        ws: WorkingSet,
        retrievables: EachSequence[RetrievableLike],
        keys: Sequence[str],
        estimates: Sequence[int | None],
        reuse: Reuse | None,
    ) -> ThriftError | None:
        return (
            self._messages(ws.messages, reuse)
            or self._memories(ws.memories)
            or self._retrievables(retrievables, keys, estimates)
            or self._thoughts(ws.thoughts)
            or self._tools(ws.tools)
            or self._tool_calls(ws.tool_calls)
            or (self._image(ws.image) if ws.image is not None else None)
        )

    def _text(self, bucket: str, key: str, content: object, owner: object = None) -> str | ThriftError:
        if type(content) is str:
            return content
        text = content_text(bucket, key, content, owner)
        return text.unwrap() if isinstance(text, Success) else text.failure()

    def _number(self, bucket: str, key: str, field: str, value: object) -> float | ThriftError:
        if value is None:
            return 0.0
        if type(value) is float and math.isfinite(value):
            return value
        number = real_number(bucket, key, field, value)
        return number.unwrap() if isinstance(number, Success) else number.failure()

    def _age(self, bucket: str, key: str, field: str, value: object) -> float | ThriftError:
        if type(value) is datetime and value.tzinfo is timezone.utc:
            return value.timestamp()
        age = timestamp(bucket, key, field, value)
        return age.unwrap() if isinstance(age, Success) else age.failure()

    def _flag(self, bucket: str, key: str, field: str, value: object, default: bool) -> bool | ThriftError:
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        return flag(bucket, key, field, value, default).swap().unwrap()

    def _cost(self, bucket: str, key: str, value: object) -> int | ThriftError:
        if type(value) is int and value >= 0:
            return value
        # An int subclass (an IntEnum, say) is a valid cost that only the checked helper accepts.
        cost = token_cost(bucket, key, value)
        return cost.unwrap() if isinstance(cost, Success) else cost.failure()

    def _queue(self, text: str) -> int:
        self.pending.append(text)
        return len(self.pending) - 1

    def _messages(self, items: EachSequence[MessageLike], reuse: Reuse | None) -> ThriftError | None:
        if reuse is not None and self._carried_messages(items, reuse):
            return None
        if self._bulk_messages(items):
            return None
        # Hot for long histories: the common case (aware UTC datetime, str content, flags that are
        # bools or missing) is inlined; anything else takes the checked helpers.
        out, pending, utc = self.messages, self.pending, timezone.utc
        for index, item in enumerate(items):
            key = item.id
            created = item.created_at
            # No annotated assignments in these loops: the claw turns each into a checked call.
            if type(created) is datetime and created.tzinfo is utc:
                age = created.timestamp()
            else:
                checked = self._age("messages", key, "created_at", created)
                if not isinstance(checked, float):
                    return checked
                age = checked
            summary = getattr(item, "summary", None)
            if summary is None:
                summary = False
            elif summary is not True and summary is not False:
                return flag("messages", key, "summary", summary, False).swap().unwrap()
            ephemeral = getattr(item, "ephemeral", None)
            if ephemeral is None:
                ephemeral = False
            elif ephemeral is not True and ephemeral is not False:
                return flag("messages", key, "ephemeral", ephemeral, False).swap().unwrap()
            given = getattr(item, "token_cost", None)
            text = None
            cost = 0
            if given is not None:
                # Priced by the caller: charged as given, its content never measured.
                checked_cost = self._cost("messages", key, given)
                if not isinstance(checked_cost, int):
                    return checked_cost
                cost = checked_cost
            elif type(content := item.content) is str:
                text = content
            else:
                rendered = self._text("messages", key, content)
                if not isinstance(rendered, str):
                    return rendered
                text = rendered
            pair = getattr(item, "pair_id", None)
            if pair is not None and not isinstance(pair, str):
                return InvalidItemField("messages", key, "pair_id", pair, "expected a str or None")
            if text is None:
                self.priced += cost
                out.append(Entry(item, key, cost, index, age, False, summary, ephemeral, pair, -1))
                continue
            pending.append(text)
            out.append(Entry(item, key, 0, index, age, False, summary, ephemeral, pair, len(pending) - 1))
        return None

    @staticmethod
    def _message_columns(items: EachSequence[MessageLike]) -> tuple[Any, ...] | None:
        """Every message's attributes, column by column, in C-level passes, when all are the
        common case: UTC datetimes, flags that are bools or missing, pair ids that are str or
        missing, and either no ``token_cost`` and ``str`` content, or every one priced by an
        ``int >= 0`` (its content then never read); otherwise ``None`` (the loop then meets the
        odd one in order). The last column is the costs (``None`` when none is priced)."""
        count = len(items)
        fields = _transposed(items)
        try:
            if fields is not None:
                costs, created, contents, keys, summaries, ephemerals, pairs = fields
                priced = set(map(type, costs))
                # A priced message's content is never read, so never checked (as below).
                contents = [] if priced == _INT else contents
            else:
                costs = list(map(getattr, items, repeat("token_cost", count), repeat(None, count)))
                priced = set(map(type, costs))
                created = list(map(_created_at, items))
                contents = [] if priced == _INT else list(map(_content, items))
                keys = list(map(_id, items))
                summaries = list(map(getattr, items, repeat("summary", count), repeat(None, count)))
                ephemerals = list(map(getattr, items, repeat("ephemeral", count), repeat(None, count)))
                pairs = list(map(getattr, items, repeat("pair_id", count), repeat(None, count)))
        except Exception:  # noqa: BLE001 - an attribute that raises: the loop meets it in input order
            return None
        flags, none = {bool, type(None)}, type(None)
        if (
            (priced - {none} and (priced != _INT or min(cast(list[int], costs)) < 0))
            or set(map(type, created)) - _DATETIME
            or not _all_utc(created)
            or set(map(type, contents)) - _STR
            or set(map(type, summaries)) - flags
            or set(map(type, ephemerals)) - flags
            or set(map(type, pairs)) - {str, none}
        ):
            return None
        return created, contents, keys, summaries, ephemerals, pairs, costs if priced == _INT else None

    def _bulk_messages(self, items: EachSequence[MessageLike]) -> bool:
        """The common case of every message at once (`_message_columns`): queues them and answers
        True; otherwise queues nothing and answers False (the loop then runs)."""
        columns = self._message_columns(items)
        if columns is None:
            return False
        created = columns[0]
        # Messages' ranks are compared only with each other (oldest first, ties by input order).
        # A history already in time order, the usual case, sorts as its input positions do, so
        # the positions serve as the ranks and no timestamp is computed; otherwise the epoch
        # seconds, as the loop computes them.
        # (All equal to the first, as an adapter's one shared timestamp is, is in order: a C-level
        # count, identity first, instead of a comparison per pair.)
        in_order = not created or created.count(created[0]) == len(created) or all(
            map(le, created, islice(created, 1, None)))
        ranks = range(len(items)) if in_order else list(map(datetime.timestamp, created))
        self._queue_messages(items, columns, ranks, in_order, 0)
        return True

    def _carried_messages(self, items: EachSequence[MessageLike], reuse: Reuse) -> bool:
        """The leading ``reuse.shared`` messages as the previous fit measured them, and the rest
        in the bulk path's common case; answers False, queueing nothing, when the rest is not the
        common case or breaks the time order the history's position ranks rely on."""
        history, shared = reuse.history, reuse.shared
        rest = items[shared:]
        columns = self._message_columns(rest)
        if columns is None:
            return False
        # The rest must be measured as the history was: all priced by the caller, or all counted.
        if rest and (columns[-1] is not None) != history.priced:
            return False
        created = columns[0]
        if history.by_position:
            # The shared messages are in time order; the whole history is iff the rest goes on
            # from the last shared one in order (else every rank must be recomputed: bulk path).
            if rest and not (
                history.items[shared - 1].created_at <= created[0]
                and all(map(le, created, islice(created, 1, None)))
            ):
                return False
            ranks: range | list[float] = range(shared, len(items))
        else:
            ranks = list(map(datetime.timestamp, created))
        self.carried = reuse
        self.shared_chars = history.chars if reuse.whole() else sum(map(len, reuse.texts()))
        self._queue_messages(rest, columns, ranks, history.by_position, shared)
        return True

    def _queue_messages(
        self, items: EachSequence[MessageLike], columns: tuple[Any, ...], ranks: range | list[float],
        by_position: bool, offset: int,
    ) -> None:
        created, contents, keys, summaries, ephemerals, pairs, costs = columns
        count = len(items)
        pending = self.pending
        start = len(pending)
        if costs is None:
            pending.extend(contents)
        else:
            self.priced += sum(costs)
        self.bulk_messages = MessageColumns(
            items, keys, ranks, map(is_, summaries, repeat(True, count)),
            map(is_, ephemerals, repeat(True, count)), pairs, start, offset, contents, by_position, costs,
        )

    def _memories(self, items: EachSequence[MemoryLike]) -> ThriftError | None:
        out = self.memories
        for index, item in enumerate(items):
            ident = getattr(item, "id", None)
            key = ident if isinstance(ident, str) else f"memory[{index}]"
            importance = self._number("memories", key, "importance", getattr(item, "importance", None))
            text = self._text("memories", key, item.content)
            if not isinstance(importance, float):
                return importance
            if not isinstance(text, str):
                return text
            out.append(Entry(item, key, 0, index, importance, slot=self._queue(text)))
        return None

    def _retrievables(
        self, items: EachSequence[RetrievableLike], keys: Sequence[str], estimates: Sequence[int | None]
    ) -> ThriftError | None:
        if self._bulk_retrievables(items, keys, estimates):
            return None
        # The hottest loop of a large fit: the common case (str content, float or missing score)
        # is inlined; anything else takes the checked helpers.
        out, pending, isfinite = self.retrievables, self.pending, math.isfinite
        for index, (item, key, estimate) in enumerate(zip(items, keys, estimates, strict=True)):
            raw = getattr(item, "score", None)
            if raw is None:
                score = 0.0
            elif type(raw) is float and isfinite(raw):
                score = raw
            else:
                checked = self._number("retrievables", key, "score", raw)
                if not isinstance(checked, float):
                    return checked
                score = checked
            if estimate is not None:
                out.append(Entry(item, key, estimate, index, score))
                continue
            content = item.content
            if type(content) is str:
                text = content
            else:
                batched = priced_text(item)
                rendered = self._text("retrievables", key, content, owner=item) if batched is None else batched
                if not isinstance(rendered, str):
                    return rendered
                text = rendered
            pending.append(text)
            out.append(Entry(item, key, 0, index, score, False, False, False, None, len(pending) - 1))
        return None

    def _bulk_retrievables(
        self, items: EachSequence[RetrievableLike], keys: Sequence[str], estimates: Sequence[int | None]
    ) -> bool:
        """The common cases of every retrievable at once, in C-level passes: finite float or
        missing scores, and either no own estimate and ``str`` content, or every one priced by its
        own estimate (a count, `settle_sync`). Queues them and answers True; otherwise queues
        nothing and answers False (the loop then runs)."""
        count = len(items)
        estimated = set(map(type, estimates))
        if estimated - {type(None)} and estimated != {int}:
            return False
        try:
            scores = list(map(getattr, items, repeat("score", count), repeat(None, count)))
            contents = [] if estimated == {int} else list(map(_content, items))
        except Exception:  # noqa: BLE001 - an attribute that raises: the loop meets it in input order
            return False
        kinds = set(map(type, scores))
        if type(None) in kinds:
            scores = [0.0 if score is None else score for score in scores]
            kinds.discard(type(None))
        if kinds - {float} or not all(map(math.isfinite, cast(list[float], scores))) or set(map(type, contents)) - _STR:
            return False
        if estimated == {int}:
            # Each item's own count stands; no text is queued (slot -1, as in the loop).
            self.bulk_retrievables = (items, keys, estimates, scores, -1)
            return True
        pending = self.pending
        start = len(pending)
        pending.extend(contents)
        self.bulk_retrievables = (items, keys, None, scores, start)
        return True

    def _thoughts(self, items: EachSequence[ThoughtLike]) -> ThriftError | None:
        out = self.thoughts
        for index, item in enumerate(items):
            key = item.id
            age = self._age("thoughts", key, "created_at", item.created_at)
            this_turn = self._flag("thoughts", key, "this_turn", getattr(item, "this_turn", None), False)
            text = self._text("thoughts", key, item.content)
            if not isinstance(age, float):
                return age
            if not isinstance(this_turn, bool):
                return this_turn
            if not isinstance(text, str):
                return text
            out.append(Entry(item, key, 0, index, age, this_turn, slot=self._queue(text)))
        return None

    def _tools(self, items: EachSequence[ToolLike]) -> ThriftError | None:
        out = self.tools
        for index, item in enumerate(items):
            key = item.name
            rank = self._number("tools", key, "shed_rank", getattr(item, "shed_rank", None))
            text = self._text("tools", key, item.description)
            if not isinstance(rank, float):
                return rank
            if not isinstance(text, str):
                return text
            out.append(Entry(item, key, 0, index, rank, slot=self._queue(f"{key}\n{text}")))
        return None

    def _tool_calls(self, items: EachSequence[ToolCallLike]) -> ThriftError | None:
        out = self.tool_calls
        for index, item in enumerate(items):
            key = item.ref
            cost = self._cost("tool-calls", key, item.token_cost)
            if not isinstance(cost, int):
                return cost
            age = self._number("tool-calls", key, "created_at_ms", item.created_at_ms)
            this_turn = self._flag("tool-calls", key, "this_turn", getattr(item, "this_turn", None), False)
            if not isinstance(age, float):
                return age
            if not isinstance(this_turn, bool):
                return this_turn
            out.append(Entry(item, key, cost, index, age, this_turn))
        return None

    def _image(self, item: Shaped[ImageLike]) -> ThriftError | None:
        key = item.label
        cost = self._cost("image", key, item.token_cost)
        if not isinstance(cost, int):
            return cost
        kept = self._flag("image", key, "kept", getattr(item, "kept", None), True)
        if not isinstance(kept, bool):
            return kept
        # An image already omitted (kept=False) costs nothing and is left alone.
        self.image = Entry(item, key, cost if kept else 0, 0, 0.0)
        return None

    def sized(self, ws: WorkingSet, counts: Sequence[int]) -> Sized:
        messages: Sequence[Entry] = self._counted(self.messages, counts)
        bulk = self.bulk_messages
        if bulk is not None:
            count = len(bulk.items)
            start, offset = bulk.start, bulk.offset
            # Slot -1: a bulk message's tokens are final here, so its entry can be carried as is.
            tokens = counts[start:start + count] if bulk.costs is None else bulk.costs
            built = _built(zip(
                bulk.items, bulk.keys, tokens, range(offset, offset + count), bulk.ranks,
                repeat(False, count), bulk.summaries, bulk.ephemerals, bulk.pairs, repeat(-1, count),
            ))
            carried = self.carried
            messages = built if carried is None else (*carried.entries(), *built)
        retrievables = self._counted(self.retrievables, counts)
        if self.bulk_retrievables is not None:
            items, keys, estimates, scores, start = self.bulk_retrievables
            count = len(items)
            known = estimates is not None
            retrievables = _built(zip(
                items, keys, estimates if known else counts[start:start + count], range(count), scores,
                repeat(False, count), repeat(False, count), repeat(False, count), repeat(None, count),
                repeat(-1, count) if known else range(start, start + count),
            ))
        memories = self._counted(self.memories, counts)
        thoughts = self._counted(self.thoughts, counts)
        tools = self._counted(self.tools, counts)
        fixed = sum(counts[: self.fixed])
        visible = ws.visible_tool_names
        image = self.image
        # Every counted text is visible except hidden tools; known costs are added on top.
        carried = self.carried
        total = (
            sum(counts)
            + self.priced
            + (0 if carried is None else carried.history.tokens if carried.whole() else sum(carried.counts()))
            - sum(entry.tokens for entry in tools if visible is not None and entry.key not in visible)
            + sum(entry.tokens for entry in retrievables if entry.slot < 0)
            + sum(entry.tokens for entry in self.tool_calls)
            + (image.tokens if image is not None else 0)
        )
        return Sized(
            ws, visible, fixed, tuple(messages), tuple(memories), tuple(retrievables),
            tuple(thoughts), tuple(tools), tuple(self.tool_calls), image, total,
        )

    def history(
        self, encoding: TokenEncoding, items: EachSequence[MessageLike], entries: tuple[Entry, ...], counts: Sequence[int]
    ) -> History | None:
        """What this fit measured of its messages, for the next fit (see `_history`): only when
        the bulk path took every message, every one is an exact `Message` with an exact ``str``
        id, and the texts are within the counts' bounds (caller-priced messages have none)."""
        bulk = self.bulk_messages
        if bulk is None or type(items) is not tuple or not items:
            return None
        carried = self.carried
        # Caller-priced messages carry their costs (and no text); a history is all one or the other.
        priced = bulk.costs is not None or (carried is not None and carried.history.priced and not bulk.items)
        # Exact types only: a subclass (of Message, or a str id's) could compute what it returns.
        # (The first item answers the usual case, caller-priced named tuples, without a pass.)
        if type(items[0]) not in _MESSAGE or set(map(type, bulk.items)) - _MESSAGE or set(map(type, bulk.keys)) - _STR:
            return None
        lengths = list(map(len, bulk.contents))
        if max(lengths, default=0) > INLINE_CHARS:
            return None
        start = bulk.start
        chars = sum(lengths) + self.shared_chars
        if chars > MAX_RETAINED_CHARS:
            return None
        texts = tuple(bulk.contents)
        own = tuple(bulk.costs) if bulk.costs is not None else tuple(counts[start:start + len(texts)])
        keys = frozenset(bulk.keys)
        if carried is not None:
            texts, own, keys = carried.texts() + texts, carried.counts() + own, carried.keys | keys
        return History(encoding, items, entries, texts, own, keys, bulk.by_position, chars, sum(own), priced)

    @staticmethod
    def _counted(entries: list[Entry], counts: Sequence[int]) -> list[Entry]:
        """The loops' entries with their counted tokens filled in (slot -1: tokens known)."""
        return [
            entry if entry.slot < 0 else entry._replace(tokens=counts[entry.slot]) for entry in entries
        ]


def _kept(entries: tuple[Entry, ...], source: tuple[_Item, ...]) -> tuple[_Item, ...]:
    # Module level, not nested in fitted_set: the claw would re-decorate a nested def every fit.
    return source if len(entries) == len(source) else tuple(map(_entry_item, entries))


def fitted_set(state: Sized) -> WorkingSet:
    """The working set holding exactly the items still in ``state``. Messages, thoughts, tools and
    tool calls keep input order and only ever lose items, so an unchanged length means the input
    tuple itself can be reused; retrievables and memories come back in ranking order."""
    ws, image = state.working_set, state.image
    kept = _kept
    return replace(
        ws,
        messages=kept(state.messages, ws.messages),
        memories=tuple(map(_entry_item, state.memories)),
        retrievables=tuple(map(_entry_item, state.retrievables)),
        thoughts=kept(state.thoughts, ws.thoughts),
        # Tools stay (a shed tool is hidden through visible_tool_names), so `replace` keeps them.
        visible_tool_names=state.visible,
        tool_calls=kept(state.tool_calls, ws.tool_calls),
        image=None if image is None else image.item,
    )
