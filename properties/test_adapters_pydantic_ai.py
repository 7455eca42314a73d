"""Properties of the Pydantic AI adapter over generated histories and budgets.

Every count here is made afresh (`sent_tokens`), with the instructions Pydantic AI's own
``get_instructions_source`` picks from the history as returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart, TextPart, UserPromptPart
from returns.result import Failure, Result

from properties.adapters_pydantic_ai_strategies import (
    Turn,
    adjacent_requests,
    histories,
    orphans,
    sent_tokens,
    system_parts,
    written,
)
from thrift_fp.adapters.pydantic_ai import ModelMessagesFit, ThriftHistory, count_model_messages, fit_model_messages
from thrift_fp.adapters import AdapterError, OverBudget

windows = st.integers(min_value=0, max_value=6000)
# A budget as a share of the history's own count, so most draws shed something.
shares = st.floats(min_value=0.0, max_value=1.1)


def _own_or_system(out: Sequence[ModelMessage], given: Sequence[ModelMessage]) -> bool:
    """Each returned message is one of the caller's, or a new request of system parts that were
    in the caller's requests followed by every part of one caller request, in order."""
    originals = {id(message) for message in given}
    system = {id(part) for part in system_parts(given)}
    for message in out:
        if id(message) in originals:
            continue
        if not isinstance(message, ModelRequest):
            return False
        parts = list(message.parts)
        leads = [lead for lead in range(1, len(parts) + 1) if all(id(part) in system for part in parts[:lead])]
        if not any(not parts[lead:] or any(len(parts) - lead == len(m.parts) and all(a is b for a, b in
                                                                                       zip(parts[lead:], m.parts))
                                           for m in given)
                   for lead in leads):
            return False
    return True


def _check_fit(history: list[ModelMessage], window: int, whole_turns: bool) -> None:
    fitted = fit_model_messages(history, window, output_reserve=0, whole_turns=whole_turns)
    if isinstance(fitted, Failure):
        error = fitted.failure()
        assert isinstance(error, OverBudget) and error.tokens > error.budget == window
        return
    done = fitted.unwrap()
    assert sent_tokens(done.messages) == done.tokens.tokens <= window
    assert orphans(done.messages) == set()
    assert adjacent_requests(done.messages) == []
    assert _own_or_system(done.messages, history)
    assert system_parts(done.messages) == system_parts(history)
    assert done.messages[-1] is history[-1] or done.messages[-1].parts[-1] is history[-1].parts[-1]
    if whole_turns:
        # The newest turn keeps its opening user prompt; nothing before it starts with a response.
        opening = max(at for at, m in enumerate(history) if any(isinstance(p, UserPromptPart) for p in m.parts))
        kept = [part for message in done.messages for part in message.parts]
        assert all(any(part is mine for mine in kept) for part in history[opening].parts)
        assert isinstance(done.messages[0], ModelRequest)


@settings(max_examples=60, deadline=None)
@given(histories, shares, st.booleans())
def test_as_sent_the_history_fits_or_the_error_says_the_floor_does_not(
    drawn: list[Turn], share: float, whole_turns: bool
) -> None:
    history = written(drawn)
    _check_fit(history, int(share * sent_tokens(history)), whole_turns)


