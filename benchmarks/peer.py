"""Workload 3, peer: thrift's message passes against langchain-core's ``trim_messages``.

Trim 2,000 chat messages to an 8,000-token budget with ``trim_messages(strategy="last")`` whose
token counter counts each message's content with thrift_fp's own cl100k_base encoding, and fit the
same messages with `subtract_to_fit` (a working set of messages only, ``output_reserve=0`` so the
budget is the window). Both must keep the same number of tokens, give or take one message.
Target: >= 20x faster.

    python -m benchmarks.peer [--profile] [--what-if]

``--what-if`` also times thrift with ``count_many`` swapped, in this process only, for counting
on one thread and for the implementation it replaced (see _whatif.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, trim_messages

from benchmarks._data import SEED, Turn, chat
from benchmarks._harness import Report, best_of, run_and_print, seconds
from benchmarks._sets import encoding, messages, raw_tiktoken
from benchmarks._whatif import per_text_futures_count_many, serial_count_many, with_count_many
from thrift_fp.thrift import ThriftOptions, WorkingSet, subtract_to_fit
from thrift_fp.tokens import TokenEncoding

MESSAGES = 2_000
BUDGET = 8_000
REPEATS = 7
TARGET = 20.0
OPTIONS = ThriftOptions(output_reserve=0)


def _text(message: BaseMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else str(content)


@dataclass
class ListCounter:
    """A ``trim_messages`` token counter: the sum of each message's content tokens.

    ``calls`` and ``texts`` tally how often trim_messages asks and how many messages it counts.
    """

    encoding: TokenEncoding
    calls: int = 0
    texts: int = 0

    def __call__(self, batch: list[BaseMessage]) -> int:
        self.calls += 1
        self.texts += len(batch)
        return sum(self.encoding.count(_text(message)).unwrap() for message in batch)


def langchain_messages(turns: Sequence[Turn]) -> list[BaseMessage]:
    """The turns as langchain messages (human for user turns, AI for assistant turns)."""
    return [
        HumanMessage(content=turn.text, id=turn.id) if turn.role == "user" else AIMessage(content=turn.text, id=turn.id)
        for turn in turns
    ]


def _trim(history: list[BaseMessage], counter: ListCounter) -> list[BaseMessage]:
    # Annotated so the check is the same with or without langchain-core installed.
    trimmed: list[BaseMessage] = trim_messages(history, max_tokens=BUDGET, token_counter=counter, strategy="last")
    return trimmed


def run(repeats: int = REPEATS) -> Report:
    """Time both trims on the same 2,000 messages and compare what they keep."""
    turns = chat(MESSAGES)
    history = langchain_messages(turns)
    ws = WorkingSet(messages=messages(turns))
    counter = ListCounter(encoding())

    trimmed = _trim(history, counter)
    calls, texts = counter.calls, counter.texts
    fitted = subtract_to_fit(ws, BUDGET, options=OPTIONS).unwrap()
    peer_kept, peer_tokens = len(trimmed), ListCounter(encoding())(trimmed)
    thrift_kept, thrift_tokens = len(fitted.working_set.messages), fitted.trace.total_after
    same_ids = [message.id for message in trimmed] == [message.id for message in fitted.working_set.messages]
    agree = abs(peer_kept - thrift_kept) <= 1 and peer_tokens <= BUDGET and thrift_tokens <= BUDGET

    encode = raw_tiktoken().encode_ordinary
    bodies = [turn.text for turn in turns]
    best = best_of(
        {
            "trim_messages": lambda: _trim(history, counter),
            "thrift": lambda: subtract_to_fit(ws, BUDGET, options=OPTIONS).unwrap(),
            "tokenize once": lambda: [len(encode(text)) for text in bodies],
        },
        repeats,
    )
    ratio = best["trim_messages"] / best["thrift"]
    total_tokens = sum(encoding().count(turn.text).unwrap() for turn in turns)
    return Report(
        workload="workload 3: peer (langchain-core trim_messages)",
        headline="trim_messages time / thrift time",
        value=ratio,
        target=f">= {TARGET:.0f}x, same kept tokens (+-1 message)",
        met=ratio >= TARGET and agree,
        inputs=(
            ("messages", f"{MESSAGES:,} alternating user/assistant turns of 5-120 words (seed {SEED}), "
                         f"{total_tokens:,} tokens"),
            ("budget", f"{BUDGET:,} tokens (trim_messages max_tokens; thrift window {BUDGET:,}, output_reserve=0)"),
            ("counter", "content tokens per message via thrift_fp get_encoding('cl100k_base').count, "
                        "no per-message overhead (both sides)"),
            ("repeats", f"best of {repeats}, interleaved"),
        ),
        figures=(
            ("trim_messages", seconds(best["trim_messages"])),
            ("thrift subtract_to_fit", seconds(best["thrift"])),
            ("tiktoken single-threaded, every message once", seconds(best["tokenize once"])),
            ("ceiling for any fit that measures every message once (trim / tokenize once)",
             f"{best['trim_messages'] / best['tokenize once']:.2f}x"),
            ("trim_messages kept", f"{peer_kept} messages, {peer_tokens:,} tokens"),
            ("thrift kept", f"{thrift_kept} messages, {thrift_tokens:,} tokens"),
            ("same messages kept", "yes" if same_ids else "no"),
            ("trim_messages counter work per trim", f"{calls} counter calls over {texts:,} messages "
                                                    f"({texts / MESSAGES:.2f} x the history)"),
            ("thrift counter work per fit", f"{MESSAGES:,} messages counted once (1.00 x the history)"),
        ),
    )


def profile(rounds: int = 10) -> str:
    """pyinstrument's call trees of ``rounds`` thrift fits and ``rounds`` trims."""
    from pyinstrument import Profiler

    turns = chat(MESSAGES)
    ws = WorkingSet(messages=messages(turns))
    history = langchain_messages(turns)
    counter = ListCounter(encoding())
    trees = []
    for name, once in (
        ("thrift", lambda: subtract_to_fit(ws, BUDGET, options=OPTIONS)),
        ("trim_messages", lambda: _trim(history, counter)),
    ):
        profiler = Profiler(interval=0.0005)
        profiler.start()
        for _ in range(rounds):
            once()
        profiler.stop()
        trees.append(f"-- {name} x{rounds} --\n" + profiler.output_text(unicode=False, color=False))
    return "\n".join(trees)


