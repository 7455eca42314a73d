"""A `LedgerChange` as JSON text and back, exactly (the shared ledger stores it as such).

Text, not ``jsonb``: a client's question may hold characters ``jsonb`` refuses (``\\u0000``), and
a hit's raw rank may be infinite; Python's JSON writes both and reads them back unchanged. A hit
is written field by field (`dataclasses.fields`), so a field the hit gains is kept without a change
here.
A stored change is the server's own writing, so reading one that does not parse is a bug or a
damaged row: it raises `DamagedChange`, never a guess.
"""

from __future__ import annotations

import json
from dataclasses import fields
from datetime import datetime
from types import MappingProxyType
from typing import Any, Final

from thrift_fp.retrieval import Receipt
from thrift_fp.serve._ledger import CallRecord, Delivery
from thrift_fp.serve._ledger_change import LedgerChange
from thrift_fp.sources import Hit


class DamagedChange(ValueError):
    """A stored change that is not what this server writes."""


def change_to_json(change: LedgerChange) -> str:
    """``change`` as JSON text (`change_from_json` reads it back equal).

    >>> text = change_to_json(LedgerChange(seen=("k",), query_count=1, tokens=5))
    >>> change_from_json(text) == LedgerChange(seen=("k",), query_count=1, tokens=5)
    True
    """
    return json.dumps(
        {
            "calls": [_call(call, change.sources) for call in change.calls],
            "delivered": [[content, delivery.passage_id, delivery.answer] for content, delivery in change.delivered],
            "seen": list(change.seen),
            "sources": [_hit(hit) for hit in change.sources],
            "query_count": change.query_count,
            "tokens": change.tokens,
        },
        # ASCII: a lone surrogate in a client's question could not be sent as UTF-8.
        ensure_ascii=True,
        separators=(",", ":"),
    )


def change_from_json(text: str) -> LedgerChange:
    """The change ``text`` holds; `DamagedChange` when it is not one."""
    try:
        raw = json.loads(text)
        sources = tuple(_read_hit(hit) for hit in raw["sources"])
        return LedgerChange(
            calls=tuple(_read_call(call, sources) for call in raw["calls"]),
            delivered=tuple((str(content), Delivery(str(passage), int(answer))) for content, passage, answer in raw["delivered"]),
            seen=tuple(str(key) for key in raw["seen"]),
            sources=sources,
            query_count=int(raw["query_count"]),
            tokens=int(raw["tokens"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DamagedChange(f"a stored ledger change does not parse: {type(exc).__name__}: {exc}") from exc


def _hit(hit: Hit) -> dict[str, object]:
    # Field by field, so a field Hit gains is kept too (typed by its annotation on the way back).
    return {field.name: _plain(getattr(hit, field.name)) for field in fields(Hit)}


_Field = str | int | float | bool | datetime | MappingProxyType[str, object] | tuple[object, ...] | None


def _plain(value: _Field) -> str | int | float | bool | dict[str, object] | list[object] | None:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, MappingProxyType):
        return dict(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def _read_hit(raw: dict[str, Any]) -> Hit:
    values = {field.name: _typed(str(field.type), raw[field.name]) for field in fields(Hit)}
    return Hit(**values)  # type: ignore[arg-type]  # each value converted to its field's annotated type


def _typed(annotation: str, value: object) -> object:
    if annotation == "datetime":
        return datetime.fromisoformat(str(value))
    if annotation.startswith("MappingProxyType"):
        if not isinstance(value, dict):
            raise TypeError(f"{value!r} is not an object")
        return MappingProxyType(value)
    if annotation.startswith("tuple"):
        if not isinstance(value, list):
            raise TypeError(f"{value!r} is not a list")
        return tuple(value)
    if annotation == "float":
        return float(value)  # type: ignore[arg-type]  # a number (or "inf"); anything else raises
    if annotation == "int":
        return int(value)  # type: ignore[call-overload]  # likewise
    if annotation == "str":
        return str(value)
    return value


# A receipt's hits are most often the change's own (a search appends what it retrieved): written
# once and named, the row is a third of the size.
_SAME_AS_CHANGE: Final = "=change"
_SAME_AS_SOURCES: Final = "=sources"


def _hits(hits: tuple[Hit, ...], same: tuple[Hit, ...], marker: str) -> object:
    return marker if hits == same else [_hit(hit) for hit in hits]


def _read_hits(raw: object, same: tuple[Hit, ...], marker: str) -> tuple[Hit, ...]:
    if raw == marker:
        return same
    if not isinstance(raw, list):
        raise TypeError(f"{raw!r} is not a list of hits")
    return tuple(_read_hit(hit) for hit in raw)


def _call(call: CallRecord, appended: tuple[Hit, ...]) -> dict[str, object]:
    receipt = call.receipt
    return {
        "number": call.number, "tool": call.tool, "query": call.query, "outcome": call.outcome,
        "sent": list(call.sent), "repeated": list(call.repeated), "tokens": call.tokens, "key": call.key,
        "receipt": None if receipt is None else {
            "definition_id": receipt.definition_id, "sequence": receipt.sequence, "key": receipt.key,
            "query": receipt.query, "result": _hits(receipt.result, receipt.sources, _SAME_AS_SOURCES),
            "sources": _hits(receipt.sources, appended, _SAME_AS_CHANGE), "started_at": receipt.started_at.isoformat(),
            "finished_at": receipt.finished_at.isoformat(), "extensions": dict(receipt.extensions),
        },
    }


def _read_call(raw: dict[str, Any], appended: tuple[Hit, ...]) -> CallRecord:
    stored = raw["receipt"]
    receipt: Receipt[str, Hit, tuple[Hit, ...]] | None = None
    if stored is not None:
        sources = _read_hits(stored["sources"], appended, _SAME_AS_CHANGE)
        receipt = Receipt(
            str(stored["definition_id"]), int(stored["sequence"]), str(stored["key"]), str(stored["query"]),
            _read_hits(stored["result"], sources, _SAME_AS_SOURCES), sources,
            datetime.fromisoformat(stored["started_at"]), datetime.fromisoformat(stored["finished_at"]),
            MappingProxyType(dict(stored["extensions"])),
        )
    return CallRecord(
        int(raw["number"]), str(raw["tool"]), str(raw["query"]), str(raw["outcome"]),
        tuple(str(passage) for passage in raw["sent"]), tuple(str(passage) for passage in raw["repeated"]),
        int(raw["tokens"]), str(raw["key"]), receipt,
    )
