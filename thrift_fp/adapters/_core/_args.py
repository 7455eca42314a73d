"""The vocabulary every adapter shares: the budget (``context_window``, ``output_reserve``,
``reserve_fraction``) and the counting choice (``model=``, ``encoding=`` or ``token_counter=``),
each checked at the public boundary into an error value, never an exception.

`Checked[T]` annotates a public argument the adapter checks itself: mypy sees ``T``, beartype
sees ``object``, so a wrongly typed argument (a ``str`` budget, ``None`` for the messages) reaches
the adapter's own check and comes back as an `InvalidArgument` naming the argument, rather than
a type-checker exception naming some internal function.

Counting. ``model=`` names the model (the table in `thrift_fp.adapters._core._models` gives its
encoding and chat framing); ``encoding=`` names a tiktoken encoding (or a registered estimator)
and overrides the model's; ``token_counter=`` is the caller's own counter of a text, a bare
callable (its counts are flagged ``estimated``) or a `TokenCounter` declaring its precision
(``exact`` for, say, a provider's token-counting endpoint). A counter that raises or returns
anything but an int >= 0 is an error value.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from typing import TYPE_CHECKING, Annotated, Final, TypeAlias, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.adapters._core._errors import AdapterError, CountFailed, InvalidArgument
from thrift_fp.adapters._core._models import ModelProfile, resolve_model
from thrift_fp.thrift import Budget
from thrift_fp.thrift._budget import resolve_budget
from thrift_fp.tokens import Precision, TokenEncoding
from thrift_fp.tokens._encoding import (
    get_encoding,
    register_token_estimator,
    unregister_token_estimator,
)

_T = TypeVar("_T")

if TYPE_CHECKING:
    Checked: TypeAlias = Annotated[_T, "checked by the adapter at its boundary"]
else:

    class _Checked:
        """``Checked[T]``: to mypy ``T``; to beartype ``object`` (the adapter checks the value
        itself and returns an error value).

        >>> Checked[int]
        <class 'object'>
        """

        def __getitem__(self, item: object) -> object:
            return object

    Checked = _Checked()


@value
class TokenCounter:
    """A caller's token counter: ``count(text) -> int``, with the precision its counts have.

    >>> TokenCounter(len, "exact").precision
    'exact'
    """

    count: Callable[[str], int]
    precision: Precision = "exact"
    name: str = "token_counter"


CounterArg = Callable[[str], int] | TokenCounter
"""What ``token_counter=`` takes: a bare callable (counts flagged ``estimated``) or a `TokenCounter`."""


@value
class Budgeting:
    """The caller's window and reserve, checked, and the budget they leave (`resolve_budget`).

    >>> checked_budget(4096, 1024, 0.35).unwrap().budget.budget
    3072
    """

    context_window: int | float
    output_reserve: int | float | None
    reserve_fraction: float
    budget: Budget


def _number(name: str, value: object, optional: bool) -> AdapterError | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        wanted = "a finite number >= 0" + (" or None" if optional else "")
        return InvalidArgument(name, value, f"expected {wanted}")
    if isinstance(value, int) and abs(value) > 2**1023:
        return InvalidArgument(name, value, "expected a finite number within float range")
    if not math.isfinite(value) or value < 0:
        return InvalidArgument(name, value, "expected a finite number >= 0")
    return None


def checked_budget(context_window: object, output_reserve: object, reserve_fraction: object) -> Result[Budgeting, AdapterError]:
    """The three budget arguments checked (each named in its error value) and resolved.

    >>> checked_budget("4096", None, 0.35).failure().message
    "invalid context_window '4096': expected a finite number >= 0"
    >>> checked_budget(100, None, 1.5).failure().message
    'invalid reserve_fraction 1.5: expected a number within [0, 1]'
    """
    for name, value, optional in (
        ("context_window", context_window, False),
        ("output_reserve", output_reserve, True),
        ("reserve_fraction", reserve_fraction, False),
    ):
        problem = _number(name, value, optional)
        if problem is not None:
            return Failure(problem)
    assert isinstance(context_window, int | float) and isinstance(reserve_fraction, int | float)  # checked above
    if reserve_fraction > 1:
        return Failure(InvalidArgument("reserve_fraction", reserve_fraction, "expected a number within [0, 1]"))
    reserve = output_reserve if isinstance(output_reserve, int | float) else None
    resolved = resolve_budget(context_window, reserve, float(reserve_fraction))
    if isinstance(resolved, Failure):
        error = resolved.failure()
        return Failure(InvalidArgument("context_window", context_window, error.message))
    return Success(Budgeting(context_window, reserve, float(reserve_fraction), resolved.unwrap()))


@value
class Counting:
    """How an adapter counts: the framing ``profile`` (OpenAI's cookbook constants) and the
    counter of texts (a tiktoken encoding, a registered estimator, or the caller's counter);
    ``scale`` > 1 multiplies every count (a conservative estimate for another tokenizer).

    >>> counting = checked_counting("gpt-4o", None, None).unwrap()
    >>> counting.name, counting.precision, counting.count_many(["hello world"]).unwrap()
    ('o200k_base', 'exact', (2,))
    """

    profile: ModelProfile
    encoding: TokenEncoding
    precision: Precision
    scale: float = 1.0
    custom: bool = False

    @property
    def name(self) -> str:
        """The name counts are reported under (the encoding, or the counter's name)."""
        return self.encoding.name

    def count_many(self, texts: Sequence[str]) -> Result[tuple[int, ...], AdapterError]:
        """Every text's tokens, in one batch."""
        counted = self.encoding.count_many(texts)
        if isinstance(counted, Failure):
            return Failure(CountFailed(counted.failure()))
        counts = counted.unwrap()
        if self.scale == 1.0:
            return Success(counts)
        scale = self.scale
        return Success(tuple(math.ceil(count * scale) for count in counts))

    def count(self, text: str) -> int:
        """One text's tokens, for texts the adapter wrote itself (roles, framing): a count
        failure is impossible for a real encoding and is reported as 0 otherwise, never raised;
        every count of a caller's text goes through `count_many`."""
        counted = self.count_many((text,))
        return counted.unwrap()[0] if isinstance(counted, Success) else 0


_counters: Final = itertools.count()


def checked_counting(
    model: object, encoding: object, token_counter: object, default_encoding: str | None = None, scale: float = 1.0
) -> Result[Counting, AdapterError]:
    """The counting choice, checked: ``model`` (its framing and encoding), ``encoding`` (overrides
    the model's), ``token_counter`` (overrides both for counting; the model still frames), else
    ``default_encoding``; without any of them, an `UnknownModel` error asking for one.

    >>> checked_counting(None, "cl100k_base", None).unwrap().name
    'cl100k_base'
    >>> checked_counting(None, None, TokenCounter(len, "exact")).unwrap().count_many(["abc"]).unwrap()
    (3,)
    >>> checked_counting(5, None, None).failure().message
    'invalid model 5: expected a str or None'
    """
    for name, value in (("model", model), ("encoding", encoding)):
        if value is not None and not isinstance(value, str):
            return Failure(InvalidArgument(name, value, "expected a str or None"))
    assert model is None or isinstance(model, str)
    assert encoding is None or isinstance(encoding, str)
    counter: TokenCounter | None = None
    if token_counter is not None:
        if isinstance(token_counter, TokenCounter):
            counter = token_counter
        elif callable(token_counter):
            counter = TokenCounter(token_counter, "estimated")
        else:
            return Failure(InvalidArgument("token_counter", token_counter, "expected a callable (text -> int) or a TokenCounter"))
    fallback = encoding if encoding is not None else (
        default_encoding if model is None or counter is not None else None
    )
    if counter is not None and model is None and fallback is None:
        fallback = "o200k_base"
    profile = resolve_model(model, fallback)
    if isinstance(profile, Failure):
        return Failure(profile.failure())
    framing = profile.unwrap()
    if counter is not None:
        name = f"{counter.name}#{next(_counters)}"
        return Success(Counting(framing, TokenEncoding(name, counter.precision, _estimator=counter.count), counter.precision, custom=True))
    resolved = get_encoding(framing.encoding)
    if isinstance(resolved, Failure):
        return Failure(CountFailed(resolved.failure()))
    enc = resolved.unwrap()
    precision: Precision = "estimated" if scale != 1.0 else enc.precision
    return Success(Counting(framing, enc, precision, scale))


@contextmanager
def registered(counting: Counting) -> Iterator[str]:
    """The encoding name the core fit (and the documents' render) counts with: a caller's counter
    is registered under a name of its own for the duration of the fit, then removed.

    >>> counting = checked_counting(None, None, len).unwrap()
    >>> with registered(counting) as name:
    ...     get_encoding(name).unwrap().count("abcd").unwrap()
    4
    """
    if not counting.custom and counting.scale == 1.0:
        yield counting.name
        return
    if not counting.custom:
        # A scaled estimate (Anthropic's default) must price the documents' render as it prices
        # every message, not at the bare encoding's count.
        name = f"{counting.name}x{counting.scale}#{next(_counters)}"
        register_token_estimator(name, counting.count, precision=counting.precision).unwrap()
        try:
            yield name
        finally:
            unregister_token_estimator(name)
        return
    enc = counting.encoding
    estimator = enc._estimator  # noqa: SLF001 - the counter this module itself wrapped
    assert estimator is not None
    register_token_estimator(enc.name, estimator, precision=enc.precision).unwrap()
    try:
        yield enc.name
    finally:
        unregister_token_estimator(enc.name)
