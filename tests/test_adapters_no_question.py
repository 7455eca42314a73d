"""Regression: a history with no question (only tool rounds) under whole turns, the default.

Hypothesis found it in the Anthropic property (two ``tool_use`` / ``tool_result`` rounds, a
431-token window, tools on): the fit shed the first round and returned a history opening on an
assistant ``tool_use``, which breaks the turn rule of issue 36 (a history cut short opens on a
question) and the Anthropic API (the first message must be a user message; a ``tool_result``
one would be, but never leads: its ``tool_use`` comes before it). All five adapters cut such a
history the same way. The rule now: the messages before the first question are one turn with no
question, kept or shed whole; with no question at all that turn is the whole history, so it is
kept whole or the fit is `OverBudget` naming what it costs. ``whole_turns=False`` still cuts it.
"""

from __future__ import annotations

from typing import Any

import pytest
from returns.result import Failure

from properties.test_adapters_turns import ADAPTERS, _fit, _flat, Turn
from thrift_fp.adapters._core import OverBudget
from thrift_fp.adapters.anthropic import count_anthropic_tokens, fit_anthropic_messages

SYSTEM = "You are a careful incident analyst."
TOOLS: list[dict[str, Any]] = [{"name": "lookup", "description": "Look a thing up.", "input_schema": {"type": "object"}}]


def _round(at: int) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "the", "signature": "sig"},
                                          {"type": "tool_use", "id": f"tu_{at}_0", "name": "lookup", "input": {"q": "the"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tu_{at}_0", "content": "the"}]},
    ]


HISTORY = [*_round(0), *_round(1)]


def test_anthropic_does_not_cut_a_history_with_no_question_it_names_its_cost() -> None:
    whole = count_anthropic_tokens(HISTORY, system=SYSTEM, tools=TOOLS).unwrap().tokens
    assert whole == 468
    result = fit_anthropic_messages(HISTORY, 431, system=SYSTEM, tools=TOOLS, output_reserve=0)
    # It kept the second round alone (431 tokens), opening on an assistant tool_use.
    assert isinstance(result, Failure) and result.failure() == OverBudget(whole, 431)
    fitted = fit_anthropic_messages(HISTORY, whole, system=SYSTEM, tools=TOOLS, output_reserve=0).unwrap()
    assert fitted.shed == () and all(a is b for a, b in zip(fitted.messages, HISTORY, strict=True))


def test_anthropic_whole_turns_off_still_sheds_the_oldest_round() -> None:
    fitted = fit_anthropic_messages(HISTORY, 431, system=SYSTEM, tools=TOOLS, output_reserve=0, whole_turns=False).unwrap()
    assert fitted.shed == (0, 1) and fitted.messages[0] is HISTORY[2]


def test_anthropic_rounds_before_the_first_question_leave_together() -> None:
    question = {"role": "user", "content": "What filled the disk?"}
    history = [*_round(0), *_round(1), question, {"role": "assistant", "content": "The logs."}, {"role": "user", "content": "Fix?"}]
    sizes = [count_anthropic_tokens(history[at:], system=SYSTEM, tools=TOOLS).unwrap().tokens for at in range(len(history))]
    for window in range(sizes[-1], sizes[0] + 1):
        result = fit_anthropic_messages(history, window, system=SYSTEM, tools=TOOLS, output_reserve=0)
        if not isinstance(result, Failure):
            # Nothing shed, the headless rounds shed whole, or the older turn too: never one round of them.
            assert result.unwrap().shed in ((), (0, 1, 2, 3), (0, 1, 2, 3, 4, 5)), window


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_every_adapter_keeps_a_history_with_no_question_whole_or_names_its_cost(adapter: str) -> None:
    messages = ADAPTERS[adapter][0](_flat([Turn(None, (1, 2, 1), None)]))
    whole = _fit(adapter, messages, 10**6, None).unwrap().tokens.tokens
    cut = 0
    for budget in range(whole + 1):
        result = _fit(adapter, messages, budget, None)
        if isinstance(result, Failure):
            error = result.failure()
            assert isinstance(error, OverBudget) and error.tokens == whole and error.budget == budget
        else:
            assert budget == whole and len(result.unwrap().messages) == len(messages)
        # Message by message (the opt-out) the same history is cut at some budget.
        off = _fit(adapter, messages, budget, False)
        cut += not isinstance(off, Failure) and len(off.unwrap().messages) < len(messages)
    assert cut > 0
