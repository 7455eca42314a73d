"""The render's per-fit work done a column or a whole render at a time equals the
per-record definitions: `digit_skeletons` holds the same digit runs as each text's
`digit_skeleton` joined by spaces (no run lost, none joining two texts, whatever mix of ASCII and
other text, byte 0xFF included); `attribute_columns` and `sections` give each record exactly
`section(nonce, entry.attributes(fields), body)` and the values `Entry.attributes` shows."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, strategies as st

from thrift_fp.render import FIELDS
from thrift_fp.render._envelope import TIERS, section, sections
from thrift_fp.render._layout import Entry, attribute_columns
from thrift_fp.render._skeleton import digit_skeleton, digit_skeletons

# ASCII digits and letters that fold, separators, non-ASCII look-alikes, and the joining byte.
_ALPHABET = "0123456789 Oo lI|x<>/\n\u200b\u00ad\uff10\uff11\u0417\u0431\u0660\u00ff\U0001d7ea"


@given(st.lists(st.text(alphabet=_ALPHABET, max_size=12), max_size=12))
def test_one_pass_keeps_every_text_apart(texts: list[str]) -> None:
    one_pass = digit_skeletons(texts).split(" ")
    each = " ".join(digit_skeleton(text) for text in texts).split(" ")
    assert sorted(one_pass) == sorted(each)


_VALUES = st.one_of(st.none(), st.sampled_from(["kb/a.md", "web search", "", 'say "hi"', "a\u200bb", "<x>"]))
_STAMPS = st.builds(
    lambda seconds, hours: datetime(2026, 1, 1, tzinfo=timezone.utc).astimezone(timezone(timedelta(hours=hours)))
    + timedelta(seconds=seconds),
    st.integers(0, 200_000), st.integers(-12, 12),
)
_ENTRIES = st.lists(
    st.builds(
        Entry, st.sampled_from(["a", "b", "c d"]), st.sampled_from(TIERS), st.text(max_size=8), _VALUES, _VALUES,
        st.one_of(st.none(), st.floats(-2, 2)), _STAMPS, _STAMPS,
    ),
    max_size=8,
)


@given(_ENTRIES, st.lists(st.sampled_from(FIELDS), unique=True).map(lambda names: [f for f in FIELDS if f in names]))
def test_columns_render_each_record_as_its_section(entries: list[Entry], fields: list[str]) -> None:
    nonces = [f"{index:020d}" for index in range(len(entries))]
    shown, columns = attribute_columns(entries, fields)  # type: ignore[arg-type]  # names drawn from FIELDS
    texts = sections(nonces, columns, [entry.body for entry in entries])
    assert texts == [
        section(nonce, entry.attributes(fields), entry.body)  # type: ignore[arg-type]  # names drawn from FIELDS
        for nonce, entry in zip(nonces, entries, strict=True)
    ]
    each = [value for entry in entries for _, value in entry.attributes(fields)]  # type: ignore[arg-type]  # as above
    assert sorted(shown) == sorted(each)
