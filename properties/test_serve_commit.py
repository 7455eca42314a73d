"""A session's calls as explicit commits, over any interleaving: calls prepared on one ledger,
some committed, some dropped (cancelled), in any order. Only committed calls leave a trace (their
record, charge and deliveries, in commit order); a dropped call leaves none; a call prepared on
a ledger another commit has moved past is refused, so no quota is spent twice and no content is
delivered twice."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from properties.hostile_strategies import examples
from thrift_fp.serve._commit import CallCommit
from thrift_fp.serve._ledger import CallRecord, SessionLedger, record_call
from thrift_fp.serve._sessions import Session


class Commits(RuleBasedStateMachine):
    """The real `Session` against a model: the list of commits that were kept."""

    def __init__(self) -> None:
        super().__init__()
        self.session = Session()
        self.pending: list[tuple[CallCommit[None], int, tuple[str, ...]]] = []
        self.kept: list[tuple[int, tuple[str, ...]]] = []  # (tokens, contents delivered first)
        self.version = 0

    @rule(tokens=st.integers(0, 500), contents=st.lists(st.integers(0, 6), max_size=4, unique=True))
    def prepare(self, tokens: int, contents: list[int]) -> None:
        hashes = tuple(f"h{content}" for content in contents)

        def call(ledger: SessionLedger) -> tuple[SessionLedger, None]:
            fresh = [content for content in hashes if content not in ledger.delivered]
            record = CallRecord(ledger.next_call, "search", f"q{len(self.pending)}", "answered", tuple(fresh), (), tokens)
            grown = replace(ledger.retrieval, query_count=ledger.retrieval.query_count + 1)
            return record_call(ledger, record, [(content, f"{content}#1") for content in fresh], retrieval=grown), None

        prepared = self.session.prepare(call)
        assert prepared.version == self.version and prepared.before == self.session.ledger
        fresh = tuple(content for content in hashes if content not in self.session.ledger.delivered)
        self.pending.append((prepared, tokens, fresh))

    @precondition(lambda self: self.pending)
    @rule(data=st.data())
    def commit(self, data: st.DataObject) -> None:
        prepared, tokens, fresh = self.pending.pop(data.draw(st.integers(0, len(self.pending) - 1)))
        kept = self.session.commit(prepared)
        assert kept == (prepared.version == self.version)
        if kept:
            self.kept.append((tokens, fresh))
            self.version += 1

    @precondition(lambda self: self.pending)
    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        # A cancelled call's commit is dropped: never applied.
        self.pending.pop(data.draw(st.integers(0, len(self.pending) - 1)))

    @invariant()
    def only_kept_commits_leave_a_trace(self) -> None:
        ledger = self.session.ledger
        assert ledger.tokens_used == sum(tokens for tokens, _ in self.kept)
        assert ledger.retrieval.query_count == len(self.kept) == len(ledger.calls) == self.session.version
        assert [call.tokens for call in ledger.calls] == [tokens for tokens, _ in self.kept]
        assert [call.number for call in ledger.calls] == list(range(1, len(self.kept) + 1))
        delivered = [content for _, fresh in self.kept for content in fresh]
        assert len(delivered) == len(set(delivered)) and set(delivered) == set(ledger.delivered)


Commits.TestCase.settings = settings(
    Commits.TestCase.settings, max_examples=examples(60), stateful_step_count=20, deadline=None
)
test_commits_keep_only_what_was_committed = Commits.TestCase
