"""The closed union of errors the render layer returns as values."""

from __future__ import annotations

from thrift_fp._errors import CarriesError, ErrorValue
from thrift_fp.records import RecordError
from thrift_fp.thrift import ThriftError
from thrift_fp.tokens import TokenError


class WeakNonceKey(
    ErrorValue,
    template="KeyedNonce key has {key_bytes} bytes; at least {minimum} are needed"
    " (e.g. secrets.token_bytes(32))",
):
    """A `KeyedNonce` key shorter than the 128 bits its nonces claim."""

    key_bytes: int
    minimum: int


class InvalidFields(ErrorValue, template="fields: {name!r} {problem}"):
    """A ``fields=`` selection naming something that is not a field, or a field twice."""

    name: object
    problem: str


class DuplicateRecordId(ErrorValue, template="record id {record_id!r} appears more than once"):
    """Two records share an id, so their nonces (keyed by id) could not tell them apart."""

    record_id: str


class NonceCollision(
    ErrorValue,
    template="no usable nonce for the {block} block after {attempts} draws:"
    " each one showed in a rendered body or attribute",
):
    """Every nonce drawn for a block showed (after normalisation) in some rendered body or
    attribute: only text built to collide gets here."""

    block: str
    attempts: int


class RenderCountFailed(CarriesError, template="token counting failed: {error.message}"):
    """The token layer could not count the rendered text."""

    error: TokenError


class BodyUnavailable(CarriesError, template="body of record {record_id!r} is unavailable: {error.message}"):
    """A record's body (or handle text) could not be produced; ``error`` is the records layer's."""

    record_id: str
    error: RecordError


class NotRenderable(
    ErrorValue,
    template="{parameter}[{index}] is a {type_name!t}, not a Retrievable;"
    " only records with a trust tier can be rendered: build a thrift_fp.Retrievable"
    " (thrift_fp.parse_retrievable validates one: id, content, trust_tier, created_at,"
    " updated_at), or fit text you do not render with thrift_fp.subtract_to_fit",
):
    """An item that is not a `Retrievable` (a working-set retrievable, or an element of
    `render_retrievables`' ``records``): without a trust tier it has no envelope.

    The message says what to pass instead (docs/surface.md, "Which type when"): the one passage
    type of the top level, or `subtract_to_fit` for text that is fitted and not rendered.

    >>> print(NotRenderable(1, "WorkingRetrievable").message)  # doctest: +NORMALIZE_WHITESPACE
    retrievables[1] is a WorkingRetrievable, not a Retrievable; only records with a trust tier
    can be rendered: build a thrift_fp.Retrievable (thrift_fp.parse_retrievable validates one:
    id, content, trust_tier, created_at, updated_at), or fit text you do not render with
    thrift_fp.subtract_to_fit
    """

    index: int
    type_name: str
    parameter: str = "retrievables"


class FitFailed(CarriesError, template="fit failed: {error.message}"):
    """The fit itself failed; ``error`` is the thrift layer's."""

    error: ThriftError


class ChargeExceeded(
    ErrorValue,
    template="rendered text counts {counted} {encoding} tokens but its pieces were charged"
    " {charged}; this encoding is not additive at envelope boundaries",
):
    """The rendered text counts more tokens than its pieces were charged: the encoding (a custom
    estimator) is not additive at envelope boundaries, so the fit cannot be trusted."""

    encoding: str
    charged: int
    counted: int


RenderError = (
    InvalidFields
    | WeakNonceKey
    | DuplicateRecordId
    | NonceCollision
    | BodyUnavailable
    | RenderCountFailed
    | NotRenderable
    | FitFailed
    | ChargeExceeded
)
