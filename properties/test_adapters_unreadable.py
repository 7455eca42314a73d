"""Every read of a caller's object is guarded, in all five adapters.

For each adapter, one request holding every kind of object it reads (messages of every role,
content parts and blocks, tool calls and results, tools, system blocks, documents, nodes) gives
the list of *spots*: an object and a field the adapter reads. At any spot, a field whose read
raises an ``Exception`` (a mapping's ``get`` and ``[]``, a property, a descriptor) makes the fit
the error value `UnreadableField` naming the list, the position, the field and what was raised;
a ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt``, ``SystemExit``)
propagates as it is.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result

from thrift_fp.adapters._core import UnreadableField

# --- hostile objects -----------------------------------------------------------------------------


class Raising(dict[Any, Any]):
    """A mapping whose value at ``key`` cannot be read (``[]`` and ``get`` raise ``exc``)."""

    def __init__(self, data: dict[Any, Any], key: object, exc: BaseException) -> None:
        super().__init__(data)
        self.key = key
        self.exc = exc

    def __getitem__(self, key: object) -> Any:
        if key == self.key:
            raise self.exc
        return super().__getitem__(key)

    def get(self, key: object, default: Any = None) -> Any:
        if key == self.key:
            raise self.exc
        return super().get(key, default)


def hostile(obj: Any, name: str, exc: BaseException) -> Any:
    """A copy of ``obj`` whose attribute ``name`` raises ``exc`` on every read (a property that
    fails, as a lazily loaded field or a proxy's does); still an instance of ``obj``'s class."""
    cls: Any = type(obj)

    def __getattribute__(self: object, attribute: str) -> Any:
        if attribute == name:
            raise exc
        return cls.__getattribute__(self, attribute)

    sub = type(cls.__name__, (cls,), {"__getattribute__": __getattribute__, "__module__": cls.__module__})
    made = copy.copy(obj)
    object.__setattr__(made, "__class__", sub)
    return made


class Custom(Exception):
    """A caller's own exception, whose text cannot even be read."""

    def __str__(self) -> str:
        raise RuntimeError("no text")


EXCEPTIONS: tuple[Callable[[], Exception], ...] = (
    lambda: RuntimeError("storage offline"), lambda: ValueError("bad"), lambda: KeyError("content"),
    lambda: AttributeError("lazy"), lambda: TypeError("proxy"), lambda: OSError(5, "I/O error"),
    lambda: RecursionError(), lambda: LookupError(), Custom,
)


class Stop(BaseException):
    """A caller's own ``BaseException`` that is not an ``Exception``."""


PROPAGATING: tuple[Callable[[], BaseException], ...] = (KeyboardInterrupt, lambda: SystemExit(3), Stop, GeneratorExit)


@dataclass(frozen=True)
class Spot:
    """Where a read raises: the adapter, the list and position of the item, the field as the error
    names it, and how to build the call with the raising object in place."""

    adapter: str
    collection: str
    index: int
    field: str
    call: Callable[[BaseException], Callable[[], Result[Any, Any]]]

    def __str__(self) -> str:
        return f"{self.adapter}:{self.collection}[{self.index}].{self.field}"


# --- mapping-based requests (OpenAI, Anthropic, documents) ---------------------------------------

PathStep = str | int


def _swap(value: Any, path: tuple[PathStep, ...], key: str, exc: BaseException) -> Any:
    """A deep copy of ``value`` with the mapping at ``path`` made `Raising` at ``key``."""
    made = copy.deepcopy(value)
    if not path:
        return Raising(made, key, exc)
    holder = made
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = Raising(holder[path[-1]], key, exc)
    return made


def _field(path: tuple[PathStep, ...], key: str) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return f"{text}.{key}" if text else key


def _mapping_spots(
    adapter: str, collection: str, items: list[Any], read: Callable[[tuple[PathStep, ...]], bool],
    call: Callable[[list[Any]], Result[Any, Any]],
) -> Iterator[Spot]:
    """A spot for every key of every mapping inside ``items`` at a path the adapter reads key by key."""

    def walk(value: Any, path: tuple[PathStep, ...]) -> Iterator[tuple[tuple[PathStep, ...], str]]:
        if isinstance(value, dict):
            if read(path):
                yield from ((path, key) for key in value)
            for key, inner in value.items():
                yield from walk(inner, (*path, key))
        elif isinstance(value, list):
            for at, inner in enumerate(value):
                yield from walk(inner, (*path, at))

    for index, item in enumerate(items):
        for path, key in walk(item, ()):

            def make(exc: BaseException, index: int = index, path: tuple[PathStep, ...] = path, key: str = key) -> Callable[[], Result[Any, Any]]:
                swapped = [*items[:index], _swap(items[index], path, key, exc), *items[index + 1:]]
                return lambda: call(swapped)

            yield Spot(adapter, collection, index, _field(path, key), make)


def _shape(path: tuple[PathStep, ...]) -> str:
    return ".".join("[]" if isinstance(step, int) else step for step in path)


OPENAI_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "Be terse.", "name": "rules"},
    {"role": "user", "content": [{"type": "text", "text": "What is this?"},
                                 {"type": "image_url", "image_url": {"url": "https://x/cat.png", "detail": "low"}}]},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "a cat"},
    {"role": "assistant", "content": "A cat.", "refusal": None},
    {"role": "user", "content": "Thanks."},
]
OPENAI_TOOLS: list[dict[str, Any]] = [{"type": "function", "function": {
    "name": "look", "description": "Look.", "parameters": {"type": "object", "properties": {
        "q": {"type": "string", "description": "What.", "enum": ["a", "b"]}}}}}]
