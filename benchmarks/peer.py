"""Workload 3, peer: the LangChain adapter against langchain-core's ``trim_messages``.

2,000 LangChain messages (a system prompt, then user turns, assistant answers, and assistant
turns issuing 1-3 tool calls followed by their ``ToolMessage`` results) are trimmed to one budget by
``trim_messages(strategy="last", include_system=True)`` with a **plain tiktoken per-message
counter** (``len(encode_ordinary(text))`` on the same ``tiktoken.Encoding`` object, not routed
through thrift_fp), and fitted by `thrift_fp.adapters.langchain.fit_messages`. Both count the same
text per message (the adapter's documented framing; the script checks every message once before
timing), so kept tokens are comparable.

Timing: one process, rounds in A-B-B-A order, wall time (``perf_counter``) and process CPU time
(``process_time``, all threads), medians beside bests. Two rows: **1 thread each** (thrift_fp's
batch counter held to one thread; the equal-work row and the headline) and **as built** (thrift_fp
counting on its pool, trim_messages on the one thread it has). Then a sweep of 41 budgets
(1,000-41,000 tokens) counts the orphaned tool messages each side leaves.

Target: no slower than trim_messages (median ratio >= 1.0, wall and CPU, 1-thread row) and zero
orphans on our side at every budget.

    python -m benchmarks.peer
"""

import gc
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages

import thrift_fp.tokens._encoding as encoding_module
from benchmarks._data import SEED, words
from benchmarks._harness import Report, run_and_print
from benchmarks._sets import raw_tiktoken
from thrift_fp.adapters.langchain import fit_messages, message_text

MESSAGES = 2_000
BUDGET = 8_000
ROUNDS = 8
SWEEP = tuple(range(1_000, 41_001, 1_000))
TARGET = 1.0


def history(count: int = MESSAGES, seed: int = SEED) -> list[BaseMessage]:
    """A system prompt, then episodes: a user turn, then an answer or 1-3 tool calls + results."""
    rng = random.Random(seed)
    out: list[BaseMessage] = [SystemMessage(words(rng, 40))]
    calls = 0
    while len(out) < count:
        out.append(HumanMessage(words(rng, rng.randint(5, 120))))
        if rng.random() < 0.5:
            out.append(AIMessage(words(rng, rng.randint(5, 120))))
            continue
        ids = [f"call_{calls + at:05d}" for at in range(rng.randint(1, 3))]
        calls += len(ids)
        tool_calls = [{"name": "search", "args": {"query": words(rng, rng.randint(2, 8))}, "id": i} for i in ids]
        out.append(AIMessage(words(rng, rng.randint(0, 15)), tool_calls=tool_calls))
        out.extend(ToolMessage(words(rng, rng.randint(20, 150)), tool_call_id=i) for i in ids)
    return out[:count]


_ROLES = ((SystemMessage, "system"), (HumanMessage, "user"), (AIMessage, "assistant"), (ToolMessage, "tool"))


def plain_text(message: BaseMessage) -> str:
    """The text a user's own counter would count: role line, content, one JSON line per tool call
    (the adapter's framing, written out plainly for this workload's four message kinds)."""
    role = next(name for kind, name in _ROLES if isinstance(message, kind))
    header = f"{role} {message.tool_call_id}" if isinstance(message, ToolMessage) else role
    content = message.content if isinstance(message.content, str) else str(message.content)
    calls = message.tool_calls if isinstance(message, AIMessage) else []
    lines = [json.dumps({"id": c["id"], "name": c["name"], "args": c["args"]}, ensure_ascii=False, default=str) for c in calls]
    return "\n".join((header, content, *lines))


_ENCODE = raw_tiktoken().encode_ordinary


def peer_counter(message: BaseMessage) -> int:
    """A plain per-message tiktoken counter (annotated BaseMessage, so trim_messages sums it)."""
    return len(_ENCODE(plain_text(message)))


