"""Hostile data is a value, never a crash, for every public function that takes data.

Each property feeds well-typed hostile values (see ``hostile_strategies``) and asserts that the
function returns a value: a ``Result`` (``Success`` or ``Failure``), or its documented plain type.
A failure's ``.message`` must render: a ``str``, bounded, encodable as UTF-8 (no lone surrogate).

Every generator is the full hostile one: the crashes found while building the suite (huge ints in
messages, unbounded ids, surrogates in hashes) were fixed at their root, not filtered out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from properties.hostile_strategies import (
    TIERS,
    deep_values,
    examples,
    hostile_datetimes,
    hostile_floats,
    hostile_ids,
    hostile_ints,
    hostile_numbers,
    hostile_raw,
    hostile_text,
    huge_text,
    json_like,
    non_empty_hostile_text,
    non_empty_huge_text,
    non_negative_hostile_ints,
    odd_key_mappings,
    regex_patterns,
    timestamp_like,
    with_strays,
)
from thrift_fp import records, render, retrieval, sources, thrift, tokens
from thrift_fp.sources import contract as sources_contract
from thrift_fp.sources import documents as sources_documents
from thrift_fp.records import _store as records_store, _timestamps as records_timestamps
from thrift_fp.thrift import _relevance as thrift_relevance
from thrift_fp.sources import ranking as sources_ranking
from thrift_fp.records import MemoryStore, ReaderDescriptor, Retrievable, SpooledArtifact

# A message names the offending value, cut; a few joined problems stay well under this.
MAX_MESSAGE = 20_000
_HOSTILE = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_value(result: object) -> None:
    """A ``Result``; a failure's message is a bounded, encodable ``str``."""
    assert isinstance(result, Success | Failure), f"not a Result: {type(result).__name__}"
    if isinstance(result, Failure):
        error = result.failure()
        message = error if isinstance(error, str) else error.message
        assert_renders(message)


def assert_renders(message: object) -> None:
    assert isinstance(message, str), type(message)
    assert len(message) <= MAX_MESSAGE, len(message)
    message.encode("utf-8")


class _HostileError(Exception):
    """An exception whose text is hostile: huge, surrogate-laden, or raising itself."""

    def __init__(self, text: object) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        if isinstance(self.text, str):
            return self.text
        return str(10**5000)  # raises ValueError inside __str__


hostile_exceptions = st.builds(_HostileError, hostile_text | st.just(None))
# What a user callback may hand back where a specific type is expected.
hostile_returns = st.one_of(json_like, hostile_exceptions, st.just(object()), st.just(print))


# --- tokens ----------------------------------------------------------------------------------------


@settings(_HOSTILE, max_examples=examples(60))
@given(huge_text, st.sampled_from(["cl100k_base", "o200k_base", "gpt2"]) | hostile_text)
def test_tokens_counting(text: str, encoding: str) -> None:
    assert_value(tokens.count_tokens(text, encoding))
    assert_value(tokens.get_encoding(encoding))
    assert isinstance(tokens.estimate_by_length(text), int)


@settings(_HOSTILE, max_examples=examples(40))
@given(st.lists(hostile_text, max_size=5))
def test_tokens_batch_counting(texts: list[str]) -> None:
    assert_value(tokens.count_tokens_batch(texts))


@settings(_HOSTILE, max_examples=examples(60))
@given(hostile_text, hostile_returns | hostile_ints | hostile_floats, hostile_text)
def test_tokens_custom_estimators_and_dynamic_values(name: str, returned: object, text: str) -> None:
    registered = tokens.register_token_estimator(name, lambda _: returned)  # type: ignore[arg-type, return-value]  # a hostile estimator
    assert_value(registered)
    try:
        if isinstance(registered, Success):
            assert_value(tokens.count_tokens(text, name))
    finally:
        if isinstance(registered, Success):
            tokens.unregister_token_estimator(name)
    dynamic = tokens.Tokenizable(lambda ctx: returned)  # type: ignore[arg-type, return-value]  # a hostile evaluator
    assert_value(dynamic.render(None))
    assert_value(dynamic.estimate_tokens("cl100k_base"))
    assert_value(tokens.Tokenizable(text).estimate_tokens("cl100k_base"))