DOCUMENTS: list[dict[str, Any]] = [{"id": "kb-1", "content": "Cats purr.", "score": 0.5, "source": "kb.md"}]


def _openai_spots() -> Iterator[Spot]:
    from thrift_fp.adapters.openai import fit_openai_messages

    def fit(messages: list[Any] = OPENAI_MESSAGES, tools: list[Any] = OPENAI_TOOLS, documents: list[Any] = DOCUMENTS) -> Result[Any, Any]:
        return fit_openai_messages(messages, 10_000, model="gpt-4o", tools=tools, documents=documents)

    read = {"", "content.[]", "content.[].image_url", "tool_calls.[]", "tool_calls.[].function"}
    yield from _mapping_spots("openai", "messages", OPENAI_MESSAGES, lambda path: _shape(path) in read, lambda m: fit(messages=m))
    tools = {"", "function", "function.parameters", "function.parameters.properties", "function.parameters.properties.q"}
    yield from _mapping_spots("openai", "tools", OPENAI_TOOLS, lambda path: _shape(path) in tools, lambda t: fit(tools=t))
    yield from _mapping_spots("openai", "documents", DOCUMENTS, lambda path: not path, lambda d: fit(documents=d))


ANTHROPIC_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "Read it."},
                                 {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Use the tool.", "signature": "s1"},
        {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.log"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "disk full"}]}]},
    {"role": "assistant", "content": "The disk is full."},
    {"role": "user", "content": "Fix?"},
]
ANTHROPIC_SYSTEM: list[dict[str, Any]] = [{"type": "text", "text": "Be brief."}]
ANTHROPIC_TOOLS: list[dict[str, Any]] = [{"name": "read", "description": "Read a file.", "input_schema": {"type": "object"}}]


def _anthropic_spots() -> Iterator[Spot]:
    from thrift_fp.adapters.anthropic import fit_anthropic_messages

    def fit(messages: list[Any] = ANTHROPIC_MESSAGES, system: list[Any] = ANTHROPIC_SYSTEM, tools: list[Any] = ANTHROPIC_TOOLS,
            documents: list[Any] = DOCUMENTS) -> Result[Any, Any]:
        return fit_anthropic_messages(messages, 100_000, system=system, tools=tools, documents=documents)

    read = {"", "content.[]", "content.[].source", "content.[].content.[]"}
    yield from _mapping_spots("anthropic", "messages", ANTHROPIC_MESSAGES, lambda path: _shape(path) in read, lambda m: fit(messages=m))
    yield from _mapping_spots("anthropic", "system", ANTHROPIC_SYSTEM, lambda path: not path, lambda s: fit(system=s))
    yield from _mapping_spots("anthropic", "tools", ANTHROPIC_TOOLS, lambda path: not path, lambda t: fit(tools=t))
    yield from _mapping_spots("anthropic", "documents", DOCUMENTS, lambda path: not path, lambda d: fit(documents=d))


# --- object-based requests (LangChain, LlamaIndex, Pydantic AI) ----------------------------------


def _object_spot(
    adapter: str, collection: str, items: list[Any], index: int, field: str,
    replace: Callable[[Any, BaseException], Any], call: Callable[[list[Any]], Result[Any, Any]],
) -> Spot:
    def make(exc: BaseException) -> Callable[[], Result[Any, Any]]:
        swapped = [*items[:index], replace(items[index], exc), *items[index + 1:]]
        return lambda: call(swapped)

    return Spot(adapter, collection, index, field, make)


def _attribute(name: str) -> Callable[[Any, BaseException], Any]:
    return lambda obj, exc: hostile(obj, name, exc)


def _in_mapping(field: str, key: str) -> Callable[[Any, BaseException], Any]:
    """A copy of a pydantic object whose mapping ``field`` raises ``exc`` when ``key`` is read."""
    def swap(obj: Any, exc: BaseException) -> Any:
        made = obj.model_copy()
        made.__dict__[field] = Raising(getattr(obj, field), key, exc)
        return made
    return swap


def _langchain_spots() -> Iterator[Spot]:
    from langchain_core.documents import Document
    from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage

    from thrift_fp.adapters.langchain import fit_messages

    messages: list[Any] = [
        SystemMessage("Be brief."),
        HumanMessage([{"type": "text", "text": "Add."}, "please"], name="ann"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}]),
        ToolMessage("2", tool_call_id="c1"),
        ChatMessage(role="critic", content="Fine."),
        {"role": "user", "content": "And 3?"},
    ]
    documents = [Document("Sums add.", id="d1", metadata={"relevance_score": 0.5, "source": "math.md"})]

    def fit(m: list[Any] = messages, d: list[Any] = documents) -> Result[Any, Any]:
        return fit_messages(m, 10_000, documents=d)

    fields = {0: ("content", "name"), 1: ("content", "name"), 2: ("content", "name", "tool_calls", "invalid_tool_calls"),
              3: ("content", "name", "tool_call_id"), 4: ("content", "name", "role")}
    for index, names in fields.items():
        for name in names:
            yield _object_spot("langchain", "messages", messages, index, name, _attribute(name), lambda m: fit(m=m))

    def block(key: str) -> Callable[[Any, BaseException], Any]:
        def swap(message: Any, exc: BaseException) -> Any:
            made = message.model_copy()
            made.__dict__["content"] = [Raising(message.content[0], key, exc), *message.content[1:]]
            return made
        return swap

    for key in ("type", "text"):
        yield _object_spot("langchain", "messages", messages, 1, f"content[0].{key}", block(key), lambda m: fit(m=m))

    def call(key: str) -> Callable[[Any, BaseException], Any]:
        def swap(message: Any, exc: BaseException) -> Any:
            made = message.model_copy()
            made.__dict__["tool_calls"] = [Raising(dict(message.tool_calls[0]), key, exc)]
            return made
        return swap

    for key in ("id", "name", "args"):
        yield _object_spot("langchain", "messages", messages, 2, f"tool_calls[0].{key}", call(key), lambda m: fit(m=m))
    def raising(key: str) -> Callable[[Any, BaseException], Any]:
        return lambda mapping, exc: Raising(mapping, key, exc)

    for key in ("role", "content"):
        yield _object_spot("langchain", "messages", messages, 5, key, raising(key), lambda m: fit(m=m))
    for name in ("page_content", "id", "metadata"):
        yield _object_spot("langchain", "documents", documents, 0, name, _attribute(name), lambda d: fit(d=d))

    for key in ("relevance_score", "source"):
        yield _object_spot(
            "langchain", "documents", documents, 0, f"metadata[{key!r}]", _in_mapping("metadata", key), lambda d: fit(d=d)
        )