@settings(max_examples=25, deadline=None)
@given(histories, st.booleans())
def test_at_every_budget_from_nothing_to_everything_the_fit_is_valid(drawn: list[Turn], whole_turns: bool) -> None:
    history = written(drawn)
    total = sent_tokens(history)
    for window in range(0, total + 1, max(1, total // 60)):
        _check_fit(history, window, whole_turns)


@settings(max_examples=40, deadline=None)
@given(histories)
def test_the_count_is_what_pydantic_ai_sends_and_an_unlimited_budget_keeps_every_object(drawn: list[Turn]) -> None:
    history = written(drawn)
    assert count_model_messages(history).unwrap().tokens == sent_tokens(history)
    out = ThriftHistory(10**9)(history)
    assert [id(message) for message in out] == [id(message) for message in history]


def _same_fit(carried: Result[ModelMessagesFit, AdapterError], fresh: Result[ModelMessagesFit, AdapterError]) -> None:
    """A carried fit is the cold fit: the same error, or the same kept objects (a new request of
    system parts holds the very same parts), shed rows, count as sent and trace."""
    if isinstance(fresh, Failure):
        assert carried == fresh
        return
    one, two = carried.unwrap(), fresh.unwrap()
    assert len(one.messages) == len(two.messages)
    for mine, cold in zip(one.messages, two.messages):
        assert mine is cold or (type(mine) is type(cold) and all(a is b for a, b in zip(mine.parts, cold.parts, strict=True)))
    assert (one.shed, one.tokens, one.trace) == (two.shed, two.tokens, two.trace)


_EDITS = ("append", "append", "append", "text", "instructions", "parts-append", "part-replaced", "parts-replaced",
          "drop", "insert", "swap")


def _edit(history: list[ModelMessage], shown: int, data: st.DataObject) -> int:
    """One drawn edit of the caller's own objects, as an agent's code may make between two model
    calls; answers how many messages are shown now (an append shows more of ``history``)."""
    kind = data.draw(st.sampled_from(_EDITS), label="edit")
    if kind == "append" or shown == 0:
        return min(len(history), shown + data.draw(st.integers(min_value=1, max_value=3), label="grown"))
    at = data.draw(st.integers(min_value=0, max_value=shown - 1), label="at")
    message = history[at]
    # Parts whose text is a plain field (a read-only property could not be edited in place).
    texts: list[object] = [part for part in message.parts if isinstance(getattr(part, "__dict__", {}).get("content"), str)]
    if kind == "text" and texts:
        part = data.draw(st.sampled_from(texts), label="part")
        setattr(part, "content", getattr(part, "content") + data.draw(st.sampled_from((" and more words", "", " é 数据 " * 20))))
    elif kind == "instructions" and isinstance(message, ModelRequest):
        message.instructions = data.draw(st.sampled_from((None, "Be brief.", "Cite sources. " * 30)))
    elif kind == "parts-append" and texts:
        cast(list[object], message.parts).append(texts[0])
    elif kind == "part-replaced" and isinstance(message, ModelResponse):
        cast(list[object], message.parts)[0] = TextPart("a replaced answer " * data.draw(st.integers(min_value=1, max_value=9)))
    elif kind == "parts-replaced":
        setattr(message, "parts", list(message.parts))
    elif kind == "drop" and at < shown - 1:
        del history[at]
        return shown - 1
    elif kind == "insert":
        history.insert(at, ModelResponse([TextPart("inserted")]) if isinstance(message, ModelRequest)
                       else ModelRequest([UserPromptPart("inserted")]))
        return shown + 1
    elif kind == "swap" and at + 2 < shown:
        history[at], history[at + 2] = history[at + 2], history[at]
    return shown


@settings(max_examples=60, deadline=None)
@given(histories, shares, st.booleans(), st.data())
def test_a_processor_carrying_its_step_fits_exactly_as_a_cold_fit_through_appends_and_edits(
    drawn: list[Turn], share: float, whole: bool, data: st.DataObject
) -> None:
    history = written(drawn)
    # A budget below the whole history's count, so most steps shed part of it.
    window = int(share * sent_tokens(history))
    processor = ThriftHistory(window, output_reserve=0, whole_turns=whole)
    shown = data.draw(st.integers(min_value=1, max_value=len(history)), label="shown")
    for _ in range(data.draw(st.integers(min_value=1, max_value=6), label="steps")):
        step = history[:shown]
        _same_fit(processor.fit(step), fit_model_messages(step, window, output_reserve=0, whole_turns=whole))
        shown = _edit(history, shown, data)
    step = history[:shown]
    _same_fit(processor.fit(step), fit_model_messages(step, window, output_reserve=0, whole_turns=whole))


@settings(max_examples=30, deadline=None)
@given(histories, windows)
def test_system_prompt_parts_are_never_shed_and_stay_in_order(drawn: list[Turn], window: int) -> None:
    history = written(drawn)
    fitted = fit_model_messages(history, window, output_reserve=0, whole_turns=False)
    if isinstance(fitted, Failure):
        return
    shown = [part for message in fitted.unwrap().messages for part in message.parts if isinstance(part, SystemPromptPart)]
    assert shown == system_parts(history)
