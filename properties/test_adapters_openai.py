"""Properties of the OpenAI Chat Completions adapter, over generated conversations (parallel tool
calls, repeated rounds, images, the SDK's own message objects) and budgets: as sent, the count is
within the budget or the result is an error value; no call or result is orphaned; the output is
valid for the API (the SDK's own ``ChatCompletionMessageParam``); the returned objects are the
caller's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageParam
from pydantic import TypeAdapter
from returns.result import Failure

from properties.adapters_a_strategies import Round, Say, Written, conversations, openai, text
from thrift_fp.adapters._core import OverBudget
from thrift_fp.adapters.openai import count_openai_tokens, fit_openai_messages
from thrift_fp.render import KeyedNonce
from thrift_fp.thrift import Message, ThriftOptions, WorkingSet, subtract_to_fit

MODEL = "gpt-4o"
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "lookup", "description": "Look a thing up.",
                                      "parameters": {"type": "object", "properties": {
                                          "q": {"type": "string", "description": "What to look up.",
                                                "enum": ["a", "b"]}}}}},
]
PARAMS: TypeAdapter[list[ChatCompletionMessageParam]] = TypeAdapter(list[ChatCompletionMessageParam])
windows = st.integers(min_value=0, max_value=3000)
IMAGE = {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}}


@st.composite
def held(draw: st.DrawFn) -> Written:
    """A conversation as a user's code holds it: some assistant tool-call messages are the SDK's
    ``ChatCompletionMessage`` objects, some user messages carry an image part."""
    written = openai(draw(conversations))
    messages: list[Any] = []
    for message in written.messages:
        if message.get("tool_calls") and draw(st.booleans()):
            message = ChatCompletionMessage.model_validate(message)
        elif message.get("role") == "user" and draw(st.integers(0, 4)) == 0:
            message = {"role": "user", "content": [{"type": "text", "text": message["content"]}, IMAGE]}
        messages.append(message)
    return Written(messages, written.rounds, written.instructions)


def _plain(message: object) -> Mapping[str, Any]:
    return message.model_dump(exclude_none=True) if isinstance(message, ChatCompletionMessage) else message  # type: ignore[return-value]


def _orphans(messages: Sequence[object]) -> list[str]:
    """Tool results without their call, and calls missing a result, in OpenAI's own terms."""
    plain = [_plain(message) for message in messages]
    problems: list[str] = []
    answered = {message["tool_call_id"] for message in plain if message.get("role") == "tool"}
    open_ids: set[str] = set()
    for message in plain:
        for call in message.get("tool_calls") or ():
            open_ids.add(call["id"])
            if call["id"] not in answered:
                problems.append(f"call {call['id']} without its result")
        if message.get("role") == "tool" and message["tool_call_id"] not in open_ids:
            problems.append(f"result {message['tool_call_id']} without an earlier call")
    return problems


def _floor(written: Written, model: str, tools: list[dict[str, Any]]) -> int:
    """What can never be shed, as sent: request framing, instructions and the newest message's group."""
    last = written.rounds[-1]
    kept = [m for i, m in enumerate(written.messages)
            if written.instructions[i] or i == len(written.messages) - 1 or (last is not None and written.rounds[i] == last)]
    return count_openai_tokens(kept, model=model, tools=tools).unwrap().tokens


@settings(max_examples=40)
@given(held())
def test_an_unlimited_budget_returns_the_same_objects_in_the_same_order(written: Written) -> None:
    fitted = fit_openai_messages(written.messages, 10**9, model=MODEL, tools=TOOLS).unwrap()
    assert len(fitted.messages) == len(written.messages)
    assert all(out is given_ for out, given_ in zip(fitted.messages, written.messages, strict=True))
    assert fitted.shed == ()