def _llamaindex_spots() -> Iterator[Spot]:
    from llama_index.core.base.llms.types import TextBlock, ThinkingBlock, ToolCallBlock
    from llama_index.core.llms import ChatMessage
    from llama_index.core.schema import NodeWithScore, TextNode

    from thrift_fp.adapters.llamaindex import fit_chat_messages

    messages: list[Any] = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", blocks=[TextBlock(text="Add.")]),
        ChatMessage(role="assistant", blocks=[ThinkingBlock(content="Use add."),
                                              ToolCallBlock(tool_call_id="c1", tool_name="add", tool_kwargs={"a": 1})],
                    additional_kwargs={"tool_calls": [{"id": "c2", "type": "function", "function": {"name": "add", "arguments": "{}"}}]}),
        ChatMessage(role="tool", content="2", additional_kwargs={"tool_call_id": "c1"}),
        ChatMessage(role="tool", content="2", additional_kwargs={"tool_call_id": "c2"}),
        ChatMessage(role="user", content="And 3?"),
    ]
    nodes = [NodeWithScore(node=TextNode(text="Sums add.", id_="n1", metadata={"file_name": "math.md"}), score=0.5)]

    def fit(m: list[Any] = messages, n: list[Any] = nodes) -> Result[Any, Any]:
        return fit_chat_messages(m, 10_000, nodes=n)

    for index in range(len(messages)):
        for name in ("role", "blocks", "additional_kwargs"):
            yield _object_spot("llamaindex", "messages", messages, index, name, _attribute(name), lambda m: fit(m=m))

    def in_block(at: int, name: str) -> Callable[[Any, BaseException], Any]:
        def swap(message: Any, exc: BaseException) -> Any:
            made = message.model_copy()
            made.__dict__["blocks"] = [hostile(b, name, exc) if i == at else b for i, b in enumerate(message.blocks)]
            return made
        return swap

    yield _object_spot("llamaindex", "messages", messages, 1, "blocks[0].text", in_block(0, "text"), lambda m: fit(m=m))
    yield _object_spot("llamaindex", "messages", messages, 2, "blocks[0].content", in_block(0, "content"), lambda m: fit(m=m))
    for name in ("tool_call_id", "tool_name", "tool_kwargs"):
        yield _object_spot("llamaindex", "messages", messages, 2, f"blocks[1].{name}", in_block(1, name), lambda m: fit(m=m))

    def kwargs(key: str) -> Callable[[Any, BaseException], Any]:
        return _in_mapping("additional_kwargs", key)

    yield _object_spot("llamaindex", "messages", messages, 2, "additional_kwargs.tool_calls", kwargs("tool_calls"), lambda m: fit(m=m))
    yield _object_spot("llamaindex", "messages", messages, 3, "additional_kwargs.tool_call_id", kwargs("tool_call_id"), lambda m: fit(m=m))

    def entry(key: str) -> Callable[[Any, BaseException], Any]:
        def swap(message: Any, exc: BaseException) -> Any:
            made = message.model_copy()
            calls = message.additional_kwargs["tool_calls"]
            made.__dict__["additional_kwargs"] = {"tool_calls": [Raising(calls[0], key, exc)]}
            return made
        return swap

    for key in ("id", "type", "function"):
        field = 'additional_kwargs["tool_calls"][0].' + key
        yield _object_spot("llamaindex", "messages", messages, 2, field, entry(key), lambda m: fit(m=m))
    for name in ("node", "score"):
        yield _object_spot("llamaindex", "nodes", nodes, 0, name, _attribute(name), lambda n: fit(n=n))

    def in_node(name: str) -> Callable[[Any, BaseException], Any]:
        def swap(scored: Any, exc: BaseException) -> Any:
            return NodeWithScore.model_construct(node=hostile(scored.node, name, exc), score=scored.score)
        return swap

    for name, field in (("get_content", "node.get_content"), ("node_id", "node.node_id")):
        yield _object_spot("llamaindex", "nodes", nodes, 0, field, in_node(name), lambda n: fit(n=n))
    # The text read through get_content() (its metadata included) raises inside that call.
    yield _object_spot("llamaindex", "nodes", nodes, 0, "node.get_content()", in_node("text"), lambda n: fit(n=n))


