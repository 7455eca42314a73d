"""`ThriftChatMemory`: a LlamaIndex chat memory whose ``get()`` fits the stored chat.

LlamaIndex's extension point for chat memory is `BaseChatStoreMemory` (``llama_index.core.memory``):
a memory stores messages in a chat store (``put``, ``set``, ``get_all``, ``reset`` come with it)
and answers ``get(input)`` with the history an agent or chat engine sends. This memory stores the
whole chat and answers ``get`` with `thrift_fp.adapters.llamaindex.fit_chat_messages` of it:
tool calls kept with their results, system messages kept, the oldest shed first, the count as sent
within ``context_window - output_reserve``. ``input`` (the user message about to be sent, not
stored yet) is charged too, as `ChatMemoryBuffer` charges it, and not returned.

LlamaIndex gives ``get`` no way to return an error value, so a fit that cannot succeed raises
`thrift_fp.adapters._core._errors.AdapterFitError` holding it (e.g. `OverBudget` when the system
messages and the newest message alone are too big).
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory.types import DEFAULT_CHAT_STORE_KEY, BaseChatStoreMemory
from llama_index.core.storage.chat_store import BaseChatStore, SimpleChatStore
from pydantic import Field
from returns.result import Failure

from thrift_fp.adapters._core import AdapterFitError
from thrift_fp.adapters.llamaindex._fit import fit_chat_messages


class ThriftChatMemory(BaseChatStoreMemory):
    """A chat memory that fits what it hands back (see the module docstring): ``context_window``,
    ``output_reserve`` (or ``reserve_fraction``), and ``model=``/``encoding=``/``token_counter=``,
    as every adapter takes them.

    >>> from llama_index.core.llms import ChatMessage
    >>> memory = ThriftChatMemory.from_defaults(context_window=120, output_reserve=20, model="gpt-4o")
    >>> memory.put(ChatMessage(role="system", content="Answer in one line."))
    >>> memory.put(ChatMessage(role="user", content="Tell me about refunds. " * 40))
    >>> memory.put(ChatMessage(role="assistant", content="Refunds take five days."))
    >>> [m.role.value for m in memory.get(input="And shipping?")], len(memory.get_all())   # the old turn went whole
    (['system'], 3)
    """

    context_window: int | float
    output_reserve: int | float | None = None
    reserve_fraction: float = 0.35
    model: str | None = None
    encoding: str | None = None
    token_counter: Any = Field(default=None, exclude=True)
    whole_turns: bool = True

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's name for this memory class.

        >>> ThriftChatMemory.class_name()
        'ThriftChatMemory'
        """
        return "ThriftChatMemory"

    @classmethod
    def from_defaults(  # type: ignore[override]  # LlamaIndex's signature takes an llm; this memory takes a budget
        cls,
        chat_history: list[ChatMessage] | None = None,
        chat_store: BaseChatStore | None = None,
        chat_store_key: str = DEFAULT_CHAT_STORE_KEY,
        **settings: Any,
    ) -> ThriftChatMemory:
        """A memory over ``chat_store`` (a new `SimpleChatStore` by default) holding ``chat_history``,
        with the budget and counting ``settings`` (``context_window`` is required).

        >>> ThriftChatMemory.from_defaults(context_window=1000).get()
        []
        """
        store = chat_store or SimpleChatStore()
        if chat_history is not None:
            store.set_messages(chat_store_key, chat_history)
        return cls(chat_store=store, chat_store_key=chat_store_key, **settings)

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:  # noqa: A002 - LlamaIndex's name
        """The stored chat fitted into the budget, ``input`` charged but not returned (raises
        `AdapterFitError` when the fit fails).

        >>> ThriftChatMemory.from_defaults(context_window=1000, chat_history=[ChatMessage(role="user", content="hi")]).get()[0].content
        'hi'
        """
        stored = self.chat_store.get_messages(self.chat_store_key, **kwargs)
        pending = [] if input is None else [ChatMessage(role=MessageRole.USER, content=input)]
        fitted = fit_chat_messages(
            [*stored, *pending], self.context_window, output_reserve=self.output_reserve,
            reserve_fraction=self.reserve_fraction, model=self.model, encoding=self.encoding,
            token_counter=self.token_counter, whole_turns=self.whole_turns,
        )
        if isinstance(fitted, Failure):
            raise AdapterFitError(fitted.failure())
        kept = fitted.unwrap().messages
        return [message for message in kept if not any(message is extra for extra in pending)]
