"""Properties of the Pydantic AI adapter over generated histories and budgets.

Every count here is made afresh (`sent_tokens`), with the instructions Pydantic AI's own
``get_instructions_source`` picks from the history as returned.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelMessage, ModelRequest, SystemPromptPart, UserPromptPart
from returns.result import Failure

from properties.adapters_pydantic_ai_strategies import (
    Turn,
    adjacent_requests,
    histories,
    orphans,
    sent_tokens,
    system_parts,
    written,
)
from thrift_fp.adapters.pydantic_ai import OverBudget, ThriftHistory, count_model_messages, fit_model_messages

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


@settings(max_examples=30, deadline=None)
@given(histories, windows, st.booleans())
def test_a_processor_carrying_its_counts_fits_exactly_as_a_fresh_fit(drawn: list[Turn], window: int, whole: bool) -> None:
    history = written(drawn)
    processor = ThriftHistory(window, output_reserve=0, whole_turns=whole)
    for end in range(1, len(history) + 1):
        step = history[:end]
        if not isinstance(step[-1], ModelRequest):
            continue
        carried = processor.fit(step)
        fresh = fit_model_messages(step, window, output_reserve=0, whole_turns=whole)
        assert type(carried) is type(fresh)
        if not isinstance(fresh, Failure):
            assert carried.unwrap().messages == fresh.unwrap().messages
            assert carried.unwrap().tokens == fresh.unwrap().tokens


@settings(max_examples=30, deadline=None)
@given(histories, windows)
def test_system_prompt_parts_are_never_shed_and_stay_in_order(drawn: list[Turn], window: int) -> None:
    history = written(drawn)
    fitted = fit_model_messages(history, window, output_reserve=0, whole_turns=False)
    if isinstance(fitted, Failure):
        return
    shown = [part for message in fitted.unwrap().messages for part in message.parts if isinstance(part, SystemPromptPart)]
    assert shown == system_parts(history)


@settings(max_examples=30, deadline=None)
@given(histories, windows, st.booleans(), st.data())
def test_a_processor_sees_messages_changed_in_place_between_steps(
    drawn: list[Turn], window: int, whole: bool, data: st.DataObject
) -> None:
    history = written(drawn)
    processor = ThriftHistory(window, output_reserve=0, whole_turns=whole)
    processor.fit(history)
    # Edit the caller's own objects in place, as an agent's code may between two model calls:
    # a part's text, a request's instructions, or a message's parts list.
    for _ in range(data.draw(st.integers(min_value=1, max_value=3), label="edits")):
        message = history[data.draw(st.integers(min_value=0, max_value=len(history) - 1), label="at")]
        kind = data.draw(st.sampled_from(("text", "instructions", "parts")), label="kind")
        # Parts whose text is a plain field (a read-only property could not be edited in place).
        texts: list[object] = [part for part in message.parts if isinstance(getattr(part, "__dict__", {}).get("content"), str)]
        if kind == "text" and texts:
            part = data.draw(st.sampled_from(texts), label="part")
            setattr(part, "content", getattr(part, "content") + data.draw(st.sampled_from((" and more words", "", " é 数据 " * 20))))
        elif kind == "instructions" and isinstance(message, ModelRequest):
            message.instructions = data.draw(st.sampled_from((None, "Be brief.", "Cite sources. " * 30)))
        elif kind == "parts" and texts:
            setattr(message, "parts", [*message.parts, texts[0]])
        carried = processor.fit(history)
        fresh = fit_model_messages(history, window, output_reserve=0, whole_turns=whole)
        assert type(carried) is type(fresh)
        if not isinstance(fresh, Failure):
            assert carried.unwrap().messages == fresh.unwrap().messages
            assert carried.unwrap().tokens == fresh.unwrap().tokens
