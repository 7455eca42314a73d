"""Counting text: one text or a batch, with the count's precision stated."""

from __future__ import annotations

from returns.result import Failure, Result

from thrift_fp._args import CheckedStringsArg, as_strings
from thrift_fp._value import value
from thrift_fp.tokens._encoding import Precision, TokenEncoding, get_encoding
from thrift_fp.tokens._errors import TokenError


@value
class TokenCount:
    """A token count, the encoding that produced it, and whether it is exact."""

    tokens: int
    encoding: str
    precision: Precision

    @property
    def exact(self) -> bool:
        return self.precision == "exact"


def _resolve(encoding: str | TokenEncoding) -> Result[TokenEncoding, TokenError]:
    if isinstance(encoding, TokenEncoding):
        return Result.from_value(encoding)
    return get_encoding(encoding)


def count_tokens(text: str, encoding: str | TokenEncoding = "cl100k_base") -> Result[TokenCount, TokenError]:
    """Count ``text`` with ``encoding``; special-token text is ordinary text.

    >>> count_tokens("hello world").unwrap()
    TokenCount(tokens=2, encoding='cl100k_base', precision='exact')
    >>> count_tokens("<|endoftext|>", "o200k_base").unwrap().tokens > 1
    True
    """
    # No nested annotated def here: the beartype claw would re-decorate it on every call.
    resolved = _resolve(encoding)
    if isinstance(resolved, Failure):
        return resolved
    enc = resolved.unwrap()
    counted: Result[int, TokenError] = enc.count(text)
    return counted.map(lambda tokens: TokenCount(tokens, enc.name, enc.precision))


def count_tokens_batch(
    texts: CheckedStringsArg, encoding: str | TokenEncoding = "cl100k_base"
) -> Result[tuple[int, ...], TokenError]:
    """Counts for many texts at once (large batches are split across threads).

    >>> count_tokens_batch(["hello world", "", "a b c"]).unwrap()
    (2, 0, 3)
    >>> count_tokens_batch(["a", None]).failure().message
    'texts[1] is a NoneType, not a str'
    """
    resolved = _resolve(encoding)
    if isinstance(resolved, Failure):
        return resolved
    counted: Result[tuple[int, ...], TokenError] = resolved.unwrap().count_many(as_strings(texts))
    return counted
