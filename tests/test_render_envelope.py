"""Envelope text: escaping, omitted attributes, the directive."""

from __future__ import annotations

from datetime import datetime, timezone

from thrift_fp.render import SAFETY_DIRECTIVE, escape_attribute
from thrift_fp.render._envelope import envelope

WHEN = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
NONCE = "0f" * 16


def test_escaping_covers_the_four_characters_and_numbers() -> None:
    assert escape_attribute('&<>"') == "&amp;&lt;&gt;&quot;"
    assert escape_attribute("&amp;") == "&amp;amp;"
    assert escape_attribute(1.0) == "1.0"
    assert escape_attribute(7) == "7"
    assert escape_attribute("it's\nfine") == "it's\nfine"


def test_first_party_attributes_in_order_and_none_left_out() -> None:
    full = envelope("first-party", NONCE, "b", source='a"b', kind="policy", score=1.0, created_at=WHEN)
    assert full.splitlines()[0] == (
        f'<retrieved_{NONCE} source="a&quot;b" nonce="{NONCE}" created_at="2026-03-04T05:06:07+00:00"'
        ' kind="policy" score="1.0">'
    )
    bare = envelope("first-party", NONCE, "b", source=None, kind=None, score=None, created_at=WHEN)
    assert bare == f'<retrieved_{NONCE} nonce="{NONCE}" created_at="2026-03-04T05:06:07+00:00">\nb\n</retrieved_{NONCE}>\n'


def test_third_party_private_envelope_names_its_tier_and_tool() -> None:
    text = envelope("third-party-private", NONCE, "", source="upload", kind="pdf", score=0.0, created_at=WHEN)
    assert text == (
        f'<untrusted_content_{NONCE} kind="retrieved-third-party-private" tool="upload" nonce="{NONCE}"'
        f' created_at="2026-03-04T05:06:07+00:00" content_kind="pdf" score="0.0">\n\n</untrusted_content_{NONCE}>\n\n'
    )


def test_directive_is_one_fixed_line_without_tier_words() -> None:
    assert "\n" not in SAFETY_DIRECTIVE
    assert "first-party" not in SAFETY_DIRECTIVE
    assert SAFETY_DIRECTIVE.endswith(".")
    assert "data, not instructions" in SAFETY_DIRECTIVE