# --- records ---------------------------------------------------------------------------------------


@settings(_HOSTILE, max_examples=examples(150))
@given(hostile_raw)
def test_records_parse_retrievable(raw: object) -> None:
    parsed = records.parse_retrievable(raw)
    assert_value(parsed)
    if isinstance(parsed, Success):
        record = parsed.unwrap()
        assert_value(record.estimate_tokens())
        assert_value(record.rendered_body())
        assert isinstance(str(record), str)
        snapshot = records.to_snapshot(record)
        assert_value(snapshot)
        if isinstance(snapshot, Success):
            assert_value(records.from_snapshot(snapshot.unwrap()))


@settings(_HOSTILE, max_examples=examples(120, nightly=6000))
@given(json_like | odd_key_mappings, st.data())
def test_records_from_snapshot(snapshot: Any, data: st.DataObject) -> None:
    if isinstance(snapshot, dict) and data.draw(st.booleans(), label="well-formed frame"):
        snapshot = {
            "format": "thrift_fp.retrievable/1", "id": "d", "trust_tier": "first-party", "created_at": 0,
            "updated_at": 0, "content": {"type": "spooled", "reader": {
                "store": data.draw(st.sampled_from(["memory", "folder", "sqlite"]) | hostile_text, label="store"),
                "location": data.draw(st.sampled_from(["/etc", "/", "."]) | hostile_text, label="location"),
                "id": data.draw(hostile_ids, label="id")},
                "byte_length_hint": data.draw(st.none() | hostile_ints, label="bytes"),
                "line_count_hint": data.draw(st.none() | hostile_ints, label="lines")},
            **snapshot,
        }
    result = records.from_snapshot(snapshot, stores=[MemoryStore(name="m")])
    assert_value(result)


@settings(_HOSTILE, max_examples=examples(80, nightly=16000))
@given(timestamp_like | json_like)
def test_records_parse_timestamp(value: object) -> None:
    assert_value(records_timestamps.parse_timestamp(value))


@settings(_HOSTILE, max_examples=examples(80, nightly=16000))
@given(hostile_text)
def test_records_ids_and_size_hints(text: str) -> None:
    assert_value(records_store.check_id(text))
    byte_length, line_count = records.size_hints(text)
    assert byte_length >= 0 and line_count >= 0


@settings(_HOSTILE, max_examples=examples(80))
@given(hostile_ids, hostile_text, st.sampled_from(["memory", "folder", "sqlite"]))
def test_records_stores(id: str, text: str, kind: str) -> None:
    store = _STORES[kind]
    written = store.write(id, text)
    assert_value(written)
    assert_value(store.read(id))
    if isinstance(written, Success):
        reader = written.unwrap()
        assert_value(reader.read_all())
        assert_value(reader.line(0))
        assert_value(records.open_reader(reader.describe(), [store]))
    assert_value(store.write(id, [text.encode("utf-8", "surrogatepass"), b"\xff"]))
    assert_value(store.delete(id))


_FOLDER = tempfile.mkdtemp(prefix="thrift-fp-hostile-")
_STORES: dict[str, records.ByteStore] = {
    "memory": MemoryStore(),
    "folder": records.FolderStore(str(Path(_FOLDER) / "folder")),
    "sqlite": records.SqliteStore(str(Path(_FOLDER) / "spool.db")),
}


