"""Caller-priced messages: a message's ``token_cost`` is charged as given and its content is never
read, on the bulk path (every message priced) and the per-item loop (some priced) alike."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from hypothesis import given, strategies as st

from properties.thrift_model import Case, cases, message_tokens
from thrift_fp.thrift import InvalidItemField, Message, subtract_to_fit


@dataclass(frozen=True)
class Unreadable:
    """A priced message-like whose content must never be measured (measuring it fails the fit)."""

    id: str
    created_at: datetime
    token_cost: int
    role: str | None = None
    summary: bool = False
    ephemeral: bool = False
    pair_id: str | None = None

    @property
    def content(self) -> object:
        return Unmeasurable(self.id)


@dataclass(frozen=True)
class Unmeasurable:
    """Content that cannot be measured: its string form raises."""

    owner: str

    def __str__(self) -> str:
        raise AssertionError(f"the content of priced message {self.owner} was measured")


@dataclass(frozen=True)
class Loose:
    """A message-like with any ``token_cost`` (`Message` itself is type-checked)."""

    id: str
    content: str
    created_at: datetime
    token_cost: object


def _unreadable(message: Message) -> object:
    if message.token_cost is None:
        return message
    return Unreadable(
        message.id, message.created_at, message.token_cost, message.role, message.summary,
        message.ephemeral, message.pair_id,
    )


@given(cases(most=30))
def test_a_priced_message_is_charged_its_cost_and_its_content_is_never_read(case: Case) -> None:
    """Swapping each priced `Message` for a look-alike whose content raises changes nothing: the
    same messages stay, with the same trace, and the total charges each priced one its cost."""
    fitted = case.fit()
    swapped = tuple(_unreadable(m) if isinstance(m, Message) else m for m in case.ws.messages)
    again = case.fit(ws=replace(case.ws, messages=swapped))  # type: ignore[arg-type] # message-likes
    assert [m.id for m in again.working_set.messages] == [m.id for m in fitted.working_set.messages]
    assert again.trace == fitted.trace
    encoding = case.options.encoding
    before = next(b for b in fitted.trace.buckets if b.bucket == "messages")
    assert before.before_tokens == sum(message_tokens(m, encoding) for m in case.ws.messages)


@given(cases(most=10), st.sampled_from((-1, True, 1.5, "3")))
def test_a_bad_token_cost_is_an_error_value_naming_the_message(case: Case, wrong: object) -> None:
    """A ``token_cost`` that is not an int >= 0 (a bool, a float, a str, a negative) is an
    error value naming the message and the field, on either path."""
    if not case.ws.messages:
        return
    first = case.ws.messages[0]
    bad = Loose(first.id, str(first.content), first.created_at, wrong)
    ws = replace(case.ws, messages=(bad, *case.ws.messages[1:]))
    error = subtract_to_fit(ws, case.window, case.relevant, case.options).failure()
    assert isinstance(error, InvalidItemField)
    assert (error.bucket, error.item, error.field) == ("messages", first.id, "token_cost")