@settings(max_examples=80)
@given(held(), windows, st.sampled_from(("gpt-4o", "gpt-4", "gpt-3.5-turbo-0301")), st.booleans(), st.booleans())
def test_as_sent_the_output_is_within_budget_valid_and_the_callers_own_or_an_error_value(
    written: Written, window: int, model: str, with_tools: bool, whole_turns: bool
) -> None:
    tools = TOOLS if with_tools else []
    result = fit_openai_messages(written.messages, window, model=model, tools=tools, output_reserve=0, whole_turns=whole_turns)
    if isinstance(result, Failure):
        error = result.failure()
        assert isinstance(error, OverBudget) and error.budget == window
        # Message by message, the floor is the system messages, the newest and its round; whole
        # turns add the newest turn's question to it.
        assert _floor(written, model, tools) > window or whole_turns
        return
    fitted = result.unwrap()
    counted = count_openai_tokens(fitted.messages, model=model, tools=tools).unwrap()
    assert counted == fitted.tokens
    assert counted.tokens <= window
    assert _orphans(fitted.messages) == []
    PARAMS.validate_python([_plain(message) for message in fitted.messages])
    given_ids = {id(message) for message in written.messages}
    assert all(id(message) in given_ids for message in fitted.messages)
    kept = [written.messages[index] for index in range(len(written.messages)) if index not in fitted.shed]
    assert all(a is b for a, b in zip(fitted.messages, kept, strict=True))


def _oracle_kept(written: Written, window: int) -> list[int]:
    """What the core keeps on a working set built from the test's own knowledge: each message
    priced at its count alone (minus reply priming), paired by its tool round, system pinned."""
    at = datetime(1970, 1, 1, tzinfo=timezone.utc)
    priming = 3
    messages = [Message("tools", "", at, summary=True,
                        token_cost=count_openai_tokens([], model=MODEL, tools=TOOLS).unwrap().tokens)]
    for index, message in enumerate(written.messages):
        tokens = count_openai_tokens([message], model=MODEL).unwrap().tokens - priming
        round_ = written.rounds[index]
        messages.append(Message(str(index), "", at, summary=written.instructions[index], token_cost=tokens,
                                pair_id=None if round_ is None else f"round-{round_}"))
    fitted = subtract_to_fit(WorkingSet(messages=tuple(messages)), window, options=ThriftOptions(output_reserve=0)).unwrap()
    return sorted(int(message.id) for message in fitted.working_set.messages if message.id != "tools")


@settings(max_examples=60)
@given(held(), windows)
def test_what_is_kept_is_what_the_core_keeps_on_the_test_s_own_pricing(written: Written, window: int) -> None:
    # The oracle sheds message by message: the adapter does too with whole_turns=False.
    result = fit_openai_messages(written.messages, window, model=MODEL, tools=TOOLS, output_reserve=0, whole_turns=False)
    if isinstance(result, Failure):
        return
    fitted = result.unwrap()
    kept = [index for index in range(len(written.messages)) if index not in fitted.shed]
    assert kept == _oracle_kept(written, window)


documents = st.lists(
    st.fixed_dictionaries({"content": text}, optional={"score": st.floats(-5, 5), "source": st.sampled_from(("web", "kb"))}),
    max_size=5,
)


@settings(max_examples=40)
@given(held(), documents, st.integers(min_value=0, max_value=4000), st.booleans())
def test_with_documents_the_output_is_within_budget_as_sent_and_valid(
    written: Written, docs: list[dict[str, object]], window: int, refill: bool
) -> None:
    result = fit_openai_messages(written.messages, window, model=MODEL, documents=docs, nonce=KeyedNonce(bytes(32)),
                                 refill=refill)
    if isinstance(result, Failure):
        assert isinstance(result.failure(), OverBudget)
        return
    fitted = result.unwrap()
    counted = count_openai_tokens(fitted.messages, model=MODEL).unwrap()
    assert counted == fitted.tokens and counted.tokens <= fitted.trace.budget
    inserted = [message for message in fitted.messages if not any(message is given_ for given_ in written.messages)]
    assert len(inserted) == (1 if fitted.documents else 0)
    # The kept documents are the caller's own objects, in input order, one per record.
    at = [next(n for n, given_ in enumerate(docs) if given_ is kept) for kept in fitted.documents]
    assert at == sorted(at) and len(set(at)) == len(at) == len(fitted.records)
    assert _orphans(fitted.messages) == []
    PARAMS.validate_python([_plain(message) for message in fitted.messages])