@settings(_HOSTILE, max_examples=examples(80, nightly=1600))
@given(
    huge_text, hostile_ints, hostile_ints, st.none() | hostile_ints, regex_patterns,
    st.none() | hostile_ints, st.none() | hostile_ints, hostile_text,
)
def test_records_spooled_views(
    body: str, n: int, start: int, end: int | None, pattern: str, byte_hint: int | None, line_hint: int | None,
    call_id: str,
) -> None:
    reader = MemoryStore().write("doc", body.encode("utf-8", "replace")).unwrap()
    artifact = SpooledArtifact(reader, byte_hint, line_hint)
    for result in (artifact.head(n), artifact.tail(n), artifact.cat(start, end), artifact.grep(pattern),
                   artifact.byte_length(), artifact.line_count(), artifact.as_string()):
        assert_value(result)
    assert isinstance(artifact.handle_text(call_id, "cl100k_base"), str)
    assert_value(reader.line(n))


class _SurrogateReader:
    """A caller-written reader handing out text a store never would."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def line(self, index: int) -> Result[str, records.StoreError]:
        return Success(self.lines[index]) if 0 <= index < len(self.lines) else Failure(records.LineOutOfRange("x", index, 0))

    def byte_length(self) -> Result[int, records.StoreError]:
        return Success(10**5000)

    def line_count(self) -> Result[int, records.StoreError]:
        return Success(len(self.lines))

    def read_all(self) -> Result[str, records.StoreError]:
        return Success("".join(self.lines))

    def describe(self) -> ReaderDescriptor | None:
        return ReaderDescriptor("folder", "/etc", "passwd")

    def iter_lines(self) -> Iterator[Result[str, records.StoreError]]:
        for line in self.lines:
            yield Success(line + "\n")


@settings(_HOSTILE, max_examples=examples(60))
@given(st.lists(hostile_text, max_size=4), regex_patterns, hostile_ints)
def test_records_caller_readers(lines: list[str], pattern: str, n: int) -> None:
    artifact = SpooledArtifact(_SurrogateReader(lines), 10**5000, None)
    for result in (artifact.grep(pattern), artifact.tail(n), artifact.head(n), artifact.estimate_tokens()):
        assert_value(result)
    # A record does not take an impossible size hint (construction checks it, naming the field);
    # with no hints, the same hostile reader still only ever yields values.
    with pytest.raises(ValueError, match="content: spooled artifact's byte_length_hint"):
        Retrievable("r", artifact, "third-party-private", datetime.now(UTC), datetime.now(UTC))
    unhinted = SpooledArtifact(_SurrogateReader(lines), None, None)
    record = Retrievable("r", unhinted, "third-party-private", datetime.now(UTC), datetime.now(UTC))
    assert_value(record.estimate_tokens())
    assert_value(records.to_snapshot(record))


def _valid_record(fields: tuple[str, str, str, datetime, float | None]) -> Retrievable | None:
    id, text, tier, when, score = fields
    parsed = records.parse_retrievable(
        {"id": id, "content": text, "trust_tier": tier, "created_at": when, "updated_at": when, "score": score,
         "source": text[:30] or None, "kind": id[:10] or None}
    )
    return parsed.value_or(None)


def _valid_records(drawn: list[Any]) -> list[Any]:
    """Build the records in the test, not the strategy: beartype's sampling uses ``random``."""
    built = [_valid_record(item) if isinstance(item, tuple) else item for item in drawn]
    return [item for item in built if item is not None]


record_fields = st.tuples(
    non_empty_hostile_text, non_empty_huge_text, st.sampled_from(TIERS), hostile_datetimes, st.none() | st.floats(0, 1)
)


@settings(_HOSTILE, max_examples=examples(25))
@given(st.lists(record_fields, max_size=4), st.sampled_from(["memory", "folder"]))
def test_records_spool_retrievables(drawn: list[Any], kind: str) -> None:
    batch = _valid_records(drawn)
    assert_value(records.spool_retrievables(batch, _STORES[kind]))
    for item in batch:
        if isinstance(item, Retrievable):
            assert_value(records.spool_retrievable(item, _STORES[kind]))


# --- retrieval -------------------------------------------------------------------------------------


@settings(_HOSTILE, max_examples=examples(150, nightly=8000))
@given(json_like | odd_key_mappings | deep_values | st.sets(hostile_ints | hostile_text, max_size=3))
def test_retrieval_canonical_key(value: object) -> None:
    assert_value(retrieval.canonical_key(value))


