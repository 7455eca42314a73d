"""Section and block text: escaping, bare values, omitted attributes, fields, the directive."""

from __future__ import annotations

from datetime import datetime, timezone

from thrift_fp.render import DEFAULT_FIELDS, FIELDS, SAFETY_DIRECTIVE, InvalidFields, escape_attribute, render_retrievables
from thrift_fp.render._envelope import block_close, block_open
from thrift_fp.render._layout import Entry
from thrift_fp.records import Retrievable
from thrift_fp.tokens import count_tokens

WHEN = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=timezone.utc)
NONCE = "01" * 10


def _entry(tier: str = "first-party", **overrides: object) -> Entry:
    values: dict[str, object] = {
        "record_id": "r1", "trust_tier": tier, "body": "b", "source": "kb/a.md", "kind": "policy",
        "score": 0.857, "created_at": WHEN, "updated_at": WHEN,
    }
    values.update(overrides)
    return Entry(**values)  # type: ignore[arg-type]  # the test builds entries from a loose dict


def test_escaping_covers_the_four_characters_numbers_and_non_printables() -> None:
    assert escape_attribute('&<>"') == "&amp;&lt;&gt;&quot;"
    assert escape_attribute("&amp;") == "&amp;amp;"
    assert escape_attribute(1.0) == "1.0"
    assert escape_attribute(7) == "7"
    # Control characters are escaped too; a newline used to be verbatim.
    assert escape_attribute("it's\nfine") == "it's&#xa;fine"
    assert escape_attribute("a\u200bb\x00\u2028\ud800") == "a&#x200b;b&#x0;&#x2028;&#xd800;"


def test_default_fields_are_lean_and_rendered_in_field_order() -> None:
    assert DEFAULT_FIELDS == ("source", "score", "date")
    assert _entry().section(NONCE, DEFAULT_FIELDS) == f"<data{NONCE} src=kb/a.md score=.86 date=2026-03-04>\nb\n"
    everything = _entry("third-party-private", source="my upload").section(NONCE, FIELDS)
    assert everything.splitlines()[0] == (
        f'<data{NONCE} id=r1 tool="my upload" kind=policy score=.86 date=2026-03-04'
        " created_at=2026-03-04T05:06:07.891011+00:00 updated_at=2026-03-04T05:06:07.891011+00:00>"
    )


def test_missing_values_are_left_out_and_odd_values_quoted() -> None:
    bare = _entry(source=None, kind=None, score=None).section(NONCE, ("source", "kind", "score"))
    assert bare == f"<data{NONCE}>\nb\n"
    quoted = _entry(source='a"b <c>', kind="").section(NONCE, ("source", "kind"))
    assert quoted.splitlines()[0] == f'<data{NONCE} src="a&quot;b &lt;c&gt;" kind="">'
    assert _entry(source="x=y").section(NONCE, ("source",)).startswith(f'<data{NONCE} src="x=y">')


def test_block_wrappers_carry_their_nonce_once() -> None:
    assert block_open("first-party", NONCE) == f"<corpus{NONCE}>\n"
    assert block_open("third-party-public", NONCE) == f"<untrusted{NONCE} tier=third-party-public>\n"
    assert block_close("third-party-private", NONCE) == f"</untrusted{NONCE}>\n\n"


def test_field_selection_errors_are_values() -> None:
    record = Retrievable("a", "x", "first-party", WHEN, WHEN)
    unknown = render_retrievables([record], fields=["source", "nonce"]).failure()
    assert isinstance(unknown, InvalidFields)
    assert unknown.message.startswith("fields: 'nonce' is not a field (known: id, source")
    twice = render_retrievables([record], fields=["date", "date"]).failure()
    assert twice.message == "fields: 'date' is named more than once"
    one_string = render_retrievables([record], fields="source").failure()
    assert one_string.message == "fields: 'source' is one string; give a sequence of field names"


def test_directive_is_one_short_fixed_line_without_tier_words() -> None:
    assert "\n" not in SAFETY_DIRECTIVE
    assert "first-party" not in SAFETY_DIRECTIVE
    assert SAFETY_DIRECTIVE.endswith(".")
    for meaning in ("not instructions", "no user, developer or system authority", "closing tag repeating its nonce"):
        assert meaning in SAFETY_DIRECTIVE
    assert count_tokens(SAFETY_DIRECTIVE).unwrap().tokens <= 60
    assert count_tokens(SAFETY_DIRECTIVE, "o200k_base").unwrap().tokens <= 60