def trim(messages: Sequence[BaseMessage], budget: int) -> list[BaseMessage]:
    """langchain-core's trimmer, as its docs suggest for chat history."""
    kept: list[BaseMessage] = trim_messages(
        messages, max_tokens=budget, token_counter=peer_counter, strategy="last", include_system=True
    )
    return kept


def fit(messages: Sequence[BaseMessage], budget: int) -> list[BaseMessage]:
    """The adapter: the same objects back, pairs kept whole; message by message
    (``whole_turns=False``), as the peer's ``strategy="last"`` without ``start_on`` trims."""
    return list(fit_messages(messages, budget, output_reserve=0, whole_turns=False).unwrap().messages)


def orphans(kept: Sequence[BaseMessage], source: Sequence[BaseMessage]) -> int:
    """Kept tool results whose call is gone, plus kept calls that lost a result the input had."""
    issued = {c["id"] for m in kept if isinstance(m, AIMessage) for c in m.tool_calls}
    answered = {m.tool_call_id for m in kept if isinstance(m, ToolMessage)}
    had = {m.tool_call_id for m in source if isinstance(m, ToolMessage)}
    return len(answered - issued) + len((issued & had) - answered)


def tokens(kept: Sequence[BaseMessage]) -> int:
    """Kept tokens, with the per-message count both sides use."""
    return sum(peer_counter(m) for m in kept)


@contextmanager
def counting_threads(threads: int | None) -> Iterator[None]:
    """Hold thrift_fp's batch counter to ``threads`` (None: as built). There is no public knob;
    the pool size is read per call from this private function, so swapping it is exact."""
    built = encoding_module._pool_size
    if threads is not None:
        setattr(encoding_module, "_pool_size", lambda: threads)
    try:
        yield
    finally:
        setattr(encoding_module, "_pool_size", built)


@dataclass(frozen=True, slots=True)
class Timing:
    """Wall and CPU samples (seconds) of one contender."""

    wall: tuple[float, ...]
    cpu: tuple[float, ...]

    def line(self) -> str:
        return (f"wall median {statistics.median(self.wall) * 1000:.1f} ms (best {min(self.wall) * 1000:.1f}), "
                f"CPU median {statistics.median(self.cpu) * 1000:.1f} ms (best {min(self.cpu) * 1000:.1f})")


def abba(first: Callable[[], object], second: Callable[[], object], rounds: int) -> tuple[Timing, Timing]:
    """``rounds`` rounds of A, B, B, A; the collector runs before each call, not during it."""
    samples: dict[int, tuple[list[float], list[float]]] = {0: ([], []), 1: ([], [])}
    runs = (first, second)
    for _ in range(rounds):
        for which in (0, 1, 1, 0):
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            runs[which]()
            samples[which][1].append(time.process_time() - cpu)
            samples[which][0].append(time.perf_counter() - wall)
    return tuple(Timing(tuple(w), tuple(c)) for w, c in samples.values())  # type: ignore[return-value]  # two keys, two timings


def _ratio(peer: Timing, ours: Timing) -> tuple[float, float]:
    return (statistics.median(peer.wall) / statistics.median(ours.wall),
            statistics.median(peer.cpu) / statistics.median(ours.cpu))