@dataclasses.dataclass(frozen=True)
class _Doc:
    source_id: str


@settings(_HOSTILE, max_examples=examples(120))
@given(
    json_like, hostile_text, hostile_returns | hostile_ints, hostile_returns, hostile_returns, hostile_returns,
    st.sampled_from(["limit", "key", "execute", "assert", "source_id", "effect", "now", "none"]), hostile_ints,
)
def test_retrieval_run_with_hostile_queries_and_callbacks(
    query: object, definition_id: str, limit: object, key: object, source_id: object, extensions: object,
    raising: str, count: int,
) -> None:
    def maybe_raise(where: str, value: object) -> Any:
        if raising == where and isinstance(value, BaseException):
            raise value
        return value

    definition: retrieval.RetrievalDefinition[Any, Any, Any, None] = retrieval.RetrievalDefinition(
        id=definition_id,
        description=definition_id,
        assert_input=lambda q, c: None,
        limit=lambda c: maybe_raise("limit", limit),
        key=(lambda q: maybe_raise("key", key)) if raising == "key" else None,
        execute=lambda q, c: (maybe_raise("execute", extensions), (_Doc("a"),))[1],
        assert_result=lambda r, q, c: maybe_raise("assert", key),
        sources=lambda r: r,
        naming=retrieval.SourceNaming(
            source_id=lambda s, q, n, c: maybe_raise("source_id", source_id),
            rename=lambda s, new_id: dataclasses.replace(s, source_id=new_id),
            with_sources=lambda r, s: s,
        ),
        effects=(retrieval.RetrievalEffect(id=definition_id, description="", handle=lambda r, c: maybe_raise("effect", extensions)),),
        now=(lambda: maybe_raise("now", extensions)) if raising == "now" else retrieval.utc_now,
    )
    state: retrieval.RetrievalState[Any] = retrieval.RetrievalState(abs(count) % 4 if raising != "none" else abs(count))
    outcome = retrieval.run_retrieval(definition, query, retrieval.OperationContext(None), state)
    assert_value(outcome.result)
    assert isinstance(outcome.state, retrieval.RetrievalState)


# --- thrift (owned by the thrift engineer) ---------------------------------------------------------


@settings(_HOSTILE, max_examples=examples(80, nightly=12000))
@given(hostile_numbers, st.none() | hostile_numbers, hostile_floats)
def test_thrift_resolve_budget(window: int | float, reserve: int | float | None, fraction: float) -> None:
    assert_value(thrift.resolve_budget(window, reserve, fraction))


@settings(_HOSTILE, max_examples=examples(60, nightly=12000))
@given(hostile_ints, hostile_ints)
def test_thrift_scaled_relevance_floor(older: int, budget: int) -> None:
    assert isinstance(thrift_relevance.scaled_relevance_floor(older, budget), float)


def _message(id: str, content: str, when: datetime) -> thrift.Message:
    return thrift.Message(id, content, when)


# Long ids too: every thrift error message shows values through thrift_fp._shown (bounded).
_thrift_ids = non_empty_huge_text
hostile_messages = st.builds(_message, _thrift_ids, huge_text, hostile_datetimes)


@settings(_HOSTILE, max_examples=examples(25))
@given(
    st.lists(hostile_messages, max_size=4),
    st.lists(st.builds(thrift.Memory, huge_text, st.none() | hostile_floats), max_size=3),
    st.lists(st.builds(thrift.WorkingRetrievable, huge_text, st.none() | _thrift_ids, st.none() | hostile_floats), max_size=3),
    st.lists(st.builds(thrift.ToolCall, _thrift_ids, hostile_ints, hostile_numbers), max_size=2),
    st.none() | st.builds(thrift.Image, hostile_text, hostile_ints),
    hostile_numbers,
    hostile_text,
)
def test_thrift_subtract_to_fit(
    messages: list[thrift.Message], memories: list[thrift.Memory], retrievables: list[thrift.WorkingRetrievable],
    calls: list[thrift.ToolCall], image: thrift.Image | None, window: int | float, system: str,
) -> None:
    working_set = thrift.WorkingSet(
        system_prompt=system, messages=tuple(messages), memories=tuple(memories), retrievables=tuple(retrievables),
        tool_calls=tuple(calls), image=image, tools=(thrift.Tool("search", system[:50]),),
    )
    assert_value(thrift.subtract_to_fit(working_set, window, ("search",)))


