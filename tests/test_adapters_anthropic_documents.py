"""Example tests of documents in the Anthropic Messages adapter: the best document is kept while
budget is left, an unscored document sheds first, refill takes a document back after turns are
shed, the documents go into ``system`` and bad shedding arguments are error values naming them."""

from __future__ import annotations

from typing import Any

import pytest
from returns.result import Failure

from thrift_fp.adapters._core import InvalidArgument, InvalidDocument
from thrift_fp.adapters.anthropic import count_anthropic_tokens, fit_anthropic_messages
from thrift_fp.thrift import RAG
from thrift_fp.render import KeyedNonce

NONCE = KeyedNonce(bytes(32))
SYSTEM = "Answer from the documents."
HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "Tell me about our old shipping policy in detail. " * 40},
    {"role": "assistant", "content": "It changed in 2024."},
    {"role": "user", "content": "How long do refunds take?"},
]
REFUNDS = {"content": "Refunds are paid within 30 days of the return arriving at our warehouse. " * 4, "score": 0.9}


def _as_sent(fitted: Any) -> int:
    return int(count_anthropic_tokens(fitted.messages, system=fitted.system).unwrap().tokens)


def test_refill_takes_the_best_document_back_once_an_old_turn_made_room() -> None:
    fitted = fit_anthropic_messages(HISTORY, 500, system=SYSTEM, output_reserve=100, documents=[REFUNDS],
                                    nonce=NONCE).unwrap()
    # The old turn had to go; the document fits in what that left, so it comes back (refill).
    assert fitted.shed == (0, 1) and fitted.documents == (REFUNDS,) and fitted.documents[0] is REFUNDS
    assert fitted.messages == HISTORY[2:] and fitted.messages[0] is HISTORY[2]
    assert fitted.tokens.tokens == _as_sent(fitted) <= fitted.trace.budget == 400
    assert isinstance(fitted.system, list) and fitted.system[0] == {"type": "text", "text": SYSTEM}
    assert "Refunds are paid" in fitted.system[1]["text"]
    off = fit_anthropic_messages(HISTORY, 500, system=SYSTEM, output_reserve=100, documents=[REFUNDS], nonce=NONCE,
                                 refill=False).unwrap()
    assert off.documents == () and off.shed == (0, 1) and off.system == SYSTEM


def test_the_best_document_is_kept_while_budget_is_left() -> None:
    worse = {"content": "Shipping is free over 50 EUR in every country we ship to. " * 12, "score": 0.2}
    history = HISTORY[1:]
    full = fit_anthropic_messages(history, 10**6, system=SYSTEM, documents=[worse, REFUNDS], nonce=NONCE,
                                  output_reserve=0).unwrap()
    assert full.documents == (worse, REFUNDS)
    one = fit_anthropic_messages(history, full.tokens.tokens - 1, system=SYSTEM, documents=[worse, REFUNDS],
                                 nonce=NONCE, output_reserve=0).unwrap()
    # Room is short: the lower-scored document goes, the best stays, and no turn is shed.
    assert one.documents == (REFUNDS,) and one.shed == ()
    assert one.tokens.tokens == _as_sent(one) <= full.tokens.tokens - 1


def test_an_unscored_document_sheds_before_every_scored_one_after_rescaling() -> None:
    documents: list[dict[str, object]] = [{"id": "a", "content": "the", "score": 2.0}, {"id": "unscored", "content": "the"},
                 {"id": "b", "content": "the", "score": 1.0}]
    question = [{"role": "user", "content": "Which?"}]
    full = fit_anthropic_messages(question, 10**6, documents=documents, nonce=NONCE, output_reserve=0).unwrap()
    # b is rescaled to 0.0, the unscored document ranks below it all the same.
    two = fit_anthropic_messages(question, full.tokens.tokens - 1, documents=documents, nonce=NONCE,
                                 output_reserve=0).unwrap()
    assert [record.id for record in two.records] == ["a", "b"]
    assert two.documents == (documents[0], documents[2])
    assert [bucket_id for bucket in two.trace.buckets for bucket_id in bucket.ids if bucket_id == "unscored"]


def test_rag_order_sheds_old_turns_before_documents_and_a_system_less_request_gets_one() -> None:
    agent = fit_anthropic_messages(HISTORY, 900, output_reserve=100, documents=[REFUNDS], nonce=NONCE).unwrap()
    assert agent.documents == () and agent.shed == () and agent.system is None
    rag = fit_anthropic_messages(HISTORY, 900, output_reserve=100, documents=[REFUNDS], nonce=NONCE,
                                 shed_order=RAG).unwrap()
    assert rag.documents == (REFUNDS,) and rag.shed == (0, 1)
    assert isinstance(rag.system, list) and len(rag.system) == 1
    assert rag.tokens.tokens == _as_sent(rag) <= 800


def test_tool_pairs_stay_whole_with_documents() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Check the log. " * 60},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "tu1", "name": "read_log", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "disk full " * 30}]},
        {"role": "assistant", "content": "The disk filled up."},
        {"role": "user", "content": "Why?"},
    ]
    for window in range(150, 1200, 50):
        result = fit_anthropic_messages(history, window, output_reserve=0, documents=[REFUNDS], nonce=NONCE,
                                        whole_turns=False)
        if isinstance(result, Failure):
            continue
        shed = result.unwrap().shed
        assert (1 in shed) == (2 in shed)


@pytest.mark.parametrize(("arguments", "field"), [
    ({"shed_order": "rag"}, "shed_order"), ({"refill": "yes"}, "refill"),
])
def test_bad_shedding_arguments_are_error_values_naming_them(arguments: dict[str, Any], field: str) -> None:
    error = fit_anthropic_messages(HISTORY, 900, documents=[REFUNDS], **arguments).failure()
    assert isinstance(error, InvalidArgument) and error.field == field


def test_bad_documents_are_error_values_naming_the_index_and_field() -> None:
    bad: list[tuple[object, str]] = [
        ([REFUNDS, 3], "documents[1].(document)"), ([{"content": "x", "score": float("nan")}], "documents[0].score"),
        ("just text", "documents[0].(documents)"),
    ]
    for documents, where in bad:
        error = fit_anthropic_messages(HISTORY, 900, documents=documents).failure()  # type: ignore[arg-type] # deliberately wrong
        assert isinstance(error, InvalidDocument) and error.message.startswith(where)
    tier = fit_anthropic_messages(HISTORY, 900, documents=[REFUNDS], tier="mine").failure()  # type: ignore[arg-type] # deliberately wrong
    assert isinstance(tier, InvalidDocument) and "(tier)" in tier.message
