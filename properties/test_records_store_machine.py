"""The three byte stores behave identically: one state machine drives all of them and a dict model."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Literal

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from returns.result import Failure, Result

from thrift_fp.records import (
    ByteStore,
    FolderStore,
    InvalidStoreId,
    MemoryStore,
    NotUtf8,
    SpoolReader,
    SqliteStore,
    StoreError,
    ValueNotFound,
)

IDS = ("a", "b", "doc-1", "é", "x y")
BAD_IDS = ("", "../a", "/abs", "a\x00", ".hidden", "a/b")
texts = st.lists(st.sampled_from(["a", "é", "\n", "\r\n", "\r", " ", "日", "\u2028"]), max_size=30).map("".join)
Form = Literal["str", "bytes", "chunks"]


def _outcome(result: Result[object, StoreError]) -> object:
    """What a result means, comparable across stores (store names differ in messages)."""
    if isinstance(result, Failure):
        error = result.failure()
        return (type(error).__name__, getattr(error, "id", None), getattr(error, "reason", None))
    return ("ok", result.unwrap() if isinstance(result.unwrap(), bool) else None)


class StoresAgree(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.mkdtemp(prefix="records-machine-")
        self.stores: tuple[ByteStore, ...] = (
            MemoryStore(),
            FolderStore(os.path.join(self.folder, "files")),
            SqliteStore(os.path.join(self.folder, "spool.db")),
        )
        self.model: dict[str, str] = {}
        self.leftovers: set[str] = set()
        self.swept = False
        self.readers: dict[str, tuple[SpoolReader, ...]] = {}

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _same(self, results: list[Result[object, StoreError]]) -> object:
        outcomes = [_outcome(result) for result in results]
        assert all(outcome == outcomes[0] for outcome in outcomes), outcomes
        return outcomes[0]

    @rule(id=st.sampled_from(IDS), text=texts, form=st.sampled_from(["str", "bytes", "chunks"]),
          cuts=st.lists(st.integers(0, 60), max_size=4))
    def write(self, id: str, text: str, form: Form, cuts: list[int]) -> None:
        encoded = text.encode()
        points = sorted({0, len(encoded), *(min(cut, len(encoded)) for cut in cuts)})
        pieces = [encoded[left:right] for left, right in zip(points, points[1:], strict=False)]
        results: list[Result[object, StoreError]] = []
        for store in self.stores:
            data: str | bytes | Iterator[bytes] = (
                text if form == "str" else encoded if form == "bytes" else iter(pieces)
            )
            results.append(store.write(id, data))
        assert self._same(results) == ("ok", None)
        self._first_write_sweeps()
        self.model[id] = text
        self.readers[id] = tuple(result.unwrap() for result in results)  # type: ignore[misc]

    @rule(id=st.sampled_from(IDS), good=texts, bad=st.sampled_from([b"\xff", b"\xc3", b"a\xed\xa0\x80"]))
    def write_bad_utf8(self, id: str, good: str, bad: bytes) -> None:
        outcomes = [_outcome(store.write(id, iter([good.encode(), bad]))) for store in self.stores]
        assert {outcome[0] for outcome in outcomes} == {NotUtf8.__name__}  # type: ignore[index]
        self._first_write_sweeps()

    def _first_write_sweeps(self) -> None:
        # A process's first write to a folder removes the leftovers of killed writers.
        if not self.swept:
            self.leftovers.clear()
            self.swept = True

    @rule(id=st.sampled_from(BAD_IDS), text=texts)
    def write_bad_id(self, id: str, text: str) -> None:
        for operation in ("write", "read", "delete"):
            outcomes = []
            for store in self.stores:
                result: Result[object, StoreError] = (
                    store.write(id, text) if operation == "write" else getattr(store, operation)(id)
                )
                outcomes.append(_outcome(result))
            assert all(outcome == outcomes[0] for outcome in outcomes)
            assert outcomes[0][0] == InvalidStoreId.__name__  # type: ignore[index]

    @rule(id=st.sampled_from(IDS))
    def delete(self, id: str) -> None:
        outcome = self._same([store.delete(id) for store in self.stores])
        assert outcome == ("ok", id in self.model)
        self.model.pop(id, None)

    @rule(id=st.sampled_from(IDS))
    def read(self, id: str) -> None:
        results: list[Result[object, StoreError]] = [store.read(id) for store in self.stores]
        outcome = self._same(results)
        if id not in self.model:
            assert outcome == (ValueNotFound.__name__, id, None)
            return
        for result in results:
            reader = result.unwrap()
            assert isinstance(reader, SpoolReader)
            assert reader.read_all().unwrap() == self.model[id]

    @rule(name=st.sampled_from([".partial-dead", ".partial-abc123"]))
    def a_killed_writer_left_its_file(self, name: str) -> None:
        # What kill -9 mid-write leaves: a temporary file no live writer holds a lock on.
        folder = self.stores[1]
        assert isinstance(folder, FolderStore)
        os.makedirs(folder.folder, exist_ok=True)
        with open(os.path.join(folder.folder, name), "wb") as leftover:
            leftover.write(b"torn")
        self.leftovers.add(name)

    @rule()
    def remove_leftovers(self) -> None:
        folder = self.stores[1]
        assert isinstance(folder, FolderStore)
        assert set(folder.remove_leftovers().unwrap()) == self.leftovers
        self.leftovers.clear()

    @invariant()
    def only_values_and_leftovers_live_in_the_folder(self) -> None:
        folder = self.stores[1]
        assert isinstance(folder, FolderStore)
        names = set(os.listdir(folder.folder)) if os.path.isdir(folder.folder) else set()
        assert names == set(self.model) | self.leftovers

    @invariant()
    def readers_handed_out_earlier_see_the_current_value(self) -> None:
        for id, readers in self.readers.items():
            for reader in readers:
                if id in self.model:
                    assert reader.read_all().unwrap() == self.model[id]
                    assert reader.line_count().unwrap() == len(self.model[id].splitlines())
                    assert reader.byte_length().unwrap() == len(self.model[id].encode())
                else:
                    assert isinstance(reader.read_all().failure(), ValueNotFound)


# Expensive: every write fsyncs a file, a folder and a SQLite journal (about 25 ms per step on CI
# disks), so this machine runs at most 30 programs of 25 steps instead of the profile's 100.
StoresAgree.TestCase.settings = settings(
    StoresAgree.TestCase.settings,
    max_examples=min(30, settings().max_examples),
    stateful_step_count=25,
)
test_stores_agree_with_each_other_and_the_model = StoresAgree.TestCase