@settings(_HOSTILE, max_examples=examples(50))
@given(st.lists(hostile_messages, max_size=5), hostile_text, hostile_ints)
def test_thrift_relevance(messages: list[thrift.Message], query: str, budget: int) -> None:
    turns = thrift.group_history_into_turns(messages)
    assert isinstance(turns, tuple)
    assert isinstance(thrift_relevance.content_words(query), frozenset)
    assert_value(thrift_relevance.turn_tokens(turns))
    assert_value(thrift.select_naive_turns(turns, budget))
    assert_value(thrift.select_relevant_turns(turns, query, budget))
    for turn in turns:
        assert_value(thrift_relevance.turn_relevance(query, turn))


# --- render (owned by the render engineer) ---------------------------------------------------------


@settings(_HOSTILE, max_examples=examples(60, nightly=12000))
@given(hostile_text | hostile_ints | hostile_floats)
def test_render_escape_attribute(value: str | int | float) -> None:
    assert isinstance(render.escape_attribute(value), str)


# Long record ids too: render's error messages show values through thrift_fp._shown (bounded).
_render_fields = st.tuples(
    non_empty_huge_text, non_empty_huge_text, st.sampled_from(TIERS), hostile_datetimes, st.none() | st.floats(0, 1)
)


@settings(_HOSTILE, max_examples=examples(20))
@given(st.lists(_render_fields, max_size=4), st.binary(max_size=40), st.booleans())
def test_render_retrievables(drawn: list[Any], key: bytes, keyed: bool) -> None:
    batch = _valid_records(drawn)
    nonce = render.KeyedNonce(key) if keyed else render.RandomNonce()
    rendered = render.render_retrievables(batch, nonce=nonce)
    assert_value(rendered)
    working_set = thrift.WorkingSet(retrievables=tuple(batch))
    assert_value(render.fit_and_render(working_set, 4096, nonce=nonce))


# --- sources (owned by the indexing engineer) ------------------------------------------------------


@settings(_HOSTILE, max_examples=examples(60))
@given(huge_text, hostile_ints, st.booleans(), hostile_floats, hostile_floats)
def test_sources_text_functions(text: str, max_tokens: int, markdown: bool, rank: float, ideal: float) -> None:
    assert_value(sources.chunk_text(text, max_tokens, markdown=markdown))
    assert isinstance(sources_documents.content_hash(text), str)
    assert isinstance(sources_ranking.match_expression(text), str)
    assert 0.0 <= sources_ranking.bm25_to_score(rank, ideal) <= 1.0
    assert sources_documents.kind_of(PurePath(text.replace("\x00", "") or "x")) in ("markdown", "text", "jsonl")


@settings(_HOSTILE, max_examples=examples(40))
@given(hostile_text, st.sampled_from(["markdown", "text", "jsonl"]), huge_text,
       st.sampled_from(TIERS) | hostile_text, st.integers(1, 64) | hostile_ints)
def test_sources_document_passages(label: str, kind: Any, text: str, tier: str, max_tokens: int) -> None:
    assert_value(sources.document_passages(label, kind, text, max_tokens=max_tokens, encoding="cl100k_base", trust_tier=tier))


_CORPUS = sources.embedded_corpus()


@settings(_HOSTILE, max_examples=examples(40))
@given(hostile_text, hostile_ints, st.lists(st.sampled_from(TIERS) | hostile_text, max_size=3))
def test_sources_search_index(query: str, limit: int, tiers: list[str]) -> None:
    assert_value(sources.search_index(_CORPUS, query, limit=limit, tiers=tiers))


