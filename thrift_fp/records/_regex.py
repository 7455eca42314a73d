"""Grep patterns on RE2, a linear-time regular expression engine.

A grep pattern is often chosen by a model reading untrusted text, so it must not be able to stall
the process: Python's backtracking ``re`` takes exponential time on ``(a+)+$`` and raises on
``a{4294967296}``. RE2 (the ``google-re2`` package, imported on first use) matches in time linear
in the line, and refuses what it cannot run in bounded memory; a refused pattern is an
``InvalidPattern`` value.

The syntax is RE2's (https://github.com/google/re2/wiki/Syntax): Perl-like, without
backreferences or look-around; ``\\d``, ``\\s`` and ``\\w`` are ASCII classes (``\\pN``, ``\\pL``
name Unicode ones). A compiled ``re.Pattern`` is accepted for its source text and its
``IGNORECASE`` flag; it is recompiled on RE2, never run on ``re``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown_exception
from thrift_fp.records._errors import InvalidPattern

# Flags that do not change what a pattern means on one line without its break.
_HARMLESS_FLAGS: Final = re.UNICODE | re.MULTILINE | re.DOTALL
_SURROGATES: Final = re.compile("[\ud800-\udfff]")

LineMatcher = Callable[[str], bool]


def compile_pattern(pattern: str | re.Pattern[str]) -> Result[LineMatcher, InvalidPattern]:
    """A function telling whether a line contains a match of ``pattern``, or why RE2 refuses it.

    >>> matches = compile_pattern("(a+)+$").unwrap()
    >>> matches("a" * 10_000 + "!"), matches("aaa")
    (False, True)
    >>> compile_pattern("(?=x)").failure().message
    "grep pattern '(?=x)' is not a valid regular expression: invalid perl operator: (?="
    >>> compile_pattern(re.compile("ONE", re.IGNORECASE)).unwrap()("one")
    True
    >>> compile_pattern("(" * 3000 + "a" + ")" * 3000).unwrap()("a")
    True
    """
    if isinstance(pattern, re.Pattern):
        flags = pattern.flags & ~_HARMLESS_FLAGS
        if flags & ~re.IGNORECASE:
            return Failure(InvalidPattern(pattern.pattern, f"flags {re.RegexFlag(flags)!s} are not supported on RE2"))
        return _compile(pattern.pattern, ignore_case=bool(flags & re.IGNORECASE))
    return _compile(pattern, ignore_case=False)


def _compile(source: str, *, ignore_case: bool) -> Result[LineMatcher, InvalidPattern]:
    if _SURROGATES.search(source):
        return Failure(InvalidPattern(source, "it contains a lone surrogate, which is not text"))
    re2 = _re2()
    options = re2.Options()
    options.log_errors = False  # RE2 would print every refusal on standard error
    options.case_sensitive = not ignore_case
    # grep asks only whether a line matches: groups parsed as non-capturing let RE2 answer from
    # its DFA. With captures, every match reported every group's span: 3,000 nested groups cost
    # 75 ms a line, about 25 minutes over a 20,000-line body.
    options.never_capture = True
    try:
        compiled = re2.compile(source, options)
    except re2.error as exc:
        return Failure(InvalidPattern(source, _reason(exc)))
    except Exception as exc:  # noqa: BLE001 - any other refusal of the engine is a bad pattern, not a crash
        return Failure(InvalidPattern(source, shown_exception(exc)))
    return Success(lambda line: _search(compiled, line))


def _search(compiled: Any, line: str) -> bool:  # noqa: ANN401 - re2 ships no type information
    try:
        return compiled.search(line) is not None
    except UnicodeEncodeError:
        # A caller-written reader may hand out lone surrogates; RE2 sees each as U+FFFD.
        return compiled.search(_SURROGATES.sub("\ufffd", line)) is not None


def _reason(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else ""
    if isinstance(detail, bytes):
        return detail.decode("utf-8", "replace")
    return str(detail) or type(exc).__name__


@lru_cache(maxsize=1)
def _re2() -> Any:  # noqa: ANN401 - re2 ships no type information
    import re2  # type: ignore[import-untyped]  # noqa: PLC0415 - google-re2 ships no stubs; imported on first grep so `import thrift_fp` does not load it

    return re2
