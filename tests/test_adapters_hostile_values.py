"""A caller's value whose comparison, hashing or text methods raise is never asked, in all five
adapters: a ``str`` subclass is read by its characters (an exact ``str`` copy made by ``str``'s
own method, as a JSON encoder sends it), and any other object where a str is needed (a role, a
tool call id) is the adapter's error value naming the message's position and the field; never
an exception out of the fit."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import pytest
from llama_index.core.llms import ChatMessage
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
from returns.result import Failure, Result

from thrift_fp.adapters.anthropic import count_anthropic_tokens, fit_anthropic_messages
from thrift_fp.adapters.langchain import count_messages, fit_messages
from thrift_fp.adapters.llamaindex import fit_chat_messages
from thrift_fp.adapters.openai import count_openai_tokens, fit_openai_messages
from thrift_fp.adapters.pydantic_ai import count_model_messages, fit_model_messages


class RaisingEq(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("comparing is offline")

    __hash__ = str.__hash__


class RaisingHash(str):
    def __hash__(self) -> int:
        raise RuntimeError("hashing is offline")


class RaisingText(str):
    def __str__(self) -> str:
        raise RuntimeError("__str__ is offline")

    def __len__(self) -> int:
        raise RuntimeError("__len__ is offline")

    def __iter__(self) -> Any:
        raise RuntimeError("__iter__ is offline")


class Opaque:
    """Not a str at all, and every comparison or hash raises."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("comparing is offline")

    def __hash__(self) -> int:
        raise RuntimeError("hashing is offline")


_SUBCLASSES = (RaisingEq, RaisingHash, RaisingText)
_HI = {"role": "user", "content": "hi"}
_NOTE = [{"content": "Refunds take 5 days."}]


def _fits(result: Result[Any, Any]) -> int:
    return int(result.unwrap().tokens.tokens)


