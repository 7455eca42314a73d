"""run_retrieval against an oracle, over random sequences of queries.

Queries are dicts ``{"text": ..., "kind": ...}``; ``kind`` tells the test
callbacks how to behave (deny, raise in execute, reject the result, abort during
execute, assert_result, source naming or the effect, fail an effect). The model is a few plain Python values following
DESIGN §5 step by step. Invariants run after every step.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from returns.result import Failure, Success

from tests._retrieval_fixtures import Doc, Found
from thrift_fp.retrieval import (
    Aborted,
    CancellationController,
    CancellationSignal,
    EffectFailed,
    OperationContext,
    Receipt,
    RetrievalDefinition,
    RetrievalEffect,
    RetrievalError,
    RetrievalState,
    SourceNaming,
    canonical_key,
    run_retrieval,
)

Query = dict[str, str]
EARLY_KINDS = ("ok", "deny", "boom", "reject", "abort-during", "effect-boom")
# An abort after execute, at each later boundary: the key stays reserved, nothing is counted.
LATE_ABORTS = ("abort-in-assert", "abort-in-naming", "abort-in-effect")
KINDS = (*EARLY_KINDS, *LATE_ABORTS)
LATE_POINTS = {"abort-in-assert": "after-assert-result", "abort-in-naming": "after-source-naming",
               "abort-in-effect": "after-effect"}


@dataclass(frozen=True, slots=True)
class App:
    quota: int


class Harness:
    """What the callbacks report to the test: the queries that reached execute."""

    def __init__(self) -> None:
        self.executed: list[tuple[str, str]] = []
        self.controller = CancellationController()

    def prepare(self, query: Query, context: OperationContext[App]) -> Query:
        return {"kind": query.get("kind", ""), "text": query.get("text", "").strip()}

    def assert_input(self, query: Query, context: OperationContext[App]) -> None:
        if not query["text"] or query["kind"] not in KINDS:
            raise ValueError(f"malformed query {query!r}")

    def authorize(self, query: Query, context: OperationContext[App]) -> None:
        if query["kind"] == "deny":
            raise PermissionError("denied")

    def execute(self, query: Query, context: OperationContext[App]) -> Found:
        self.executed.append((query["text"], query["kind"]))
        if query["kind"] == "boom":
            raise OSError("read failed")
        if query["kind"] == "abort-during":
            self.controller.abort("cancelled mid-read")
        return Found(documents_for(query["text"]))

    def assert_result(self, result: Found, query: Query, context: OperationContext[App]) -> None:
        if query["kind"] == "reject":
            raise ValueError("result rejected")
        if query["kind"] == "abort-in-assert":
            self.controller.abort("cancelled while checking")

    def source_id(self, source: Doc, query: Query, sequence: int, context: OperationContext[App]) -> str:
        if query["kind"] == "abort-in-naming":
            self.controller.abort("cancelled while naming")
        return f"{sequence}:{source.source_id}"

    def effect(self, receipt: Receipt[Query, Doc, Found], context: OperationContext[App]) -> dict[str, object]:
        if receipt.query["kind"] == "effect-boom":
            raise RuntimeError("effect failed")
        if receipt.query["kind"] == "abort-in-effect":
            self.controller.abort("cancelled in an effect")
        return {"sources": len(receipt.sources)}

    def definition(self) -> RetrievalDefinition[Query, Doc, Found, App]:
        return RetrievalDefinition(
            id="machine",
            description="oracle-checked retrieval",
            prepare=self.prepare,
            assert_input=self.assert_input,
            limit=lambda context: context.app.quota,
            authorize=self.authorize,
            execute=self.execute,
            assert_result=self.assert_result,
            sources=lambda result: result.sources,
            naming=SourceNaming(
                source_id=self.source_id,
                rename=lambda source, new_id: replace(source, source_id=new_id),
                with_sources=lambda result, sources: Found(sources),
            ),
            effects=(RetrievalEffect(id="count", description="count sources", handle=self.effect),),
        )


def documents_for(text: str) -> tuple[Doc, ...]:
    return tuple(Doc(f"{text}-{i}", text) for i in range(len(text) % 3))


class Model:
    """The oracle: DESIGN §5 as plain values. Returns the expected error name or 'ok'."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self.seen: set[tuple[str, str]] = set()
        self.sources: list[Doc] = []

    def step(self, query: Query, aborted_before: bool) -> str:
        text, kind = query.get("text", "").strip(), query.get("kind", "")
        if not text or kind not in KINDS:
            return "InvalidQuery"
        ident = (text, kind)
        if ident in self.seen:
            return "DuplicateQuery"
        if self.count >= self.limit:
            return "BudgetExhausted"
        if kind == "deny":
            return "Unauthorized"
        if aborted_before:
            return "Aborted@before-execute"
        self.seen.add(ident)
        if kind == "boom":
            return "ExecutionFailed"
        if kind == "abort-during":
            return "Aborted@after-execute"
        if kind == "reject":
            return "InvalidResult"
        if kind == "abort-in-naming" and not documents_for(text):
            # Nothing to name, so naming never ran (and never aborted); the effect sees no abort either.
            pass
        elif kind in LATE_ABORTS:
            return f"Aborted@{LATE_POINTS[kind]}"
        self.count += 1
        self.sources.extend(Doc(f"{self.count}:{d.source_id}", d.text) for d in documents_for(text))
        return "EffectFailed" if kind == "effect-boom" else "ok"

    def keys(self) -> frozenset[str]:
        return frozenset(canonical_key({"kind": k, "text": t}).unwrap() for t, k in self.seen)