def _pydantic_ai_spots() -> Iterator[Spot]:
    from pydantic_ai.messages import (ModelRequest, ModelResponse, SystemPromptPart, TextPart, ThinkingPart,
                                      ToolCallPart, ToolReturnPart, UserPromptPart)

    from thrift_fp.adapters.pydantic_ai import fit_model_messages

    messages: list[Any] = [
        ModelRequest([SystemPromptPart("Be brief."), UserPromptPart("Add 1 and 2.")], instructions="Use tools."),
        ModelResponse([ThinkingPart("Call add."), ToolCallPart("add", {"a": 1, "b": 2}, tool_call_id="c1")]),
        ModelRequest([ToolReturnPart("add", "try again", tool_call_id="c1")]),
        ModelResponse([ToolCallPart("add", {"a": 1, "b": 2}, tool_call_id="c2")]),
        ModelRequest([ToolReturnPart("add", 3, tool_call_id="c2")]),
        ModelResponse([TextPart("3.")]),
        ModelRequest([UserPromptPart("And 3?")], instructions="Use tools."),
    ]

    def fit(m: list[Any]) -> Result[Any, Any]:
        return fit_model_messages(m, 10_000, whole_turns=False)

    for index, message in enumerate(messages):
        names = ("parts", "instructions") if isinstance(message, ModelRequest) else ("parts",)
        for name in names:
            yield _object_spot("pydantic_ai", "messages", messages, index, name, _attribute(name), fit)

    def in_part(at: int, name: str) -> Callable[[Any, BaseException], Any]:
        def swap(message: Any, exc: BaseException) -> Any:
            made = copy.copy(message)
            made.parts = [hostile(p, name, exc) if i == at else p for i, p in enumerate(message.parts)]
            return made
        return swap

    fields: dict[type, tuple[str, ...]] = {
        SystemPromptPart: ("content",), UserPromptPart: ("content",), TextPart: ("content",), ThinkingPart: ("content",),
        ToolCallPart: ("tool_name", "tool_call_id", "args", "args_as_json_str"),
        ToolReturnPart: ("tool_name", "tool_call_id", "content", "model_response_str"),
    }
    for index, message in enumerate(messages):
        for at, part in enumerate(message.parts):
            for name in fields[type(part)]:
                yield _object_spot("pydantic_ai", "messages", messages, index, f"parts[{at}].{name}", in_part(at, name), fit)


