"""Fit a Pydantic AI agent's history into a small window, offline (a FunctionModel, no network).

Run it: ``python examples/adapter_pydantic_ai.py``. The agent has a system prompt, instructions
and a tool; each turn passes the previous run's messages back, so the history grows until the
processor starts shedding the oldest turns. Every model call is sent a history within budget,
counted as Pydantic AI sends it (only the newest request's instructions).
"""

from __future__ import annotations

import asyncio
import itertools

from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from thrift_fp.adapters.pydantic_ai import ModelMessagesFit, ThriftHistory

WINDOW, RESERVE = 1200, 400


CALLS = itertools.count()


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Look the question up once, then answer."""
    if not any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
        return ModelResponse([ToolCallPart("runbook", {"topic": "disk"}, f"call-{next(CALLS)}")])
    return ModelResponse([TextPart("The disk filled up at 09:12; rotate the logs. " * 6)])


def report(fitted: ModelMessagesFit) -> None:
    """Print what each model call is sent."""
    trace = fitted.trace
    print(f"sent {len(fitted.messages):2} messages, {fitted.tokens.tokens:4} tokens of {trace.budget}; "
          f"shed {len(fitted.shed)}")


agent: Agent[None, str] = Agent(
    FunctionModel(model),
    system_prompt="You are the on-call assistant.",
    instructions="Answer in two sentences and cite the runbook. " * 10,
    capabilities=[ProcessHistory(ThriftHistory(WINDOW, output_reserve=RESERVE, on_fit=report))],
)


@agent.tool_plain
def runbook(topic: str) -> str:
    """The runbook section on ``topic``."""
    return f"{topic}: check /var/log, rotate, then page storage. " * 8


async def main() -> None:
    history: list[ModelMessage] | None = None
    for day in range(6):
        result = await agent.run(f"What happened to the disk on day {day}?", message_history=history)
        history = result.all_messages()
    print(f"stored history: {len(history or [])} messages")


if __name__ == "__main__":
    asyncio.run(main())