def _hit(text: str, tier: str, when: datetime, rank: float, score: float, tokens_: int, metadata: object) -> sources.Hit:
    return sources.Hit("p", text[:20], text, "text", tier, when, when, "h", tokens_, text, rank, score,
                       MappingProxyType({"k": metadata}))


@settings(_HOSTILE, max_examples=examples(40))
@given(st.tuples(hostile_text, st.sampled_from(TIERS) | hostile_text, hostile_datetimes, hostile_floats,
                 hostile_floats, hostile_ints, json_like))
def test_sources_hit_to_retrievable(parts: tuple[str, str, datetime, float, float, int, object]) -> None:
    # The Hit is built here, not in a strategy: beartype samples a tuple field's items with the
    # global `random`, which Hypothesis forbids inside strategies (the `copies` field has one).
    assert_value(sources_contract.hit_to_retrievable(_hit(*parts)))


@settings(_HOSTILE, max_examples=examples(30))
@given(hostile_text, non_negative_hostile_ints, non_negative_hostile_ints)
def test_sources_definition_run(query: str, max_results: int, max_queries: int) -> None:
    definition = sources.fts5_definition(_CORPUS, max_results=max_results, max_queries=max_queries)
    outcome = retrieval.run_retrieval(definition, query, retrieval.OperationContext(None), retrieval.RetrievalState())
    assert_value(outcome.result)



@settings(_HOSTILE, max_examples=examples(25))
@given(st.lists(hostile_text | st.sampled_from(TIERS), max_size=3), hostile_text, non_negative_hostile_ints,
       hostile_ints)
def test_sources_assemble(tiers: list[str], query: str, max_results: int, window: int) -> None:
    assert_value(sources.assemble(query, database=_CORPUS, tiers=tiers, max_results=max_results,
                                  context_window=window, nonce=render.KeyedNonce(bytes(32))))


_INDEX_ROOT = Path(tempfile.mkdtemp(prefix="thrift-fp-hostile-index-"))
(_INDEX_ROOT / "a.md").write_text("# Budget\n\nShed the lowest score first.\n")


@settings(_HOSTILE, max_examples=examples(15))
@given(st.lists(hostile_text, max_size=2), st.lists(hostile_text, max_size=2), hostile_ints,
       st.sampled_from(TIERS) | hostile_text)
def test_sources_index_paths(include: list[str], exclude: list[str], max_tokens: int, tier: str) -> None:
    database = Path(tempfile.mkdtemp(prefix="thrift-fp-hostile-db-")) / "i.db"
    assert_value(sources.index_paths(database, [_INDEX_ROOT], include=include, exclude=exclude,
                                     max_tokens=max_tokens, trust_tier=tier))


# --- every element checked (beartype samples one element of a list) --------------------------------


def _stray_failure(result: object) -> None:
    """A list with a stray element is a Failure every time, and its message renders."""
    assert_value(result)
    assert isinstance(result, Failure), result


@settings(_HOSTILE, max_examples=examples(30))
@given(with_strays(hostile_text))
def test_stray_texts_to_count(texts: list[Any]) -> None:
    _stray_failure(tokens.count_tokens_batch(texts))
    _stray_failure(tokens.get_encoding("cl100k_base").unwrap().count_many(texts))
    _stray_failure(tokens.TokenCounts().count_many(tokens.get_encoding("o200k_base").unwrap(), texts))


