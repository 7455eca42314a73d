"""The closed union of errors the tokens layer returns as values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from thrift_fp._errors import ThriftFpError
from thrift_fp._shown import shown, shown_text

# Registered estimator names are listed too; past this many the message says how many more.
_KNOWN_SHOWN = 20


def _more(known: tuple[str, ...]) -> str:
    return f" and {len(known) - _KNOWN_SHOWN} more" if len(known) > _KNOWN_SHOWN else ""


@dataclass(frozen=True, slots=True)
class UnknownEncoding(ThriftFpError):
    """No tiktoken encoding or registered estimator has this name."""

    name: str
    known: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"unknown encoding {shown(self.name)}; known encodings: {', '.join(shown_text(name) for name in self.known[:_KNOWN_SHOWN])}{_more(self.known)}"


@dataclass(frozen=True, slots=True)
class EncodingUnavailable(ThriftFpError):
    """A real tiktoken encoding whose vocabulary is not available offline."""

    name: str
    reason: str

    message_template: ClassVar[str] = "encoding {name!r} is unavailable offline: {reason}"


@dataclass(frozen=True, slots=True)
class VocabularyCorrupt(ThriftFpError):
    """Bundled vocabulary bytes did not match the official SHA-256."""

    name: str
    expected_sha256: str
    actual_sha256: str

    message_template: ClassVar[str] = (
        "vocabulary for {name!r} failed verification: expected sha256 "
        "{expected_sha256}, got {actual_sha256}"
    )


@dataclass(frozen=True, slots=True)
class EstimatorNameTaken(ThriftFpError):
    """A custom estimator may not shadow a built-in encoding name."""

    name: str

    message_template: ClassVar[str] = "{name!r} is a built-in encoding; a custom estimator cannot shadow it"


@dataclass(frozen=True, slots=True)
class InvalidEstimatorName(ThriftFpError):
    """Estimator names must be non-empty strings without surrounding whitespace."""

    name: str

    message_template: ClassVar[str] = (
        "invalid estimator name {name!r}: use a non-empty name without surrounding spaces"
    )


@dataclass(frozen=True, slots=True)
class EstimatorFailed(ThriftFpError):
    """A custom estimator raised, or returned something other than a non-negative int."""

    name: str
    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "estimator {name!r} failed: {reason}"


@dataclass(frozen=True, slots=True)
class EvaluatorFailed(ThriftFpError):
    """A dynamic `Tokenizable` evaluator raised, or returned a non-string."""

    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "dynamic value could not be rendered: {reason}"


@dataclass(frozen=True, slots=True)
class NotText(ThriftFpError):
    """An element of a batch of texts that is not a ``str`` (beartype samples one element of a
    sequence, so every element is checked and a stray one is this value, every time)."""

    index: int
    type_name: str

    message_template: ClassVar[str] = "texts[{index}] is a {type_name!t}, not a str"


TokenError = (
    UnknownEncoding
    | EncodingUnavailable
    | VocabularyCorrupt
    | EstimatorNameTaken
    | InvalidEstimatorName
    | EstimatorFailed
    | EvaluatorFailed
    | NotText
)
