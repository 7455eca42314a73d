"""The OpenAI adapter's inline reads (plain dicts in the commonest shapes, priced without the
general walk) price, pair and fit exactly as the general read of the same messages: a read-only
mapping view of each dict takes the general path (`as_mapping`), so the two must agree."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from hypothesis import given, strategies as st

from properties.adapters_a_strategies import Round, Say, conversations, openai
from thrift_fp.adapters.openai import count_openai_tokens, fit_openai_messages


def _general(messages: list[Any]) -> list[Any]:
    """The same messages as read-only mapping views: not ``dict``, so never read inline."""
    return [MappingProxyType(message) for message in messages]


@given(conversations, st.sampled_from(("gpt-4o", "gpt-4")), st.booleans())
def test_inline_read_prices_as_the_general_read(events: list[Say | Round], model: str, content_first: bool) -> None:
    """The same count, and the same fit (kept, shed, tokens) at a budget that sheds."""
    messages = openai(events).messages
    if not content_first:
        # Tool results with their keys in the other order (a different text order in the batch).
        messages = [{"role": m["role"], "content": m["content"], "tool_call_id": m["tool_call_id"]}
                    if m["role"] == "tool" else m for m in messages]
    inline = count_openai_tokens(messages, model=model).unwrap()
    general = count_openai_tokens(_general(messages), model=model).unwrap()
    assert inline == general
    budget = max(1, inline.tokens * 2 // 3)
    fitted = fit_openai_messages(messages, budget, model=model, output_reserve=0)
    again = fit_openai_messages(_general(messages), budget, model=model, output_reserve=0)
    assert type(fitted) is type(again)
    if fitted.value_or(None) is not None:
        left, right = fitted.unwrap(), again.unwrap()
        assert (left.shed, left.tokens, len(left.messages)) == (right.shed, right.tokens, len(right.messages))


_EXTRA = st.sampled_from(("call", "function", "none"))


@given(conversations, st.data())
def test_inline_tool_calls_with_other_keys_price_as_the_general_read(events: list[Say | Round], data: st.DataObject) -> None:
    """A tool call (or its function) with one more key, or its keys in another order, is not the
    plain shape the inline read knows: its count is the general read's all the same."""
    messages = openai(events).messages
    changed: list[Any] = []
    for message in messages:
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                where = data.draw(_EXTRA)
                function = dict(reversed(call["function"].items())) if data.draw(st.booleans()) else dict(call["function"])
                if where == "function":
                    function["strict"] = data.draw(st.text(max_size=8))
                shaped = {"function": function, "type": call["type"], "id": call["id"]}
                if where == "call":
                    shaped["index"] = data.draw(st.text(max_size=8))
                calls.append(shaped)
            message = {**message, "tool_calls": calls}
        changed.append(message)
    inline = count_openai_tokens(changed, model="gpt-4o").unwrap()
    assert inline == count_openai_tokens(_general(changed), model="gpt-4o").unwrap()