TEXTS = st.sampled_from(["Agent", "guide", "faq", "notes", "a b", "x"])
PADDING = st.sampled_from(["", " ", "  \t"])


class RetrievalMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.harness = Harness()
        self.definition = self.harness.definition()
        self.state: RetrievalState[Doc] = RetrievalState()
        self.model = Model(0)
        self.sent: list[Query] = []
        self.sequences: list[int] = []
        self.previous_seen: frozenset[str] = frozenset()
        self.last_input: RetrievalState[Doc] = self.state
        self.last_snapshot: RetrievalState[Doc] = copy.deepcopy(self.state)

    @initialize(quota=st.integers(min_value=0, max_value=5))
    def set_quota(self, quota: int) -> None:
        self.model = Model(quota)

    def _send(self, query: Query, aborted_before: bool = False) -> None:
        self.harness.controller = CancellationController()
        signal = CancellationSignal.aborted_with("user left") if aborted_before else self.harness.controller.signal
        context = OperationContext(App(self.model.limit), signal)
        self.sent.append(query)
        self.previous_seen = self.state.seen
        self.last_input, self.last_snapshot = self.state, copy.deepcopy(self.state)
        query_snapshot = copy.deepcopy(query)
        executed_before = len(self.harness.executed)

        expected = self.model.step(query, aborted_before)
        event(f"expected {expected}")
        outcome = run_retrieval(self.definition, query, context, self.state)
        self.state = outcome.state

        assert query == query_snapshot
        if expected in {"InvalidQuery", "DuplicateQuery", "BudgetExhausted", "Unauthorized"} or (
            expected == "Aborted@before-execute"
        ):
            assert len(self.harness.executed) == executed_before, "a refused query reached execute"
        match outcome.result:
            case Success(receipt):
                assert expected == "ok", f"expected {expected}, got a receipt"
                self.sequences.append(receipt.sequence)
            case Failure(error):
                name = f"Aborted@{error.point}" if isinstance(error, Aborted) else type(error).__name__
                assert name == expected, f"expected {expected}, got {error!r}"
                self._check_error(error)

    def _check_error(self, error: RetrievalError) -> None:
        assert error.definition_id == "machine"
        assert error.message
        if isinstance(error, EffectFailed):
            self.sequences.append(error.receipt.sequence)

    @rule(text=TEXTS, kind=st.sampled_from(KINDS), pad=PADDING)
    def ask(self, text: str, kind: str, pad: str) -> None:
        self._send({"text": pad + text + pad, "kind": kind})

    @rule(text=TEXTS | st.sampled_from(["", "   "]), kind=st.sampled_from([*KINDS, "", "drop tables"]))
    def ask_malformed_or_odd(self, text: str, kind: str) -> None:
        self._send({"text": text, "kind": kind} if text.strip() else {"kind": kind, "text": text})

    @rule(text=TEXTS, kind=st.sampled_from(KINDS))
    def ask_after_abort(self, text: str, kind: str) -> None:
        self._send({"text": text, "kind": kind}, aborted_before=True)

    @precondition(lambda self: bool(self.sent))
    @rule(data=st.data(), pad=PADDING)
    def ask_again(self, data: st.DataObject, pad: str) -> None:
        earlier = data.draw(st.sampled_from(self.sent))
        # The same query, its keys in the other order and padded: still the same key.
        self._send({key: (pad + value + pad if key == "text" else value) for key, value in reversed(earlier.items())})

    @invariant()
    def count_within_limit(self) -> None:
        assert self.state.query_count <= self.model.limit
        assert self.state.query_count == self.model.count

    @invariant()
    def seen_only_grows(self) -> None:
        assert self.previous_seen <= self.state.seen
        assert self.state.seen == self.model.keys()

    @invariant()
    def duplicates_never_reach_execute(self) -> None:
        assert len(self.harness.executed) == len(set(self.harness.executed))

    @invariant()
    def sources_match_the_model_in_acceptance_order(self) -> None:
        assert list(self.state.sources) == self.model.sources

    @invariant()
    def sequences_increase_by_one(self) -> None:
        assert self.sequences == list(range(1, len(self.sequences) + 1))

    @invariant()
    def the_state_passed_in_is_never_mutated(self) -> None:
        assert self.last_input == self.last_snapshot
        assert self.last_input.seen == self.last_snapshot.seen
        assert self.last_input.sources == self.last_snapshot.sources


TestRetrievalMachine = RetrievalMachine.TestCase