SPOTS: tuple[Spot, ...] = (
    *_openai_spots(), *_anthropic_spots(), *_langchain_spots(), *_llamaindex_spots(), *_pydantic_ai_spots(),
)


def test_every_adapter_has_spots_and_each_request_fits_as_given() -> None:
    adapters = {spot.adapter for spot in SPOTS}
    assert adapters == {"openai", "anthropic", "langchain", "llamaindex", "pydantic_ai"}
    assert len(SPOTS) > 100
    # The request around every spot is valid: a field that does not raise changes nothing.
    for spot in {spot.adapter: spot for spot in SPOTS}.values():
        quiet = spot.call(RuntimeError("unused"))
        assert quiet is not None


# A pydantic model's ``__getattr__`` answers a method or property of its class when
# ``__getattribute__`` raises AttributeError (Python's own fallback): the read then succeeds.
FALLS_BACK = {"node.get_content", "node.node_id"}


def _check(spot: Spot, exc: Exception) -> None:
    result = spot.call(exc)()
    if isinstance(exc, AttributeError) and spot.field in FALLS_BACK and not isinstance(result, Failure):
        return
    assert isinstance(result, Failure), f"{spot}: {result}"
    error = result.failure()
    assert isinstance(error, UnreadableField), f"{spot}: {error!r}"
    assert (error.collection, error.index, error.field) == (spot.collection, spot.index, spot.field), f"{spot}: {error.message}"
    assert isinstance(error.cause, type(exc)) and type(exc).__name__ in error.message
    assert error.message.startswith(f"{spot.collection}[{spot.index}].{spot.field} (a ")


@pytest.mark.parametrize("spot", SPOTS, ids=str)
def test_a_field_whose_read_raises_is_the_error_value_naming_it(spot: Spot) -> None:
    for make in EXCEPTIONS:
        _check(spot, make())


@pytest.mark.parametrize("spot", SPOTS, ids=str)
def test_a_base_exception_that_is_not_an_exception_still_propagates(spot: Spot) -> None:
    for make in PROPAGATING:
        exc = make()
        with pytest.raises(type(exc)):
            spot.call(exc)()


@settings(max_examples=200)
@given(st.sampled_from(SPOTS), st.sampled_from(EXCEPTIONS))
def test_property_every_adapter_every_field_every_exception(spot: Spot, make: Callable[[], Exception]) -> None:
    _check(spot, make())
