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

``thrift_fp.thrift.fit_report_html`` draws a fit as one self-contained HTML page (the window bar,
what was shed and why, the kept passages, the trace); ``Fitted``, ``FitRendered`` and ``Assembled``
show it as their ``_repr_html_`` in a notebook.
"""

from typing import TYPE_CHECKING

from thrift_fp._beartype import check_public
from thrift_fp._lazy import retired_face
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
from thrift_fp.render._smallest import smallest_budget
from thrift_fp.render._nonce import MIN_KEY_BYTES, NONCE_DIGITS, KeyedNonce, NonceMode, RandomNonce
from thrift_fp.render._priced import PricedRetrievable
from thrift_fp.render._render import Rendered, render_retrievables

__all__ = [
    "DEFAULT_FIELDS",
    "FIELDS",
    "MAX_NONCE_ATTEMPTS",
    "MIN_KEY_BYTES",
    "NONCE_DIGITS",
    "SAFETY_DIRECTIVE",
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
    "WeakNonceKey",
    "escape_attribute",
    "fit_and_render",
    "quote_untrusted",
    "render_retrievables",
    "smallest_budget",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)

# The picture of a fit lives with the trace it draws: its names are public from thrift_fp.thrift
# (issue 37: one home per name). Each still imports from here, with a warning, until a later release.
_PICTURE = "import it from thrift_fp.thrift, the picture's home"
_RETIRED = dict.fromkeys(
    ("BarSegment", "ReportPassage", "ReportShed", "SegmentKind", "fit_report_bar", "fit_report_html", "report_passages", "report_shed"),
    ("thrift_fp.thrift", _PICTURE),
)
if not TYPE_CHECKING:  # to mypy these names are gone; at run time they still resolve
    __getattr__ = retired_face(__name__, _RETIRED)
