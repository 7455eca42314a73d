"""A chat agent's turn: fit the history, the tool calls and the tools into the model's window.

The core `WorkingSet` holds everything the model would see. `subtract_to_fit` keeps the system
prompt and the newest message, sheds the lowest-signal items first (old tool calls, then old
turns: a tool call and its result leave together), and says what it shed and why.

    python examples/chat_agent.py
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from returns.result import Failure, Success

from thrift_fp import Message, ThriftOptions, Tool, ToolCall, WorkingSet, subtract_to_fit

start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return start + timedelta(minutes=minutes)


history = (
    Message("u1", "Our checkout page times out under load. " * 12, at(0), role="user"),
    Message("a1", "Let me look at the logs.", at(1), role="assistant", pair_id="call-1"),
    Message("t1", "[read_logs] 502 upstream timeout ... " * 25, at(2), role="tool", pair_id="call-1"),
    Message("a2", "The upstream payment service is slow; raise its timeout to 10 s.", at(3), role="assistant"),
    Message("u2", "Done. What should we monitor now?", at(10), role="user"),
)
working_set = WorkingSet(
    system_prompt="You are an on-call assistant. Be brief and concrete.",
    messages=history,
    tools=(
        Tool("read_logs", "Read the service logs for a time range."),
        Tool("query_metrics", "Query a metric (latency, error rate) over a time range."),
        Tool("page_human", "Page the human on call."),
    ),
    tool_calls=(
        ToolCall("read_logs#1", token_cost=120, created_at_ms=1_000),
        ToolCall("query_metrics#1", token_cost=40, created_at_ms=2_000, this_turn=True),
    ),
)

# A small window, so that something has to go; 100 tokens are kept for the answer.
match subtract_to_fit(working_set, 400, ["read_logs", "query_metrics"], ThriftOptions(output_reserve=100)):
    case Success(fitted):
        trace = fitted.trace
        print(f"fits: {trace.fits}, {trace.total_after} of {trace.budget} tokens (window {trace.context_window})")
        print("kept messages:", [m.id for m in fitted.working_set.messages])
        print("visible tools:", [t.name for t in fitted.working_set.visible_tools()])
        for bucket in trace.buckets:
            if bucket.ids:
                print(f"shed from {bucket.bucket}: {list(bucket.ids)} ({bucket.note})")
    case Failure(error):
        raise SystemExit(f"could not fit: {error}")
