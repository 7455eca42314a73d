"""The closed union of errors the tokens layer returns as values."""

from __future__ import annotations

from thrift_fp._errors import ErrorValue
from thrift_fp._shown import shown, shown_text

# Registered estimator names are listed too; past this many the message says how many more.
_KNOWN_SHOWN = 20


def _more(known: tuple[str, ...]) -> str:
    return f" and {len(known) - _KNOWN_SHOWN} more" if len(known) > _KNOWN_SHOWN else ""


class UnknownEncoding(ErrorValue):
    """No tiktoken encoding or registered estimator has this name."""

    name: str
    known: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"unknown encoding {shown(self.name)}; known encodings: {', '.join(shown_text(name) for name in self.known[:_KNOWN_SHOWN])}{_more(self.known)}"


class EncodingUnavailable(ErrorValue, template="encoding {name!r} is unavailable offline: {reason}"):
    """A real tiktoken encoding whose vocabulary is not available offline."""

    name: str
    reason: str


class VocabularyCorrupt(
    ErrorValue,
    template="vocabulary for {name!r} failed verification: expected sha256 "
    "{expected_sha256}, got {actual_sha256}",
):
    """Bundled vocabulary bytes did not match the official SHA-256."""

    name: str
    expected_sha256: str
    actual_sha256: str


class EstimatorNameTaken(ErrorValue, template="{name!r} is a built-in encoding; a custom estimator cannot shadow it"):
    """A custom estimator may not shadow a built-in encoding name."""

    name: str


class InvalidEstimatorName(
    ErrorValue,
    template="invalid estimator name {name!r}: use a non-empty name without surrounding spaces",
):
    """Estimator names must be non-empty strings without surrounding whitespace."""

    name: str


class EstimatorFailed(ErrorValue, template="estimator {name!r} failed: {reason}"):
    """A custom estimator raised, or returned something other than a non-negative int."""

    name: str
    reason: str
    cause: BaseException | None = None


class EvaluatorFailed(ErrorValue, template="dynamic value could not be rendered: {reason}"):
    """A dynamic `Tokenizable` evaluator raised, or returned a non-string."""

    reason: str
    cause: BaseException | None = None


class NotText(ErrorValue, template="texts[{index}] is a {type_name!t}, not a str"):
    """An element of a batch of texts that is not a ``str`` (beartype samples one element of a
    sequence, so every element is checked and a stray one is this value, every time)."""

    index: int
    type_name: str


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
