"""Trust-tier rendering: retrieved records in blocks that their content cannot break out of.

``render_retrievables`` writes a short safety directive, then up to three blocks: a
``<corpus…>`` block of first-party records (input order), then a ``<untrusted… tier=…>`` block
each for third-party-public and third-party-private records (by ``created_at``, then id). Inside a
block every record is one section: a ``<data…>`` header tag with the attributes the caller selects
(``fields=``; lean by default: source, a score rounded to two decimals, the date), then its body
verbatim. Every tag carries its block's nonce exactly once: 20 digits (66 bits) drawn after the
content is fixed, from `secrets` (`RandomNonce`) or as an HMAC under a caller key (`KeyedNonce`,
for prompt caching), and re-drawn while any body or attribute value shows it, exactly or as a
look-alike (NFKC, format characters stripped, confusables folded). So no body can end its block or
section, or forge another. Attribute values are bare when unambiguous, else quoted and escaped;
every block ends with a blank line, so each record's share of the text does not depend on its
position.

``fit_and_render`` fits a working set with every record priced at its exact rendered cost (its
section; the directive and each block's tags ride on the record each block keeps longest, so they
cost nothing when their block does not render), then renders the survivors with the same nonces:
the text's exact token count is within the budget.

``fit_report_html`` draws a fit as one self-contained HTML page (the window bar, what was shed and
why, the kept passages, the trace); ``Fitted``, ``FitRendered`` and ``Assembled`` show it as their
``_repr_html_`` in a notebook.
"""

from thrift_fp._beartype import check_public
from thrift_fp.render._choose import MAX_NONCE_ATTEMPTS
from thrift_fp.render._directive import SAFETY_DIRECTIVE
from thrift_fp.render._errors import (
    BodyUnavailable,
    ChargeExceeded,
    DuplicateRecordId,
    FitFailed,
    InvalidFields,
    NonceCollision,
    NotRenderable,
    RenderCountFailed,
    RenderError,
    WeakNonceKey,
)
from thrift_fp.render._escape import escape_attribute, quote_untrusted
from thrift_fp.render._fields import DEFAULT_FIELDS, FIELDS, Field
from thrift_fp.render._fit import FitRendered, fit_and_render
from thrift_fp.render._nonce import MIN_KEY_BYTES, NONCE_DIGITS, KeyedNonce, NonceMode, RandomNonce
from thrift_fp.render._priced import PricedRetrievable
from thrift_fp.render._render import Rendered, render_retrievables
from thrift_fp.thrift import (  # the picture of a fit lives with the trace it draws
    BarSegment,
    ReportPassage,
    ReportShed,
    SegmentKind,
    fit_report_bar,
    fit_report_html,
    report_passages,
    report_shed,
)

__all__ = [
    "DEFAULT_FIELDS",
    "FIELDS",
    "MAX_NONCE_ATTEMPTS",
    "MIN_KEY_BYTES",
    "NONCE_DIGITS",
    "SAFETY_DIRECTIVE",
    "BarSegment",
    "BodyUnavailable",
    "ChargeExceeded",
    "DuplicateRecordId",
    "Field",
    "FitFailed",
    "FitRendered",
    "InvalidFields",
    "KeyedNonce",
    "NonceCollision",
    "NonceMode",
    "NotRenderable",
    "PricedRetrievable",
    "RandomNonce",
    "RenderCountFailed",
    "RenderError",
    "Rendered",
    "ReportPassage",
    "ReportShed",
    "SegmentKind",
    "WeakNonceKey",
    "escape_attribute",
    "fit_and_render",
    "fit_report_bar",
    "fit_report_html",
    "quote_untrusted",
    "render_retrievables",
    "report_passages",
    "report_shed",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