@settings(_HOSTILE, max_examples=examples(20))
@given(with_strays(_render_fields), with_strays(st.sampled_from(render.FIELDS)))
def test_stray_records_and_fields_to_render(drawn: list[Any], fields: list[Any]) -> None:
    # Records are built here (the strays stay as drawn, None included); a tuple that makes no
    # valid record is left out.
    built = [(_valid_record(item), True) if isinstance(item, tuple) else (item, False) for item in drawn]
    batch: list[Any] = [item for item, from_fields in built if item is not None or not from_fields]
    key = render.KeyedNonce(bytes(32))
    _stray_failure(render.render_retrievables(batch, nonce=key))
    records_only = [item for item in batch if isinstance(item, Retrievable)]
    _stray_failure(render.render_retrievables(records_only, nonce=key, fields=fields))
    _stray_failure(render.fit_and_render(thrift.WorkingSet(retrievables=tuple(batch)), 4096, nonce=key))
    _stray_failure(render.fit_and_render(thrift.WorkingSet(retrievables=tuple(records_only)), 4096, nonce=key,
                                         fields=fields))


@settings(_HOSTILE, max_examples=examples(20))
@given(with_strays(st.just(_INDEX_ROOT) | st.just(str(_INDEX_ROOT))), with_strays(st.just("*.md")))
def test_stray_paths_and_patterns_to_index(paths: list[Any], patterns: list[Any]) -> None:
    database = Path(tempfile.mkdtemp(prefix="thrift-fp-hostile-db-")) / "i.db"
    _stray_failure(sources.index_paths(database, paths))
    _stray_failure(sources.index_paths(database, [_INDEX_ROOT], include=patterns))
    _stray_failure(sources.index_paths(database, [_INDEX_ROOT], exclude=patterns))
    _stray_failure(sources.select_files(paths))


@settings(_HOSTILE, max_examples=examples(20))
@given(with_strays(st.sampled_from(TIERS)), hostile_text)
def test_stray_tiers_to_search(tiers: list[Any], query: str) -> None:
    _stray_failure(sources.search_index(_CORPUS, query or "budget", tiers=tiers))
    _stray_failure(sources.assemble("budget", database=_CORPUS, tiers=tiers))
    definition = sources.fts5_definition(_CORPUS, tiers=tiers)
    outcome = retrieval.run_retrieval(definition, "budget", retrieval.OperationContext(None), retrieval.RetrievalState())
    _stray_failure(outcome.result)


_AT = datetime(2026, 1, 1, tzinfo=UTC)
_GOOD_ITEMS: Final = {
    "messages": st.builds(thrift.Message, st.uuids().map(str), hostile_text, st.just(_AT)),
    "memories": st.builds(thrift.Memory, hostile_text),
    "retrievables": st.builds(thrift.WorkingRetrievable, hostile_text),
    "thoughts": st.builds(thrift.Thought, st.uuids().map(str), hostile_text, st.just(_AT)),
    "tool_calls": st.builds(thrift.ToolCall, st.uuids().map(str), st.integers(0, 50), st.integers(0, 10**12)),
    "tools": st.builds(thrift.Tool, st.uuids().map(str), hostile_text),
}


@settings(_HOSTILE, max_examples=examples(40))
@given(st.sampled_from(sorted(_GOOD_ITEMS)), st.data())
def test_stray_items_in_a_working_set(bucket: str, data: st.DataObject) -> None:
    items = data.draw(with_strays(_GOOD_ITEMS[bucket]))
    working_set = thrift.WorkingSet(**{bucket: tuple(items)})  # type: ignore[arg-type]  # strays on purpose
    _stray_failure(thrift.subtract_to_fit(working_set, 4096))
    _stray_failure(asyncio.run(thrift.fit_async(working_set, 4096)))
    if bucket == "messages":
        _stray_failure(thrift_relevance.turn_tokens(thrift.group_history_into_turns(items)))  # type: ignore[arg-type]  # strays on purpose


def test_the_suite_calls_every_public_function_of_the_top_level() -> None:
    """The suite covers every public function in ``thrift_fp.__all__`` that takes data."""
    import inspect

    import thrift_fp

    source = Path(__file__).read_text(encoding="utf-8")
    functions = [name for name in thrift_fp.__all__ if inspect.isfunction(getattr(thrift_fp, name))]
    assert len(functions) >= 8, functions
    missing = [name for name in functions if f".{name}(" not in source]
    assert not missing, missing