@pytest.mark.parametrize("kind", _SUBCLASSES, ids=lambda kind: kind.__name__)
def test_openai_str_subclasses_are_read_by_their_characters(kind: type[str]) -> None:
    plain = [_HI, {"role": "assistant", "content": None, "name": "bot", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": [{"type": "text", "text": "more"}]}]
    hostile = [_HI, {"role": kind("assistant"), "content": None, "name": kind("bot"), "tool_calls": [
        {"id": kind("c1"), "type": kind("function"), "function": {"name": kind("f"), "arguments": kind("{}")}}]},
        {"role": kind("tool"), "tool_call_id": kind("c1"), "content": kind("ok")},
        {"role": kind("user"), "content": [{"type": kind("text"), "text": kind("more")}]}]
    expected = count_openai_tokens(plain, model="gpt-4o").unwrap()
    assert count_openai_tokens(hostile, model="gpt-4o").unwrap() == expected
    assert _fits(fit_openai_messages(hostile, 1000, model="gpt-4o")) == _fits(fit_openai_messages(plain, 1000, model="gpt-4o"))
    with_role = fit_openai_messages([_HI], 1000, model="gpt-4o", documents=_NOTE, documents_role=kind("user"))
    assert with_role.unwrap().tokens == fit_openai_messages([_HI], 1000, model="gpt-4o", documents=_NOTE).unwrap().tokens


@pytest.mark.parametrize("kind", _SUBCLASSES, ids=lambda kind: kind.__name__)
def test_anthropic_str_subclasses_are_read_by_their_characters(kind: type[str]) -> None:
    plain = [_HI, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}]
    hostile = [{"role": kind("user"), "content": kind("hi")},
               {"role": kind("assistant"), "content": [{"type": kind("tool_use"), "id": kind("t1"), "name": kind("f"), "input": {}}]},
               {"role": kind("user"), "content": [{"type": kind("tool_result"), "tool_use_id": kind("t1"), "content": kind("ok")}]}]
    assert count_anthropic_tokens(hostile).unwrap() == count_anthropic_tokens(plain).unwrap()
    assert _fits(fit_anthropic_messages(hostile, 1000)) == _fits(fit_anthropic_messages(plain, 1000))


@pytest.mark.parametrize("kind", _SUBCLASSES, ids=lambda kind: kind.__name__)
def test_langchain_str_subclass_roles_are_read_by_their_characters(kind: type[str]) -> None:
    plain = [("user", "hi"), {"role": "assistant", "content": "yes"}]
    hostile = [(kind("user"), "hi"), {"role": kind("assistant"), "content": "yes"}]
    assert count_messages(hostile, model="gpt-4o").unwrap() == count_messages(plain, model="gpt-4o").unwrap()
    kept = fit_messages(hostile, 1000, model="gpt-4o").unwrap().messages
    assert len(kept) == 2 and all(map(operator.is_, kept, hostile))


@pytest.mark.parametrize("kind", _SUBCLASSES, ids=lambda kind: kind.__name__)
def test_pydantic_ai_str_subclass_ids_and_texts_are_read_by_their_characters(kind: type[str]) -> None:
    def history(text: Callable[[str], str]) -> list[Any]:
        return [ModelRequest(parts=[UserPromptPart(content=text("hi"))]),
                ModelResponse(parts=[ToolCallPart(tool_name=text("f"), args={}, tool_call_id=text("a"))]),
                ModelRequest(parts=[ToolReturnPart(tool_name=text("f"), content="r", tool_call_id=text("a"))])]
    assert count_model_messages(history(kind), model="gpt-4o").unwrap() == count_model_messages(history(str), model="gpt-4o").unwrap()
    assert _fits(fit_model_messages(history(kind), 1000, model="gpt-4o")) == _fits(fit_model_messages(history(str), 1000, model="gpt-4o"))


def _named(result: Result[Any, Any], index: int, field: str) -> None:
    assert isinstance(result, Failure)
    message = result.failure().message
    assert message.startswith((f"messages[{index}].{field}:", f"messages[{index}].{field} ")), message


# By name: the test runner itself compares parameter values.
_NOT_STR: dict[str, Callable[[], object]] = {"opaque": Opaque, "int": lambda: 3, "list": lambda: ["user"]}


@pytest.mark.parametrize("name", sorted(_NOT_STR))
def test_a_role_that_is_no_str_is_an_error_value_naming_position_and_field(name: str) -> None:
    value = _NOT_STR[name]()
    _named(fit_openai_messages([_HI, {"role": value, "content": "x"}], 1000, model="gpt-4o"), 1, "role")
    _named(fit_openai_messages([_HI, {"role": value, "content": "x", "tool_call_id": "c"}], 1000, model="gpt-4o"), 1, "role")
    _named(fit_anthropic_messages([_HI, {"role": value, "content": "x"}], 1000), 1, "role")
    _named(fit_messages([_HI, {"role": value, "content": "x"}], 1000, model="gpt-4o"), 1, "role")
    _named(fit_messages([("user", "hi"), (value, "x")], 1000, model="gpt-4o"), 1, "role")
    constructed = ChatMessage.model_construct(role=value, content="x", blocks=[], additional_kwargs={})
    _named(fit_chat_messages([ChatMessage(role="user", content="hi"), constructed], 1000, model="gpt-4o"), 1, "role")


def test_other_fields_that_are_no_str_are_error_values_naming_the_field() -> None:
    opaque = Opaque()
    calls = [{"id": opaque, "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    _named(fit_openai_messages([_HI, {"role": "assistant", "content": None, "tool_calls": calls}], 1000, model="gpt-4o"),
           1, "tool_calls[0].id")
    typed = [{"id": "c1", "type": opaque, "function": {"name": "f", "arguments": "{}"}}]
    _named(fit_openai_messages([_HI, {"role": "assistant", "content": None, "tool_calls": typed}], 1000, model="gpt-4o"),
           1, "tool_calls[0].type")
    _named(fit_openai_messages([_HI, {"role": "user", "content": [{"type": opaque, "text": "x"}]}], 1000, model="gpt-4o"),
           1, "content[0]")
    _named(fit_openai_messages([_HI, {"role": "tool", "tool_call_id": opaque, "content": "x"}], 1000, model="gpt-4o"),
           1, "tool_call_id")
    _named(fit_anthropic_messages([_HI, {"role": "user", "content": [{"type": opaque, "text": "x"}]}], 1000), 1, "content[0]")
    assert fit_openai_messages([_HI], 1000, model="gpt-4o", documents=_NOTE, documents_role=opaque).failure().field == "documents_role"  # type: ignore[arg-type, union-attr]
