"""Generators and independent oracles for the thrift properties.

The oracle measures items one by one with `count_tokens` (the fit measures them in one batch) and
re-derives every floor from the rules in DESIGN §6, without the passes' code.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from thrift_fp.thrift import (
    AGENT,
    RAG,
    BucketTrace,
    Fitted,
    Image,
    Memory,
    Message,
    MessageLike,
    ShedOrder,
    ShedPass,
    ThriftOptions,
    Thought,
    Tool,
    ToolCall,
    WorkingSet,
    subtract_to_fit,
)
from thrift_fp.tokens import get_encoding, register_token_estimator

# A fast fake tokenizer: one token per whitespace-separated word.
WORDS = "thrift-props-words"
register_token_estimator(WORDS, lambda text: len(text.split())).unwrap()

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)
REAL_ENCODINGS = ("cl100k_base", "o200k_base")


@dataclass(eq=False)
class Recorded:
    """A retrievable that records every call of its own estimator (identity equality)."""

    content: str
    id: str
    score: float | None
    size_unknown: bool
    self_estimate: bool
    calls: list[str] = field(default_factory=list)

    def estimate_tokens(self, encoding: str) -> int | None:
        self.calls.append(encoding)
        return len(self.content.split()) if self.self_estimate and encoding == WORDS else None


# Every property runs under every preset shed order.
ORDERS = (AGENT, RAG)
ORDER_IDS = [order.name for order in ORDERS]

# Shedding pass -> the floor name `floors_reached` uses for it.
FLOOR: dict[ShedPass, str] = {
    "image": "image",
    "tool-calls": "tool-calls",
    "retrievables": "retrievables",
    "memories": "memories",
    "ephemeral-messages": "ephemeral",
    "oldest-messages": "messages",
    "thoughts-shed": "thoughts-shed",
    "tools-shed": "tools-shed",
}


def position(order: ShedOrder, name: ShedPass) -> int:
    """Where a shedding pass's bucket sits in the trace: after size-unknown, thoughts and tools."""
    return 3 + order.passes.index(name)


@dataclass(frozen=True)
class Case:
    ws: WorkingSet
    window: int
    relevant: tuple[str, ...] | None
    options: ThriftOptions

    def fit(self, window: int | None = None, ws: WorkingSet | None = None) -> Fitted:
        return subtract_to_fit(
            self.ws if ws is None else ws,
            self.window if window is None else window,
            self.relevant,
            self.options,
        ).unwrap()

    def under(self, order: ShedOrder, refill: bool = False) -> Case:
        """The same case fitted under another shed order (and refill setting)."""
        return replace(self, options=replace(self.options, shed_order=order, refill=refill))

    @property
    def order(self) -> ShedOrder:
        return self.options.shed_order

    def bucket(self, fitted: Fitted, name: ShedPass) -> BucketTrace:
        """The trace of shedding pass ``name`` in this case's order."""
        return fitted.trace.buckets[position(self.order, name)]

    def shedding_passes(self) -> dict[int, str]:
        """Trace position -> floor name, for every shedding pass, in this case's order."""
        return {position(self.order, name): FLOOR[name] for name in self.order.passes}


def _words(n: int) -> str:
    return "w " * n


@st.composite
def cases(
    draw: st.DrawFn,
    *,
    encoding: str = WORDS,
    most: int = 60,
    scores: Sequence[float | None] = (None, 0.0, 0.25, 0.5, 0.75, 1.0),
    pair_rate: float = 0.3,
) -> Case:
    """A working set of up to ``6 * most`` items, a window around its size, and options;
    ``pair_rate`` of the messages carry one of 8 pair ids."""
    # beartype samples one element of each checked tuple with the global `random`; Hypothesis
    # forbids strategies from moving that state, so put it back (it never decides a draw).
    state = random.getstate()
    try:
        return _case(draw, encoding, most, scores, pair_rate)
    finally:
        random.setstate(state)


