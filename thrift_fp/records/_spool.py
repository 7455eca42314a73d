"""The auto-spool step: static, non-inline text moves into a byte store and gets size hints."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from returns.result import Failure, Result, Success

from thrift_fp._args import Each

from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._constructor import build_artifact
from thrift_fp.records._errors import DuplicateRetrievableId, FieldProblem, InvalidRetrievable, RecordError
from thrift_fp.records._guard import guarded_store
from thrift_fp.records._lines import size_hints
from thrift_fp.records._reader import SpoolReader
from thrift_fp.records._retrievable import Retrievable
from thrift_fp.records._store import ByteStore
from thrift_fp.tokens import Tokenizable


def spool_retrievable(record: Retrievable, store: ByteStore) -> Result[Retrievable, RecordError]:
    """Spool ``record``'s text under its id when it is static text and not inline; else return it.

    The hints are the UTF-8 byte length and ``len(text.splitlines())`` (``''`` has 0 lines,
    ``'one\\ntwo'`` 7 bytes and 2 lines). The record id must be a valid store id (``check_id``).
    The artifact is the record's ``artifact_constructor`` applied to the written reader and the
    hints, when it has one (a resolver that raises or builds a non-artifact is an error value).

    >>> from thrift_fp.records import MemoryStore, parse_retrievable
    >>> r = parse_retrievable({"id": "n1", "content": "one\\ntwo", "trust_tier": "first-party",
    ...     "created_at": 0, "updated_at": 0}).unwrap()
    >>> spooled = spool_retrievable(r, MemoryStore()).unwrap()
    >>> spooled.content.byte_length_hint, spooled.content.line_count_hint, spooled.handle_mode
    (7, 2, True)
    """
    content = record.content
    if record.inline or isinstance(content, SpooledArtifact):
        return Success(record)
    if isinstance(content, Tokenizable):
        if not isinstance(content.value, str):
            return Success(record)
        text = content.value
    else:
        text = content
    byte_length, line_count = size_hints(text)
    written: Result[SpoolReader, RecordError] = guarded_store("write", record.id, lambda: store.write(record.id, text))
    if isinstance(written, Failure):
        return Failure(written.failure())
    reader = written.unwrap()
    constructor = record.artifact_constructor
    if constructor is None:
        return Success(dataclasses.replace(record, content=SpooledArtifact(reader, byte_length, line_count)))
    built: Result[SpooledArtifact, RecordError] = build_artifact(record.id, constructor, reader, byte_length, line_count)
    return built.map(lambda artifact: dataclasses.replace(record, content=artifact))


def spool_retrievables(records: Each[Retrievable], store: ByteStore) -> Result[tuple[Retrievable, ...], RecordError]:
    """Spool a working set's records; duplicate ids are an error value (checked before any write).

    >>> from thrift_fp.records import MemoryStore, parse_retrievable
    >>> r = parse_retrievable({"id": "d", "content": "x", "trust_tier": "first-party",
    ...     "created_at": 0, "updated_at": 0}).unwrap()
    >>> spool_retrievables([r, r], MemoryStore()).failure().message
    "duplicate retrievable id 'd' in one batch; ids must be unique"
    >>> print(spool_retrievables([r, "d"], MemoryStore()).failure().message)
    invalid retrievable (1 problem):
      - records[1]: expected a Retrievable, got str
    """
    given: tuple[object, ...] = tuple(records)
    batch: list[Retrievable] = []
    seen: set[str] = set()
    for index, record in enumerate(given):
        # beartype samples one element of a sequence; every element is checked here.
        if not isinstance(record, Retrievable):
            reason = f"expected a Retrievable, got {type(record).__qualname__}"
            return Failure(InvalidRetrievable((FieldProblem(f"records[{index}]", reason),)))
        if record.id in seen:
            return Failure(DuplicateRetrievableId(record.id))
        seen.add(record.id)
        batch.append(record)
    spooled: list[Retrievable] = []
    for record in batch:
        result = spool_retrievable(record, store)
        if isinstance(result, Failure):
            return result
        spooled.append(result.unwrap())
    return Success(tuple(spooled))
