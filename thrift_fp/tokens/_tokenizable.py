"""A value that renders to text: static, or computed from a context."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import field
from typing import Any

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.tokens._count import TokenCount, count_tokens
from thrift_fp.tokens._errors import EvaluatorFailed, TokenError

Evaluator = Callable[[Any], str]
"""A dynamic `Tokenizable`'s text: a context in, the text out."""


@value
class Tokenizable:
    """A static string, or an evaluator ``(ctx) -> str``, with memoised counts.

    Counts are memoised per encoding, and for dynamic values per context object
    (the memo holds the context so its identity cannot be reused).

    >>> Tokenizable("hello world").estimate_tokens("cl100k_base").unwrap().tokens
    2
    >>> greet = Tokenizable(lambda ctx: f"hello {ctx['name']}")
    >>> greet.render({"name": "Ada"}).unwrap()
    'hello Ada'
    >>> Tokenizable(lambda ctx: 42).render(None).failure().message
    'dynamic value could not be rendered: evaluator returned int, not str'
    """

    value: str | Evaluator
    _memo: dict[tuple[str, int], tuple[object, TokenCount]] = field(
        default_factory=dict, repr=False, compare=False, hash=False
    )
    _memo_lock: threading.Lock = field(
        default_factory=threading.Lock, repr=False, compare=False, hash=False
    )

    @property
    def is_dynamic(self) -> bool:
        return not isinstance(self.value, str)

    def render(self, ctx: object = None) -> Result[str, EvaluatorFailed]:
        """The text this value stands for in ``ctx``."""
        if isinstance(self.value, str):
            return Success(self.value)
        try:
            text: object = self.value(ctx)
        except Exception as exc:  # noqa: BLE001 - user callback boundary; keep the cause
            return Failure(EvaluatorFailed(f"evaluator raised {type(exc).__name__}: {exc}", exc))
        if not isinstance(text, str):
            return Failure(EvaluatorFailed(f"evaluator returned {type(text).__name__}, not str"))
        return Success(text)

    def estimate_tokens(self, encoding: str = "cl100k_base", ctx: object = None) -> Result[TokenCount, TokenError]:
        """Token count of ``render(ctx)``, memoised."""
        key = (encoding, id(ctx) if self.is_dynamic else 0)
        with self._memo_lock:
            hit = self._memo.get(key)
        if hit is not None:
            return Success(hit[1])
        rendered: Result[str, TokenError] = self.render(ctx)
        counted = rendered.bind(lambda text: count_tokens(text, encoding))
        if isinstance(counted, Success):
            with self._memo_lock:
                self._memo[key] = (ctx, counted.unwrap())
        return counted

    def __str__(self) -> str:
        return self.value if isinstance(self.value, str) else self.render(None).value_or("")
