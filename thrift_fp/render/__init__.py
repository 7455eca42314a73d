"""Trust-tier rendering: retrieved records in envelopes that their content cannot break out of.

``render_retrievables`` writes a safety directive, then one ``<retrieved_corpus>`` block of
first-party records (input order), then third-party-public and third-party-private records, each in
its own untrusted-content envelope (by ``created_at``, then id); blank lines separate blocks. Every
envelope's tag name ends in a 128-bit nonce (`RandomNonce`, or `KeyedNonce` for prompt caching)
that no rendered body contains, so no body can close or open an envelope. Attribute values are
escaped, and an attribute whose value is ``None`` is left out; bodies are verbatim. Every
top-level element (directive, corpus block, third-party envelope) ends with a blank line, the text's
last one included, so each record's share of the text does not depend on its position.

``fit_and_render`` fits a working set with every record priced at its exact rendered cost (its
envelope and separator; the directive and corpus wrapper ride on the record each block keeps
longest, so they cost nothing when their block does not render), then renders the survivors with
the same nonces: the text's exact token count is within the budget.
"""

from thrift_fp._beartype import check_public
from thrift_fp.render._choose import MAX_NONCE_ATTEMPTS
from thrift_fp.render._directive import SAFETY_DIRECTIVE
from thrift_fp.render._errors import (
    BodyUnavailable,
    ChargeExceeded,
    DuplicateRecordId,
    FitFailed,
    NonceCollision,
    NotRenderable,
    RenderCountFailed,
    RenderError,
    WeakNonceKey,
)
from thrift_fp.render._escape import escape_attribute
from thrift_fp.render._fit import FitRendered, PricedRetrievable, fit_and_render
from thrift_fp.render._nonce import MIN_KEY_BYTES, NONCE_HEX_CHARS, KeyedNonce, NonceMode, RandomNonce
from thrift_fp.render._render import Rendered, render_retrievables

__all__ = [
    "MAX_NONCE_ATTEMPTS",
    "MIN_KEY_BYTES",
    "NONCE_HEX_CHARS",
    "SAFETY_DIRECTIVE",
    "BodyUnavailable",
    "ChargeExceeded",
    "DuplicateRecordId",
    "FitFailed",
    "FitRendered",
    "KeyedNonce",
    "NonceCollision",
    "NonceMode",
    "NotRenderable",
    "PricedRetrievable",
    "RandomNonce",
    "RenderCountFailed",
    "RenderError",
    "Rendered",
    "WeakNonceKey",
    "escape_attribute",
    "fit_and_render",
    "render_retrievables",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
