"""A tool call's arguments as a client sent them (any JSON), checked into typed requests.

Every problem is an `InvalidToolArgument` naming the argument: unknown or missing keys, a
wrong type, a budget outside [1, the operator's ceiling], a tier the operator does not serve,
text that is not valid Unicode (a lone surrogate) or longer than a question can be.
"""

from __future__ import annotations

from collections.abc import Mapping

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.records import TRUST_TIERS
from thrift_fp.serve._errors import InvalidToolArgument
from thrift_fp.serve._settings import ServeSettings

# Passage ids are paths and an ordinal: anything longer is not one of ours.
_MAX_ID_CHARS = 4096


@value
class SearchRequest:
    """A checked ``search`` call: the question, the budget, the tiers to keep (operator order)."""

    question: str
    budget: int
    tiers: tuple[str, ...]


@value
class ReadRequest:
    """A checked ``read`` call: the passage id and the budget."""

    passage_id: str
    budget: int


def search_request(arguments: Mapping[str, object] | None, settings: ServeSettings) -> Result[
    SearchRequest, InvalidToolArgument
]:
    """The ``search`` request in ``arguments``, or the first problem with them.

    >>> from thrift_fp.serve import serve_settings
    >>> settings = serve_settings(tiers=["first-party", "third-party-public"]).unwrap()
    >>> search_request({"question": "how do budgets work?"}, settings).unwrap()
    SearchRequest(question='how do budgets work?', budget=1024, tiers=('first-party', 'third-party-public'))
    >>> search_request({"question": "x", "tiers": ["third-party-private"]}, settings).failure().message
    "search: argument 'tiers' = ['third-party-private']: this server serves only first-party, third-party-public"
    >>> search_request({"question": "x", "budget": 10**6}, settings).failure().message
    "search: argument 'budget' = 1000000: must be an integer from 1 to 8192 (this server's ceiling)"
    """
    known = _known_keys("search", arguments, ("question", "budget", "tiers"))
    if isinstance(known, Failure):
        return Failure(known.failure())
    given = known.unwrap()
    question = _text("search", "question", given.get("question"), settings.max_question_chars)
    budget = _budget("search", given.get("budget", settings.default_budget), settings)
    tiers = _tiers(given.get("tiers"), settings)
    if isinstance(question, Failure):
        return Failure(question.failure())
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    if isinstance(tiers, Failure):
        return Failure(tiers.failure())
    return Success(SearchRequest(question.unwrap(), budget.unwrap(), tiers.unwrap()))


def read_request(arguments: Mapping[str, object] | None, settings: ServeSettings) -> Result[
    ReadRequest, InvalidToolArgument
]:
    """The ``read`` request in ``arguments``, or the first problem with them.

    >>> from thrift_fp.serve import serve_settings
    >>> read_request({"id": "a.md#2", "budget": 300}, serve_settings().unwrap()).unwrap()
    ReadRequest(passage_id='a.md#2', budget=300)
    >>> read_request({"id": "a.md#2", "budget": True}, serve_settings().unwrap()).failure().message
    "read: argument 'budget' = True: must be an integer from 1 to 8192 (this server's ceiling)"
    >>> read_request({"id": "\\ud800"}, serve_settings().unwrap()).failure().message
    "read: argument 'id' = '\\\\ud800': is not valid Unicode text (a lone surrogate at 0)"
    """
    known = _known_keys("read", arguments, ("id", "budget"))
    if isinstance(known, Failure):
        return Failure(known.failure())
    given = known.unwrap()
    passage_id = _text("read", "id", given.get("id"), _MAX_ID_CHARS)
    budget = _budget("read", given.get("budget", settings.default_budget), settings)
    if isinstance(passage_id, Failure):
        return Failure(passage_id.failure())
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    return Success(ReadRequest(passage_id.unwrap(), budget.unwrap()))


def _known_keys(
    tool: str, arguments: Mapping[str, object] | None, names: tuple[str, ...]
) -> Result[Mapping[str, object], InvalidToolArgument]:
    given: Mapping[str, object] = arguments if arguments is not None else {}
    for key in given:
        if key not in names:
            return Failure(InvalidToolArgument(tool, str(key), given[key], f"unknown argument; expected {', '.join(names)}"))
    return Success(given)


def json_type(value: object) -> str:
    """What JSON calls ``value``'s type (a client sent JSON; Python's names are no business of its).

    >>> json_type([1]), json_type({}), json_type(2.5), json_type(True), json_type({"refused": "x"}.keys())
    ('an array', 'an object', 'a number', 'a boolean', 'a value of another kind')
    """
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a string" if isinstance(value, str) else "a value of another kind"


def _text(tool: str, name: str, value: object, limit: int) -> Result[str, InvalidToolArgument]:
    if not isinstance(value, str):
        reason = "is required" if value is None else f"must be a string, not {json_type(value)}"
        return Failure(InvalidToolArgument(tool, name, value, reason))
    if not value.strip():
        return Failure(InvalidToolArgument(tool, name, value, "must not be empty"))
    if len(value) > limit:
        return Failure(InvalidToolArgument(tool, name, value, f"is longer than {limit} characters"))
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return Failure(InvalidToolArgument(tool, name, value, f"is not valid Unicode text (a lone surrogate at {exc.start})"))
    return Success(value)


def _budget(tool: str, value: object, settings: ServeSettings) -> Result[int, InvalidToolArgument]:
    # bool is an int in Python and true in JSON: never a budget. Compared as ints, so an int
    # of any size is refused without being printed.
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= settings.max_budget:
        return Failure(
            InvalidToolArgument(
                tool, "budget", value, f"must be an integer from 1 to {settings.max_budget} (this server's ceiling)"
            )
        )
    return Success(value)


def _tiers(value: object, settings: ServeSettings) -> Result[tuple[str, ...], InvalidToolArgument]:
    if value is None:
        return Success(settings.tiers)
    if not isinstance(value, list) or not value or not all(isinstance(tier, str) for tier in value):
        return Failure(InvalidToolArgument("search", "tiers", value, "must be a non-empty list of trust tiers"))
    unknown = [tier for tier in value if tier not in TRUST_TIERS]
    if unknown:
        return Failure(InvalidToolArgument("search", "tiers", value, f"each must be one of {', '.join(TRUST_TIERS)}"))
    # A filter only: the client narrows what the operator serves, never widens it.
    if any(tier not in settings.tiers for tier in value):
        return Failure(
            InvalidToolArgument("search", "tiers", value, f"this server serves only {', '.join(settings.tiers)}")
        )
    return Success(tuple(tier for tier in settings.tiers if tier in value))
