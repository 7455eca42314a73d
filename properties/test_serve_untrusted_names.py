"""Names documents chose are data wherever an agent reads them: the server's text shows a passage
id, a source or a heading only inside its envelope, or after the directive quoted on one line.

Hostile ids (line breaks and instruction-like lines, fake envelope tags, bidi and other invisible
characters, 10 kB of text) reach every tool's text: search notes (already sent, shed), read's
"already sent", and the tool errors (an unknown id sent back, a repeated question). For any budget,
the text outside the envelopes is only the server's own note lines, printable, with no tag
character, and no id that needed quoting appears in it verbatim.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Final

from hypothesis import example, given, settings
from hypothesis import strategies as st
from returns.result import Failure

from properties.hostile_strategies import examples
from properties.served_text import error_is_one_quoted_line, hostile_names, only_notes_outside
from thrift_fp.retrieval import RetrievalDefinition
from thrift_fp.serve import ReadRequest, SearchRequest, SessionLedger, answer_read, answer_search, serve_settings
from thrift_fp.sources import FtsDefinition, Hit

_AT: Final = datetime(2026, 1, 1, tzinfo=UTC)
def _hit(passage_id: str, source: str, content: int) -> Hit:
    values: dict[str, object] = {
        "passage_id": passage_id, "source": source, "path": source, "kind": "jsonl", "trust_tier": "first-party",
        "created_at": _AT, "updated_at": _AT, "content_hash": f"hash{content}", "tokens": 12,
        "text": f"Passage {content} says budgets are counted in real tokens. " * (1 + content % 4), "rank": -1.0,
        "score": 0.9 - content / 100, "metadata": MappingProxyType({"heading_path": [source]}),
    }
    return Hit(**{field.name: values[field.name] for field in fields(Hit) if field.name in values})  # type: ignore[arg-type]  # values by name, typed object


@dataclass(frozen=True, slots=True)
class NamedBackend:
    """Answers each question with its own hits (hostile names), whatever the index would."""

    answers: MappingProxyType[str, tuple[Hit, ...]]

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        return RetrievalDefinition(
            id="hostile-names",
            description="hits with hostile names",
            assert_input=lambda question, context: None,
            limit=lambda context: max_calls,
            execute=lambda question, context: self.answers.get(question, ()),
            sources=lambda hits: hits,
        )

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        return ((1, dataclasses.replace(hit, passage_id=hit.passage_id + "\nnext", content_hash=hit.content_hash + "n")),)

    def describe(self) -> str:
        return "hostile names"

    def ranking(self) -> dict[str, object]:
        return {"ranking": "lexical"}


@settings(max_examples=examples(40), deadline=None)
@given(
    names=st.lists(hostile_names, min_size=1, max_size=5, unique=True),
    calls=st.lists(
        st.tuples(st.sampled_from(("search", "read", "read-unknown")), st.integers(0, 4), st.integers(1, 2500)),
        min_size=1, max_size=6,
    ),
)
# A name of one double quote, read once: its quoted form "\"" holds it (the check, not the
# server, was wrong; tests/test_serve_untrusted_names.py).
@example(names=['"'], calls=[("read", 0, 2500)])
def test_names_documents_chose_appear_only_enveloped_or_quoted(names: list[str], calls: list[tuple[str, int, int]]) -> None:
    hits = [_hit(name, f"{name[:300]}.jsonl", number) for number, name in enumerate(names)]
    # Overlapping answers, so later answers name passages earlier ones sent, and a question repeats.
    answers = {f"question {i}": tuple(hits[i % len(hits):] + hits[: i % len(hits)]) for i in range(5)}
    backend, served = NamedBackend(MappingProxyType(answers)), serve_settings(max_budget=2500).unwrap()
    ledger = SessionLedger()
    for tool, pick, budget in calls:
        if tool == "search":
            ledger, result = answer_search(
                ledger, SearchRequest(f"question {pick % 3}", budget, served.tiers), backend, served
            )
        else:
            name = names[pick % len(names)]
            ledger, result = answer_read(
                ledger, ReadRequest(name if tool == "read" else name + "\nunknown", budget), backend, served
            )
        if isinstance(result, Failure):
            error_is_one_quoted_line(result.failure().message, names)
        else:
            only_notes_outside(result.unwrap().text, names)
