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
