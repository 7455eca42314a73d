"""Generators for the records properties: bodies, raw records, corruptions, stores."""

from __future__ import annotations

import atexit
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from thrift_fp.records import (
    TRUST_TIERS,
    ByteStore,
    FolderStore,
    MemoryStore,
    SpooledArtifact,
    SpoolReader,
    SqliteStore,
)
from thrift_fp.records._store import check_id
from thrift_fp.tokens import Tokenizable

# Pieces chosen to sit on tokenizer and line-splitting edges: every line break splitlines knows,
# runs of spaces, punctuation before a break, '/' after one, contractions, digits, non-ASCII.
PIECES = (
    "a", "Word", "word", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85",
    "\u2028", "\u2029", ".", ",", "!?", "/", "//", "'s", "'ll", "42", "12345", "é", "日本", "<|endoftext|>",
    "    ", "\u00a0", "x=y;", "(", ")", "-", "_",
)

bodies = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=60).map("".join),
    st.text(max_size=80),
)

_folder = tempfile.mkdtemp(prefix="records-props-")
atexit.register(shutil.rmtree, _folder, ignore_errors=True)
SHARED_STORES: tuple[ByteStore, ...] = (
    MemoryStore(),
    FolderStore(os.path.join(_folder, "folder")),
    SqliteStore(os.path.join(_folder, "spool.db")),
)

store_ids = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="/\\\x00"), min_size=1, max_size=20).filter(
    lambda id: check_id(id).map(lambda _: True).value_or(False)
)

_offsets = st.builds(
    timezone, st.timedeltas(min_value=timedelta(hours=-23, minutes=59), max_value=timedelta(hours=23, minutes=59))
)
aware_datetimes = st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=_offsets)
timestamps = st.one_of(
    aware_datetimes,
    aware_datetimes.map(lambda moment: moment.isoformat()),
    st.integers(min_value=-(10**10), max_value=10**10),
    st.integers(min_value=10**11, max_value=10**14),
    st.floats(min_value=-1e10, max_value=1e10, allow_nan=False),
)
optional_texts = st.none() | st.text(min_size=1, max_size=20)
scores = st.none() | st.floats(min_value=0, max_value=1) | st.sampled_from([0, 1])


@dataclass(frozen=True)
class SpoolPlan:
    """A spooled body to write when the test runs (writing inside a strategy would use the
    ``random`` module through ``tempfile``, which Hypothesis forbids)."""

    store: ByteStore
    id: str
    body: str
    byte_length_hint: int | None
    line_count_hint: int | None

    def build(self, constructor: Any = SpooledArtifact) -> SpooledArtifact:
        reader = self.store.write(self.id, self.body).unwrap()
        built: SpooledArtifact = constructor(reader, self.byte_length_hint, self.line_count_hint)
        return built


_hints = st.none() | st.integers(min_value=0, max_value=10**12)
spool_plans = st.builds(SpoolPlan, st.sampled_from(SHARED_STORES), store_ids, bodies, _hints, _hints)

contents = st.one_of(
    st.text(min_size=1, max_size=40),
    bodies.map(Tokenizable),
    spool_plans,
)


def materialise(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with a planned spooled body written and wrapped (through its constructor, if any)."""
    content = raw.get("content")
    if not isinstance(content, SpoolPlan):
        return raw
    return {**raw, "content": content.build(raw.get("artifact_constructor") or SpooledArtifact)}


class PdfArtifact(SpooledArtifact):
    """An artifact subclass, so the constructor's type can be seen to survive."""


def _pdf_artifact(reader: SpoolReader, byte_length: int | None, line_count: int | None) -> SpooledArtifact:
    return PdfArtifact(reader, byte_length, line_count)


# Seed 003's artifactConstructor: resolvers (a subclass is one), never names.
artifact_constructors = st.sampled_from([SpooledArtifact, PdfArtifact, _pdf_artifact])


@st.composite
def raw_records(draw: st.DrawFn, content: st.SearchStrategy[Any] = contents) -> dict[str, Any]:
    """A valid raw record; optional fields are present or absent at random."""
    raw: dict[str, Any] = {
        "id": draw(st.text(min_size=1, max_size=20)),
        "content": draw(content),
        "trust_tier": draw(st.sampled_from(TRUST_TIERS)),
        "created_at": draw(timestamps),
        "updated_at": draw(timestamps),
    }
    optional = {
        "source": optional_texts,
        "kind": optional_texts,
        "score": scores,
        "inline": st.booleans(),
        "artifact_constructor": artifact_constructors,
    }
    for name, strategy in optional.items():
        if draw(st.booleans()):
            raw[name] = draw(strategy)
    return raw


_naive = st.datetimes(max_value=datetime(9998, 1, 1))
_bad_timestamps = st.one_of(
    st.booleans(), _naive, _naive.map(datetime.isoformat), st.sampled_from([math.nan, math.inf, -math.inf]),
    st.text(alphabet="xyz", min_size=1), st.lists(st.integers(), max_size=2), st.just(10**30),
)
_bad_texts = st.one_of(st.just(""), st.integers(), st.booleans(), st.lists(st.text(), max_size=2))
# A value each field must reject; _MISSING deletes a required field instead.
_MISSING = object()
CORRUPTIONS: dict[str, st.SearchStrategy[object]] = {
    "id": st.one_of(st.just(""), st.integers(), st.just(_MISSING), st.lists(st.text(), max_size=1)),
    "content": st.one_of(st.just(""), st.integers(), st.binary(max_size=3), st.just(_MISSING)),
    "trust_tier": st.one_of(st.text(max_size=10).filter(lambda text: text not in TRUST_TIERS), st.integers(), st.just(_MISSING)),
    "created_at": _bad_timestamps | st.just(_MISSING),
    "updated_at": _bad_timestamps | st.just(_MISSING),
    "source": _bad_texts,
    "kind": _bad_texts,
    "artifact_constructor": st.one_of(st.text(max_size=5), st.integers(), st.lists(st.integers(), max_size=2)),
    "score": st.one_of(
        st.booleans(), st.sampled_from([math.nan, math.inf, -math.inf]),
        st.floats(min_value=1, exclude_min=True, allow_infinity=False),
        st.floats(max_value=0, exclude_max=True, allow_infinity=False),
        st.integers(min_value=2), st.integers(max_value=-1), st.text(max_size=3),
    ),
    "inline": st.one_of(st.integers(), st.text(max_size=3), st.floats(allow_nan=False)),
}


def corrupt(raw: dict[str, Any], field: str, value: object) -> None:
    """Put ``value`` (or a removal) into ``raw[field]``."""
    if value is _MISSING:
        raw.pop(field, None)
    else:
        raw[field] = value


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10) | _naive | aware_datetimes,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(("id", "content", "trust_tier", "created_at", "score")) | st.text(max_size=8), children, max_size=6),
    max_leaves=20,
)
