"""The working set: everything an agent might send a model, as one frozen value."""

from __future__ import annotations

from thrift_fp._args import EachTuple, Shaped
from thrift_fp._value import value
from thrift_fp.thrift._shapes import (
    ImageLike,
    MemoryLike,
    MessageLike,
    RetrievableLike,
    ThoughtLike,
    ToolCallLike,
    ToolLike,
)


@value
class WorkingSet:
    """What the model would see. ``visible_tool_names=None`` means every tool is visible.

    Hidden tools stay in ``tools`` (still callable); only visible ones cost tokens. An image whose
    ``kept`` is False costs nothing. Messages keep their input order through a fit; retrievables and
    memories come back sorted by score / importance (descending).

    >>> from thrift_fp.thrift._shapes import Tool
    >>> ws = WorkingSet(system_prompt="Be brief.", tools=(Tool("a", "x"), Tool("b", "y")))
    >>> [tool.name for tool in ws.visible_tools()]
    ['a', 'b']
    """

    system_prompt: str = ""
    standing_instructions: tuple[str, ...] = ()
    # The item buckets are EachTuple: subtract_to_fit checks every item's shape itself
    # (thrift_fp.thrift._shape_check), where beartype would check one sampled item.
    messages: EachTuple[MessageLike] = ()
    memories: EachTuple[MemoryLike] = ()
    retrievables: EachTuple[RetrievableLike] = ()
    thoughts: EachTuple[ThoughtLike] = ()
    tools: EachTuple[ToolLike] = ()
    visible_tool_names: frozenset[str] | None = None
    tool_calls: EachTuple[ToolCallLike] = ()
    image: Shaped[ImageLike] | None = None

    def visible_tools(self) -> EachTuple[ToolLike]:
        """The tools the model is shown, in ``tools`` order.

        >>> from thrift_fp.thrift._shapes import Tool
        >>> ws = WorkingSet(tools=(Tool("a", "x"), Tool("b", "y")), visible_tool_names=frozenset({"b"}))
        >>> [tool.name for tool in ws.visible_tools()]
        ['b']
        """
        if self.visible_tool_names is None:
            return self.tools
        return tuple(tool for tool in self.tools if tool.name in self.visible_tool_names)