def what_if(repeats: int = REPEATS) -> str:
    """trim_messages against thrift as built and with other ``count_many`` implementations."""
    turns = chat(MESSAGES)
    ws = WorkingSet(messages=messages(turns))
    history = langchain_messages(turns)
    counter = ListCounter(encoding())

    def fit() -> int:
        return subtract_to_fit(ws, BUDGET, options=OPTIONS).unwrap().trace.total_after

    for candidate in (serial_count_many, per_text_futures_count_many):
        if with_count_many(candidate, fit)() != fit():
            raise AssertionError(f"{candidate.__name__} changes the fit")
    best = best_of(
        {
            "trim_messages": lambda: _trim(history, counter),
            "thrift as built": fit,
            "thrift, count_many on one thread": with_count_many(serial_count_many, fit),
            "thrift, count_many as before f6d1b90": with_count_many(per_text_futures_count_many, fit),
        },
        repeats,
    )
    trim = best["trim_messages"]
    return "\n".join(
        ["== what-if (count_many swapped in this process only) =="]
        + [f"  {name}: {seconds(value)}, trim_messages / this = {trim / value:.2f}x" for name, value in best.items()]
    )


def main(argv: Sequence[str]) -> int:
    """Run the workload (``--profile``: where each side spends its time; ``--what-if``: see above)."""
    report = run_and_print(run)
    if "--profile" in argv:
        print(profile())
    if "--what-if" in argv:
        print(what_if())
    return 0 if report.met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
