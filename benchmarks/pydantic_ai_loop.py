"""Pydantic AI agent loop: one step of a history processor against a cold fit of the same history.

An agent's history of 2,000 messages (user prompts with instructions, tool rounds, replies) is
fitted by a `ThriftHistory` (step N); then one tool round is appended, as the next model call
sees it, and the same processor fits it again (step N+1, carrying its counts). The contender is
a cold `fit_model_messages` of that same history. Both must return the same messages (checked
before timing). Target: the step costs, by CPU time (median), at most 0.15x the cold fit.

    python -m benchmarks.pydantic_ai_loop
"""

from __future__ import annotations

import random
import sys

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

from benchmarks._harness import Report, at_most, interleaved, ratio_text, run_and_print
from thrift_fp.adapters.pydantic_ai import ThriftHistory, fit_model_messages

MESSAGES = 2000
WINDOW = 200_000
REPEATS = 21
TARGET = 0.15
SEED = 25
INSTRUCTIONS = "Answer from the runbook, cite the section, and keep it under five sentences. " * 6
_WORDS = ("disk", "filled", "at", "noon", "the", "log", "rotated", "node", "seven", "paged", "storage", "é", "数据")


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def history(count: int, rng: random.Random) -> list[ModelMessage]:
    """An agent's history of ``count`` messages ending with a request."""
    messages: list[ModelMessage] = []
    while len(messages) < count - 1:
        messages.append(ModelRequest([UserPromptPart(_text(rng, 5, 60))], instructions=INSTRUCTIONS))
        for _ in range(rng.randint(0, 2)):
            call_id = f"call-{len(messages)}"
            messages.append(ModelResponse([ToolCallPart("runbook", {"topic": _text(rng, 1, 4)}, call_id)]))
            messages.append(ModelRequest([ToolReturnPart("runbook", _text(rng, 20, 120), call_id)],
                                         instructions=INSTRUCTIONS))
        messages.append(ModelResponse([TextPart(_text(rng, 10, 120))]))
    messages.append(ModelRequest([UserPromptPart(_text(rng, 5, 60))], instructions=INSTRUCTIONS))
    return messages


def run(repeats: int = REPEATS) -> Report:
    """A processor's next step against a cold fit of the same history."""
    rng = random.Random(SEED)
    before = history(MESSAGES, rng)
    call_id = "call-next"
    after = [*before, ModelResponse([ToolCallPart("runbook", {"topic": "disk"}, call_id)]),
             ModelRequest([ToolReturnPart("runbook", _text(rng, 20, 120), call_id)], instructions=INSTRUCTIONS)]
    processor = ThriftHistory(WINDOW, output_reserve=4096)
    processor(before)
    cold = fit_model_messages(after, WINDOW, output_reserve=4096).unwrap()
    if processor(after) != cold.messages:
        raise AssertionError("the processor's step kept a different history than the cold fit")

    # Each timed step is a processor primed with step N (untimed), as the agent's next call finds it.
    primed = []
    for _ in range(repeats):
        fresh = ThriftHistory(WINDOW, output_reserve=4096)
        fresh(before)
        primed.append(fresh)
    # The primed processors stay alive in ``primed``: a step is one call, not the call plus
    # tearing down the whole processor (an agent keeps its processor).
    steps = iter(primed)
    timing = interleaved({"cold": lambda: fit_model_messages(after, WINDOW, output_reserve=4096),
                          "step": lambda: next(steps)(after)}, repeats)
    ratio = timing["step"].median_cpu / timing["cold"].median_cpu
    return Report(
        workload="pydantic ai agent loop: the next step of a history processor",
        headline="processor step CPU / cold fit CPU after one appended tool round (median)",
        **at_most(ratio, TARGET, "x, same messages"),
        inputs=(
            ("history", f"{len(before):,} messages (prompts with {len(INSTRUCTIONS)}-char instructions, tool rounds, "
                        f"replies; seed {SEED}), then one tool round appended"),
            ("window", f"{WINDOW:,}, output_reserve 4,096 (kept {len(cold.messages):,} messages, "
                       f"{cold.tokens.tokens:,} tokens)"),
            ("same messages", "processor step == cold fit, checked before timing"),
            ("repeats", f"{repeats} runs per contender, A-B-B-A; CPU = time.process_time; "
                        "each step on a processor primed with step N, untimed"),
        ),
        figures=(
            ("cold fit of step N+1", timing["cold"].text()),
            ("processor step N+1 (carried counts)", timing["step"].text()),
            ("step / cold", ratio_text(timing["step"], timing["cold"])),
        ),
    )


def main() -> int:
    """Run the workload."""
    return 0 if run_and_print(run).all_met else 1


if __name__ == "__main__":
    sys.exit(main())