def _case(draw: st.DrawFn, encoding: str, most: int, scores: Sequence[float | None], pair_rate: float) -> Case:
    # Sizes and the window come from Hypothesis (they shrink); the hundreds of item attributes come
    # from a drawn seed, so a draw stays cheap.
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    alphabet = "abc xyz.,!\n9é日本"

    def text() -> str:
        if encoding == WORDS:
            return _words(rng.randint(0, 30))
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))

    def stamp() -> datetime:
        return AT + timedelta(seconds=rng.randint(0, 40))

    counts = draw(st.tuples(*(st.integers(0, top) for top in (most, most, 3 * most, most // 3, 8, most // 3))))
    n_messages, n_memories, n_retrievables, n_thoughts, n_tools, n_calls = counts
    pairs = [f"p{k}" for k in range(8)]
    # Caller-priced messages: none (counted), all (the bulk path's priced case) or some (the loop).
    priced_rate = draw(st.sampled_from((0.0, 1.0, 0.5)))
    messages = tuple(
        Message(
            f"m{i}",
            text(),
            stamp(),
            role=rng.choice(["user", "assistant", None]),
            summary=rng.random() < 0.1,
            ephemeral=rng.random() < 0.2,
            pair_id=rng.choice(pairs) if rng.random() < pair_rate else None,
            token_cost=rng.randint(0, 40) if rng.random() < priced_rate else None,
        )
        for i in range(n_messages)
    )
    memories = tuple(Memory(text(), rng.choice(scores), id=f"k{i}") for i in range(n_memories))
    retrievables = tuple(
        Recorded(text(), f"r{i}", rng.choice(scores), rng.random() < 0.12, rng.random() < 0.5)
        for i in range(n_retrievables)
    )
    thoughts = tuple(Thought(f"t{i}", text(), stamp(), rng.random() < 0.5) for i in range(n_thoughts))
    tools = tuple(Tool(f"tool{i}", text(), rng.randint(0, 3)) for i in range(n_tools))
    tool_calls = tuple(
        ToolCall(f"c{i}", rng.randint(0, 40), rng.randint(0, 40), rng.random() < 0.5) for i in range(n_calls)
    )
    image = draw(st.one_of(st.none(), st.builds(Image, st.just("img"), st.integers(0, 300), st.booleans())))
    ws = WorkingSet(
        system_prompt=text(),
        standing_instructions=tuple(text() for _ in range(rng.randint(0, 2))),
        messages=messages,
        memories=memories,
        retrievables=retrievables,
        thoughts=thoughts,
        tools=tools,
        tool_calls=tool_calls,
        image=image,
    )
    names = [tool.name for tool in tools]
    relevant = tuple(rng.sample(names, rng.randint(0, len(names)))) if names and rng.random() < 0.7 else None
    options = ThriftOptions(
        output_reserve=0,
        strip_prior_turn_thoughts=draw(st.booleans()),
        keep_thought_ids=frozenset(t.id for t in thoughts if rng.random() < 0.2),
        this_turn_result_keep=draw(st.integers(0, 4)),
        protected_tool_names=frozenset(name for name in names if rng.random() < 0.3),
        encoding=encoding,
    )
    size = oracle_total(ws, encoding)
    window = size * draw(st.integers(0, 125)) // 100
    return Case(ws, window, relevant, options)


def tokens(text: str, encoding: str) -> int:
    # TokenEncoding.count, not count_tokens: its nested closure is re-decorated by beartype per call.
    return get_encoding(encoding).unwrap().count(text).unwrap()


def retrievable_tokens(item: object, encoding: str) -> int:
    if isinstance(item, Recorded) and item.self_estimate and encoding == WORDS:
        return len(item.content.split())
    return tokens(str(getattr(item, "content")), encoding)


def message_tokens(message: object, encoding: str) -> int:
    """A caller-priced message costs its ``token_cost``; any other, its content's count."""
    cost = getattr(message, "token_cost", None)
    return cost if isinstance(cost, int) else tokens(str(getattr(message, "content")), encoding)


def bucket_tokens(ws: WorkingSet, encoding: str) -> dict[str, int]:
    """Each bucket's tokens, measured item by item."""
    image = ws.image
    return {
        "fixed": tokens(ws.system_prompt, encoding) + sum(tokens(t, encoding) for t in ws.standing_instructions),
        "messages": sum(message_tokens(m, encoding) for m in ws.messages),
        "memories": sum(tokens(str(m.content), encoding) for m in ws.memories),
        "retrievables": sum(
            retrievable_tokens(r, encoding) for r in ws.retrievables if not getattr(r, "size_unknown", False)
        ),
        "thoughts": sum(tokens(str(t.content), encoding) for t in ws.thoughts),
        "tools": sum(tokens(f"{t.name}\n{t.description}", encoding) for t in ws.visible_tools()),
        "tool-calls": sum(c.token_cost for c in ws.tool_calls),
        "image": image.token_cost if image is not None and getattr(image, "kept", True) else 0,
    }


def oracle_total(ws: WorkingSet, encoding: str) -> int:
    return sum(bucket_tokens(ws, encoding).values())


def age(message: MessageLike, messages: Sequence[MessageLike]) -> tuple[datetime, int]:
    return (message.created_at, [m.id for m in messages].index(message.id))


def _group(message: Message, messages: Sequence[Message]) -> list[Message]:
    if message.pair_id is None:
        return [message]
    return [m for m in messages if m.pair_id == message.pair_id]


def sheddable_prefix_exists(kept: Sequence[Message]) -> bool:
    """Brute force: some non-empty prefix (by age) of the kept non-summary messages, without the
    newest, is closed under pairing and pairs with no summary — so pass 8 could still shed."""
    ordered = sorted((m for m in kept if not m.summary), key=lambda m: age(m, kept))
    summary_pairs = {m.pair_id for m in kept if m.summary and m.pair_id is not None}
    for size in range(1, len(ordered)):
        prefix = ordered[:size]
        inside = {m.id for m in prefix}
        closed = all(
            m.pair_id is None
            or (m.pair_id not in summary_pairs and all(p.id in inside for p in _group(m, ordered)))
            for m in prefix
        )
        if closed:
            return True
    return False


def ephemeral_blocked(message: Message, source: Sequence[Message]) -> bool:
    """Pass 7 may not shed this ephemeral message: its group holds a summary, the newest
    non-summary message or the latest ephemeral message of ``source`` (the input)."""
    by_age = sorted(source, key=lambda m: age(m, source))
    non_summary = [m for m in by_age if not m.summary]
    ephemeral = [m for m in by_age if m.ephemeral]
    protected = {m.id for m in by_age if m.summary}
    protected |= {group[-1].id for group in (non_summary, ephemeral) if group}
    return any(member.id in protected for member in _group(message, source))


def floors_reached(case: Case, out: WorkingSet) -> dict[str, bool]:
    """For each shedding bucket: is nothing sheddable of it left in ``out``?"""
    keep = case.options.this_turn_result_keep
    messages = [m for m in out.messages if isinstance(m, Message)]
    source = [m for m in case.ws.messages if isinstance(m, Message)]
    unprotected_thoughts = [t for t in out.thoughts if t.id not in case.options.keep_thought_ids]
    return {
        "image": out.image is None or getattr(out.image, "kept", True) is False,
        "tool-calls": all(getattr(c, "this_turn", False) for c in out.tool_calls)
        and len(out.tool_calls) <= keep,
        "retrievables": not out.retrievables,
        "memories": not out.memories,
        "ephemeral": all(ephemeral_blocked(m, source) for m in messages if m.ephemeral and not m.summary),
        "messages": not sheddable_prefix_exists(messages),
        "thoughts-shed": len(unprotected_thoughts) <= 1,
        "tools-shed": not out.visible_tools(),
    }



def check_fits_or_refused_at_the_floor(case: Case, fitted: Fitted) -> None:
    """fits => total_after <= budget; refused (exactly when it does not fit) => over the budget
    with every shedding bucket at its floor."""
    trace = fitted.trace
    assert trace.refused == (not trace.fits)
    if trace.fits:
        assert trace.total_after <= trace.budget
    else:
        assert trace.total_after > trace.budget
        assert all(floors_reached(case, fitted.working_set).values())
