"""What the docs show sending fits: every documented recipe that combines a fit's messages and its
rendered documents counts, as the adapter frames it for the provider, exactly ``fitted.tokens``,
within the budget the fit was given.

The recipes (docs/adapters.md, the README, the adapters' docstrings):

- OpenAI: ``fitted.messages`` (the documents message already in place), with the same ``tools``;
- Anthropic: ``fitted.messages`` with ``system=fitted.system`` (the documents its last block);
- LangChain: ``[*fitted.messages, ("system", fitted.text)]``;
- LlamaIndex: ``[*fitted.messages, ChatMessage(role="system", content=fitted.text)]``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from thrift_fp.render import KeyedNonce

NONCE = KeyedNonce(bytes(32))
_WORDS = st.lists(st.sampled_from(["refund", "policy", "days", "π", "日本", "tool", "42", " ", "\n", "<tag>", "é"]),
                  min_size=1, max_size=30).map("".join).filter(str.strip)
_TURNS = st.lists(st.tuples(st.sampled_from(["user", "assistant"]), _WORDS), min_size=1, max_size=8)
_DOCS = st.lists(st.tuples(_WORDS, st.one_of(st.none(), st.floats(0, 1))), min_size=1, max_size=4)
_BUDGETS = st.integers(0, 700)


def _documents(docs: list[tuple[str, float | None]]) -> list[dict[str, Any]]:
    return [{"id": f"d{at}", "content": text, "score": score} for at, (text, score) in enumerate(docs)]


@settings(max_examples=60)
@given(_TURNS, _DOCS, _BUDGETS, st.sampled_from(["system", "user", "developer"]))
def test_openai_what_is_returned_counts_its_tokens(turns: list[tuple[str, str]], docs: list[tuple[str, float | None]],
                                                   budget: int, role: str) -> None:
    from thrift_fp.adapters.openai import count_openai_tokens, fit_openai_messages

    messages = [{"role": "system", "content": "Be brief."}, *({"role": r, "content": t} for r, t in turns)]
    fitted = fit_openai_messages(messages, budget, model="gpt-4o", output_reserve=0, documents=_documents(docs),
                                 documents_role=role, nonce=NONCE)
    if isinstance(fitted, Success):
        done = fitted.unwrap()
        assert count_openai_tokens(done.messages, model="gpt-4o").unwrap().tokens == done.tokens.tokens <= budget


@settings(max_examples=60)
@given(_TURNS, _DOCS, _BUDGETS, st.sampled_from([None, "Be brief."]))
def test_anthropic_the_system_and_messages_returned_count_its_tokens(
    turns: list[tuple[str, str]], docs: list[tuple[str, float | None]], budget: int, system: str | None
) -> None:
    from thrift_fp.adapters.anthropic import count_anthropic_tokens, fit_anthropic_messages

    messages = [{"role": "user", "content": "Hello."}, *({"role": r, "content": t} for r, t in turns)]
    fitted = fit_anthropic_messages(messages, budget, system=system, output_reserve=0, documents=_documents(docs),
                                    nonce=NONCE)
    if isinstance(fitted, Success):
        done = fitted.unwrap()
        assert count_anthropic_tokens(done.messages, system=done.system).unwrap().tokens == done.tokens.tokens <= budget


@settings(max_examples=60)
@given(_TURNS, _DOCS, _BUDGETS, st.sampled_from(["system", "user"]), st.sampled_from([None, "gpt-4o"]))
def test_langchain_the_documented_prompt_counts_its_tokens(
    turns: list[tuple[str, str]], docs: list[tuple[str, float | None]], budget: int, role: str, model: str | None
) -> None:
    from langchain_core.documents import Document

    from thrift_fp.adapters.langchain import count_messages, fit_messages

    documents = [Document(text, id=f"d{at}", metadata={"relevance_score": score}) for at, (text, score) in enumerate(docs)]
    fitted = fit_messages(turns, budget, model=model, output_reserve=0, documents=documents, documents_role=role,
                          nonce=NONCE)
    if isinstance(fitted, Success):
        done = fitted.unwrap()
        prompt = [*done.messages, (role, done.text)]   # sent as documented, even when empty
        assert count_messages(prompt, model=model).unwrap().tokens == done.tokens.tokens <= budget


@settings(max_examples=60)
@given(_TURNS, _DOCS, _BUDGETS, st.sampled_from(["system", "user"]))
def test_llamaindex_the_documented_prompt_counts_its_tokens(
    turns: list[tuple[str, str]], docs: list[tuple[str, float | None]], budget: int, role: str
) -> None:
    from llama_index.core.llms import ChatMessage
    from llama_index.core.schema import NodeWithScore, TextNode

    from thrift_fp.adapters.llamaindex import fit_chat_messages, message_text
    from thrift_fp.tokens import get_encoding

    messages = [ChatMessage(role=r, content=t) for r, t in turns]
    nodes = [NodeWithScore(node=TextNode(text=text, id_=f"n{at}"), score=score) for at, (text, score) in enumerate(docs)]
    fitted = fit_chat_messages(messages, budget, output_reserve=0, nodes=nodes, documents_role=role, nonce=NONCE)
    if isinstance(fitted, Success):
        done = fitted.unwrap()
        prompt = [*done.messages, ChatMessage(role=role, content=done.text)]   # as documented, even when empty
        encoding = get_encoding("cl100k_base").unwrap()
        counted = sum(encoding.count(message_text(message).unwrap()).unwrap() for message in prompt)
        assert counted == done.tokens.tokens <= budget
