"""Both examples of seed 001 (the manual search), in Python, with the seed's outcomes."""

from __future__ import annotations

from tests._retrieval_fixtures import App, Found
from tests._retrieval_fixtures import Doc as Source
from thrift_fp.retrieval import (
    CancellationController,
    OperationContext,
    RetrievalDefinition,
    RetrievalEffect,
    RetrievalState,
    Receipt,
    Unauthorized,
    run_retrieval,
)


DOCUMENTS = (Source("manual", "Agent Core 使用指南"),)


def assert_not_blank(query: str, context: OperationContext[object]) -> None:
    if not query.strip():
        raise ValueError("查询为空")


def test_configure_one_read_for_the_same_product_material() -> None:
    manual_search: RetrievalDefinition[str, Source, Found, object] = RetrievalDefinition(
        id="manual-search",
        description="读取已确认的本地演示资料",
        assert_input=assert_not_blank,
        limit=lambda context: 2,
        execute=lambda query, context: Found(tuple(item for item in DOCUMENTS if query in item.text)),
        sources=lambda result: result.sources,
    )
    state: RetrievalState[Source] = RetrievalState()

    outcome = run_retrieval(manual_search, "Agent", OperationContext({}, CancellationController().signal), state)

    # The seed prints { sources: [ { sourceId: 'manual', text: 'Agent Core 使用指南' } ] }.
    assert outcome.result.unwrap().result == Found((Source("manual", "Agent Core 使用指南"),))
    assert outcome.state == RetrievalState(1, frozenset({'"Agent"'}), DOCUMENTS)
    assert state == RetrievalState()


def _authorize(query: str, context: OperationContext[App]) -> None:
    if not context.app.can_read:
        raise PermissionError("没有资料读取权限")


def _source_count(receipt: Receipt[str, Source, Found], context: OperationContext[App]) -> dict[str, object]:
    return {"sourceCount": len(receipt.result.sources)}


MANUAL_SEARCH: RetrievalDefinition[str, Source, Found, App] = RetrievalDefinition(
    id="manual-search",
    description="按当前服务端权限读取资料",
    prepare=lambda query, context: query.strip(),
    assert_input=assert_not_blank,
    limit=lambda context: 2,
    authorize=_authorize,
    execute=lambda query, context: Found(tuple(item for item in DOCUMENTS if query in item.text)),
    sources=lambda result: result.sources,
    effects=(RetrievalEffect(id="source-count", description="给真实回执附加来源数量", handle=_source_count),),
)


def test_add_normalization_authorization_and_receipt_effects() -> None:
    context = OperationContext(App(can_read=True), CancellationController().signal)

    receipt = run_retrieval(MANUAL_SEARCH, " Agent ", context, RetrievalState()).result.unwrap()

    # The seed prints: 1 { sourceCount: 1 }
    assert (receipt.sequence, dict(receipt.extensions)) == (1, {"sourceCount": 1})
    assert receipt.query == "Agent"


def test_the_same_definition_refuses_a_reader_without_permission() -> None:
    context = OperationContext(App(can_read=False), CancellationController().signal)

    outcome = run_retrieval(MANUAL_SEARCH, " Agent ", context, RetrievalState())

    error = outcome.result.failure()
    assert isinstance(error, Unauthorized)
    assert error.reason == "PermissionError: 没有资料读取权限"
    assert outcome.state == RetrievalState()