def run(rounds: int = ROUNDS) -> Report:
    """Check the two counters agree, time both sides in two rows, then sweep 41 budgets."""
    messages = history()
    mismatched = [i for i, m in enumerate(messages) if message_text(m, i).unwrap() != plain_text(m)]
    if mismatched:
        raise AssertionError(f"the peer counter counts other text than the adapter at {mismatched[:5]}")
    load_before = os.getloadavg()
    with counting_threads(1):
        peer_1, ours_1 = abba(lambda: trim(messages, BUDGET), lambda: fit(messages, BUDGET), rounds)
    peer_n, ours_n = abba(lambda: trim(messages, BUDGET), lambda: fit(messages, BUDGET), rounds)
    load_after = os.getloadavg()
    wall_1, cpu_1 = _ratio(peer_1, ours_1)
    wall_n, cpu_n = _ratio(peer_n, ours_n)

    peer_kept, our_kept = trim(messages, BUDGET), fit(messages, BUDGET)
    sweep = [(budget, trim(messages, budget), fit(messages, budget)) for budget in SWEEP]
    peer_orphaned = [(b, orphans(p, messages)) for b, p, _ in sweep if orphans(p, messages)]
    our_orphans = sum(orphans(o, messages) for _, _, o in sweep)
    over = [b for b, _, o in sweep if tokens(o) > b]
    kept_share = [tokens(o) / tokens(p) for _, p, o in sweep]
    tool_share = sum(isinstance(m, ToolMessage) for m in messages) / len(messages)
    met = min(wall_1, cpu_1) >= TARGET and our_orphans == 0 and orphans(our_kept, messages) == 0 and not over
    return Report(
        workload="workload 3: peer (langchain-core trim_messages vs thrift_fp.adapters.langchain)",
        headline="trim_messages / fit_messages, median wall time, 1 thread each",
        value=wall_1,
        target=f">= {TARGET:.1f}x wall and CPU (no slower), zero orphans at every budget",
        met=met,
        inputs=(
            ("messages", f"{len(messages):,} (seed {SEED}): system prompt, user turns, answers, 1-3 tool calls + "
                         f"results; {tool_share:.0%} are ToolMessages; {tokens(messages):,} tokens"),
            ("budget", f"{BUDGET:,} tokens for the timed rows; sweep {SWEEP[0]:,}-{SWEEP[-1]:,} step 1,000 (41)"),
            ("peer", "trim_messages(strategy='last', include_system=True), per-message counter "
                     "len(tiktoken encode_ordinary(text)), cl100k_base"),
            ("ours", "fit_messages(messages, budget, output_reserve=0, whole_turns=False) (cl100k_base, system kept, counts each message once)"),
            ("repeats", f"{rounds} rounds of A-B-B-A per row ({2 * rounds} samples each)"),
            ("load average", f"{load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} before, "
                             f"{load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f} after"),
        ),
        figures=(
            ("1 thread each: trim_messages", peer_1.line()),
            ("1 thread each: fit_messages", ours_1.line()),
            ("1 thread each: trim / fit", f"wall {wall_1:.2f}x, CPU {cpu_1:.2f}x (medians)"),
            (f"as built (thrift_fp pool of {encoding_module._pool_size()}): trim_messages", peer_n.line()),
            ("as built: fit_messages", ours_n.line()),
            ("as built: trim / fit", f"wall {wall_n:.2f}x, CPU {cpu_n:.2f}x (medians)"),
            (f"kept at {BUDGET:,}", f"trim_messages {len(peer_kept)} messages / {tokens(peer_kept):,} tokens, "
                                    f"{orphans(peer_kept, messages)} orphans; fit_messages {len(our_kept)} messages / "
                                    f"{tokens(our_kept):,} tokens, {orphans(our_kept, messages)} orphans"),
            ("sweep: trim_messages orphans", f"{len(peer_orphaned)} of {len(SWEEP)} budgets orphan "
                                             f"({sum(n for _, n in peer_orphaned)} tool messages: "
                                             f"{', '.join(f'{b:,}:{n}' for b, n in peer_orphaned) or 'none'})"),
            ("sweep: fit_messages orphans", f"{our_orphans} at {len(SWEEP)} budgets; over budget at {len(over)}"),
            ("sweep: fit kept tokens / trim kept tokens",
             f"median {statistics.median(kept_share):.4f}, min {min(kept_share):.4f} "
             "(pairs leave whole, so the adapter may keep a little less)"),
        ),
    )


def main(argv: Sequence[str]) -> int:
    """Run the workload and print its report."""
    report = run_and_print(run)
    return 0 if report.met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
