"""End to end: a real ``Agent`` with a ``FunctionModel`` runs many turns through the processor.

The agent has ``instructions=``, a system prompt, a tool that raises ``ModelRetry`` on some
arguments, and an output validator that asks for a retry; each turn passes the previous run's
messages as ``message_history``. Inside the model function, every call checks what it was sent,
counted afresh with the instructions Pydantic AI passed: within budget, no orphaned tool part,
no merged prompts (a request holding two user prompts), the system prompt there; and what the
processor hands back never has two adjacent requests (Pydantic AI would merge them).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import ModelMessage, ModelResponse, SystemPromptPart, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from properties.adapters_pydantic_ai_strategies import adjacent_requests, orphans, sent_tokens
from thrift_fp.adapters.pydantic_ai import HistoryFitError, ModelMessagesFit, ThriftHistory
from thrift_fp.adapters import OverBudget


@dataclass(frozen=True)
class Script:
    """What the model does in one turn: tool rounds (each a list of call sizes, a size of 0 asks
    for a retry), whether it first answers with text the validator rejects, and its reply size."""

    rounds: tuple[tuple[int, ...], ...]
    rejected: bool
    reply: int


@dataclass
class _Position:
    turn: int = 0
    step: int = 0


scripts = st.builds(
    Script,
    st.lists(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=3).map(tuple), max_size=4).map(tuple),
    st.booleans(),
    st.integers(min_value=1, max_value=60),
)


@settings(max_examples=12, deadline=None)
@given(st.lists(scripts, min_size=2, max_size=6), st.integers(min_value=250, max_value=2500), st.booleans(),
       st.integers(min_value=1, max_value=40))
def test_every_model_call_of_a_real_agent_is_sent_a_valid_history_within_budget(
    turns: list[Script], budget: int, whole_turns: bool, instruction_words: int
) -> None:
    sent: list[int] = []
    state = _Position()

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert sent_tokens(messages, instructions=info.instructions) <= budget
        assert orphans(messages) == set()
        assert adjacent_requests(messages) == []
        # Merged prompts: Pydantic AI fuses adjacent requests before the model sees them, so a
        # request holding two user prompts is the trace of a history that left two adjacent.
        assert all(sum(isinstance(part, UserPromptPart) for part in message.parts) <= 1 for message in messages)
        assert any(isinstance(part, SystemPromptPart) for message in messages for part in message.parts)
        sent.append(1)
        script = turns[state.turn]
        step = state.step
        state.step += 1
        if step < len(script.rounds):
            calls = [ToolCallPart("lookup", {"size": size}, f"t{state.turn}-{step}-{k}")
                     for k, size in enumerate(script.rounds[step])]
            return ModelResponse(calls)
        if script.rejected and step == len(script.rounds):
            return ModelResponse([TextPart("draft")])
        return ModelResponse([TextPart("answer " * script.reply)])

    def returned(fitted: ModelMessagesFit) -> None:
        # What the processor hands back, before Pydantic AI merges anything.
        assert adjacent_requests(fitted.messages) == [] and fitted.tokens.tokens <= budget

    processor = ThriftHistory(budget, output_reserve=0, whole_turns=whole_turns, on_fit=returned)
    agent: Agent[None, str] = Agent(
        FunctionModel(model), system_prompt="You answer incident questions.",
        instructions="Cite the log line. " * instruction_words, capabilities=[ProcessHistory(processor)],
        retries=20,
    )

    @agent.tool_plain
    def lookup(size: int) -> str:
        if size == 0:
            raise ModelRetry("size must be positive")
        return "log line " * size

    @agent.output_validator
    def not_a_draft(output: str) -> str:
        if output == "draft":
            raise ModelRetry("finish the answer")
        return output

    history: list[ModelMessage] | None = None
    for number in range(len(turns)):
        state.turn, state.step = number, 0
        try:
            history = asyncio.run(agent.run(f"question {number}", message_history=history)).all_messages()
        except HistoryFitError as failed:
            # Only when what is never shed alone exceeds the budget.
            assert isinstance(failed.error, OverBudget) and failed.error.tokens > budget
            return
    assert sent
