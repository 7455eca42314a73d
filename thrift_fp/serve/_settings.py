"""The operator's settings: budgets, quotas, tiers. Clients can only ask for less."""

from __future__ import annotations

from collections.abc import Iterable

from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.records import TRUST_TIERS
from thrift_fp.serve._errors import InvalidSetting

DEFAULT_BUDGET: Final = 1024
MAX_BUDGET: Final = 8192
MAX_CALLS: Final = 64
MAX_SESSION_TOKENS: Final = 65536
MAX_RESULTS: Final = 8
# A question longer than this is not a question; it would only cost tokenizing and FTS time.
MAX_QUESTION_CHARS: Final = 2000
# An HTTP session with no request for this long is ended, and its ledger freed (the SDK's default).
SESSION_IDLE_TIMEOUT: Final = 1800.0
# An HTTP request body larger than this is refused while it streams in (the SDK's own limit).
MAX_REQUEST_BYTES: Final = 4 * 1024 * 1024


@value
class ServeSettings:
    """What the operator decides: a call's ``default_budget`` and hard ceiling ``max_budget``,
    each session's quota of ``max_calls`` and ``max_session_tokens``, the passages retrieved
    per question, the encoding answers are counted in, and the trust ``tiers`` served; over
    HTTP, the seconds after which an idle session ends (``session_idle_timeout``, its ledger
    freed) and the largest request body accepted (``max_request_bytes``).

    Build one with `serve_settings`, which checks every value.

    >>> settings = serve_settings().unwrap()
    >>> settings.default_budget, settings.max_budget, settings.tiers[0]
    (1024, 8192, 'first-party')
    """

    default_budget: int = DEFAULT_BUDGET
    max_budget: int = MAX_BUDGET
    max_calls: int = MAX_CALLS
    max_session_tokens: int = MAX_SESSION_TOKENS
    max_results: int = MAX_RESULTS
    encoding: str = "cl100k_base"
    tiers: tuple[str, ...] = TRUST_TIERS
    max_question_chars: int = MAX_QUESTION_CHARS
    session_idle_timeout: float = SESSION_IDLE_TIMEOUT
    max_request_bytes: int = MAX_REQUEST_BYTES


def serve_settings(
    *,
    default_budget: int = DEFAULT_BUDGET,
    max_budget: int = MAX_BUDGET,
    max_calls: int = MAX_CALLS,
    max_session_tokens: int = MAX_SESSION_TOKENS,
    max_results: int = MAX_RESULTS,
    encoding: str = "cl100k_base",
    tiers: Iterable[str] = TRUST_TIERS,
    session_idle_timeout: float | int = SESSION_IDLE_TIMEOUT,
    max_request_bytes: int = MAX_REQUEST_BYTES,
) -> Result[ServeSettings, InvalidSetting]:
    """Checked settings: every bound at least 1, the default budget within the ceiling, the tiers
    known (kept in the library's order, no repeats) and at least one.

    >>> serve_settings(default_budget=9000).failure().message
    'serve: default_budget = 9000: must not exceed max_budget (8192)'
    >>> serve_settings(tiers=["internal"]).failure().message
    "serve: tiers = ['internal']: each must be one of first-party, third-party-public, third-party-private"
    >>> serve_settings(tiers=["third-party-public", "first-party"]).unwrap().tiers
    ('first-party', 'third-party-public')
    >>> serve_settings(session_idle_timeout=0).failure().message
    'serve: session_idle_timeout = 0: must be a number of seconds above 0'
    >>> serve_settings(session_idle_timeout=60).unwrap().session_idle_timeout
    60.0
    """
    for name, value in (
        ("default_budget", default_budget), ("max_budget", max_budget), ("max_calls", max_calls),
        ("max_session_tokens", max_session_tokens), ("max_results", max_results), ("max_request_bytes", max_request_bytes),
    ):
        if isinstance(value, bool) or value < 1:
            return Failure(InvalidSetting(name, value, "must be at least 1"))
    if isinstance(session_idle_timeout, bool) or not 0 < session_idle_timeout < float("inf"):
        return Failure(InvalidSetting("session_idle_timeout", session_idle_timeout, "must be a number of seconds above 0"))
    if default_budget > max_budget:
        return Failure(InvalidSetting("default_budget", default_budget, f"must not exceed max_budget ({max_budget})"))
    chosen = list(tiers)
    if not chosen or any(tier not in TRUST_TIERS for tier in chosen):
        return Failure(InvalidSetting("tiers", chosen, f"each must be one of {', '.join(TRUST_TIERS)}"))
    return Success(
        ServeSettings(
            default_budget, max_budget, max_calls, max_session_tokens, max_results, encoding,
            tuple(tier for tier in TRUST_TIERS if tier in chosen), MAX_QUESTION_CHARS, float(session_idle_timeout),
            max_request_bytes,
        )
    )
