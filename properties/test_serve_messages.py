"""What a tool call says to an agent names no Python exception, whatever the call: hostile
arguments of every type, questions with no word, unknown and hostile ids, any budget, and a
source that raises. (The exception's type and text go to the operator's log.)"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import tempfile
from pathlib import Path
from typing import Final

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure

from properties.hostile_strategies import examples, json_like
from tests._serve_harness import build_index
from thrift_fp.serve import ServeSettings, SessionLedger, SqliteBackend, answer_read, answer_search, serve_settings
from thrift_fp.serve._arguments import read_request, search_request
from thrift_fp.sources import FtsDefinition, Hit

EXCEPTION_NAMES: Final = tuple(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)


@functools.cache
def _index() -> Path:
    return build_index(Path(tempfile.mkdtemp(prefix="serve-messages-")))


@dataclasses.dataclass(frozen=True, slots=True)
class RaisingBackend:
    """The real index, whose searches raise for questions holding "boom"."""

    inner: SqliteBackend

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        real = self.inner.definition(tiers, max_results, max_calls)

        def execute(query: str, context: object) -> tuple[Hit, ...]:
            if "boom" in query:
                raise KeyError("boom: the index vanished")
            return real.execute(query, context)  # type: ignore[arg-type]  # the lifecycle's own context

        return dataclasses.replace(real, execute=execute)

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        return self.inner.surroundings(hit)

    def describe(self) -> str:
        return self.inner.describe()

    def ranking(self) -> dict[str, object]:
        return self.inner.ranking()


def _says_no_exception(text: str) -> None:
    named = [name for name in EXCEPTION_NAMES if name in text]
    assert not named, (named, text[:300])


questions = st.one_of(
    st.sampled_from(("?!", "boom shedding", "", "   ", "shedding budgets", "zzqxv", "\ud800", "a" * 3000)),
    st.text(max_size=30),
)
arguments = st.one_of(
    st.fixed_dictionaries({"question": questions}, optional={"budget": st.integers(-5, 3000) | json_like, "tiers": json_like}),
    st.dictionaries(st.text(max_size=8), json_like, max_size=3),
)


@settings(max_examples=examples(60), deadline=None)
@given(calls=st.lists(st.tuples(st.sampled_from(("search", "read")), arguments, st.integers(1, 3000)), max_size=5))
def test_no_message_names_a_python_exception(calls: list[tuple[str, dict[str, object], int]]) -> None:
    served: ServeSettings = serve_settings(max_budget=3000).unwrap()
    backend = RaisingBackend(SqliteBackend(_index(), dense=False))
    ledger = SessionLedger()
    for tool, given_arguments, budget in calls:
        if tool == "search":
            request = search_request(given_arguments, served)
            if isinstance(request, Failure):
                _says_no_exception(request.failure().message)
                continue
            ledger, result = answer_search(ledger, request.unwrap(), backend, served)
        else:
            known = [hit.passage_id for hit in ledger.retrieval.sources] or ["docs/nowhere.md#1"]
            read = read_request({"id": known[budget % len(known)], "budget": budget}, served)
            ledger, result = answer_read(ledger, read.unwrap(), backend, served)
        _says_no_exception(result.failure().message if isinstance(result, Failure) else result.unwrap().text)
    for call in ledger.calls:
        _says_no_exception(call.outcome)
