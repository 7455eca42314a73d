"""SpooledArtifact views, handle text, streamed counting, and what a Retrievable renders and costs."""

from __future__ import annotations

import re
import subprocess
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from returns.result import Failure, Result, Success

from thrift_fp.records import (
    ByteStore,
    InvalidLineRange,
    InvalidPattern,
    MemoryStore,
    ReaderDescriptor,
    Retrievable,
    SpoolReader,
    SpooledArtifact,
    StoreError,
    StoreFailed,
    ValueNotFound,
    _stream_count,
    open_reader,
    parse_retrievable,
    to_snapshot,
)
from thrift_fp.records import _regex
from thrift_fp.records._store import Writable
from thrift_fp.tokens import (
    EstimatorFailed,
    Tokenizable,
    UnknownEncoding,
    count_tokens,
    register_token_estimator,
    unregister_token_estimator,
)


class BrokenReader:
    """A reader whose every read fails: proves an operation never touched the body."""

    def _fail(self) -> StoreFailed:
        return StoreFailed("read", "broken", "the body must not be read")

    def line(self, index: int) -> Result[str, StoreError]:
        return Failure(self._fail())

    def byte_length(self) -> Result[int, StoreError]:
        return Failure(self._fail())

    def line_count(self) -> Result[int, StoreError]:
        return Failure(self._fail())

    def read_all(self) -> Result[str, StoreError]:
        return Failure(self._fail())

    def describe(self) -> ReaderDescriptor | None:
        return None

    def iter_lines(self) -> Iterator[Result[str, StoreError]]:
        yield Failure(self._fail())


def artifact(text: str, *hints: int | None) -> SpooledArtifact:
    return SpooledArtifact(MemoryStore().write("doc", text).unwrap(), *hints)


def record(content: Any, **extra: Any) -> Retrievable:
    return parse_retrievable(
        {"id": "doc", "content": content, "trust_tier": "third-party-public", "created_at": 0, "updated_at": 0, **extra}
    ).unwrap()


def test_broken_reader_is_a_spool_reader() -> None:
    assert isinstance(BrokenReader(), SpoolReader)


@pytest.mark.parametrize("operation", ["head", "tail"])
def test_negative_counts_are_error_values(operation: str) -> None:
    result = getattr(artifact("a\nb"), operation)(-2)
    assert result.failure() == InvalidLineRange(operation, "n must be >= 0, got -2")


@pytest.mark.parametrize(("start", "end"), [(-1, None), (0, -1)])
def test_negative_cat_bounds_are_error_values(start: int, end: int | None) -> None:
    error = artifact("a\nb").cat(start, end).failure()
    assert isinstance(error, InvalidLineRange) and error.operation == "cat"


def test_views_follow_splitlines() -> None:
    body = artifact("zero\r\none\n\ntwo\rthree\n")
    assert body.head(2).unwrap() == ("zero", "one")
    assert body.tail(2).unwrap() == ("two", "three")
    assert body.tail(0).unwrap() == ()
    assert body.cat(1, 3).unwrap() == ("one", "")
    assert body.cat(4).unwrap() == ("three",)
    assert body.cat(9).unwrap() == ()
    assert body.grep(r"^t").unwrap() == ((3, "two"), (4, "three"))
    assert body.grep(re.compile("ONE", re.IGNORECASE)).unwrap() == ((1, "one"),)
    assert (body.line_count().unwrap(), body.byte_length().unwrap()) == (5, 21)


def test_a_bad_pattern_is_an_error_value() -> None:
    assert isinstance(artifact("x").grep("[").failure(), InvalidPattern)


def test_store_failures_pass_through_every_view() -> None:
    store = MemoryStore()
    body = SpooledArtifact(store.write("doc", "a\nb").unwrap())
    store.delete("doc")
    for result in (body.head(), body.tail(), body.cat(), body.grep("a"), body.as_string(),
                   body.estimate_tokens(), body.byte_length(), body.line_count()):
        assert isinstance(result.failure(), ValueNotFound)


def test_handle_text_is_deterministic_and_uses_only_hints() -> None:
    body = SpooledArtifact(BrokenReader(), 7, 2)
    assert body.handle_text("doc", "o200k_base") == body.handle_text("doc", "o200k_base")
    assert body.handle_text("doc") == '[spooled artifact "doc": 7 bytes, 2 lines; read it with head, tail, grep or cat]'
    assert "about 2 o200k_base tokens" in body.handle_text("doc", "o200k_base")
    assert SpooledArtifact(BrokenReader(), None, 4).handle_text("d", "cl100k_base") == (
        '[spooled artifact "d": 4 lines; read it with head, tail, grep or cat]'
    )
    assert SpooledArtifact(BrokenReader(), 70).handle_text('a"b') .startswith('[spooled artifact "a\\"b": 70 bytes')


def test_unknown_encoding_and_failing_estimators_are_error_values() -> None:
    assert isinstance(artifact("x").estimate_tokens("nope").failure(), UnknownEncoding)
    register_token_estimator("records-raises", lambda text: 1 // 0)
    try:
        assert isinstance(artifact("x").estimate_tokens("records-raises").failure(), EstimatorFailed)
    finally:
        unregister_token_estimator("records-raises")


def test_custom_estimators_are_exact_only_within_one_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    register_token_estimator("records-words", lambda text: len(text.split()), precision="exact")
    try:
        small = artifact("one two\nthree\n").count_tokens_streamed("records-words").unwrap()
        assert (small.count.tokens, small.count.precision, small.estimated_because) == (3, "exact", None)
        monkeypatch.setattr(_stream_count, "TARGET_CHARS", 4)
        split = artifact("one two\nthree\n").count_tokens_streamed("records-words").unwrap()
        assert (split.count.tokens, split.count.precision, split.chunks) == (3, "estimated", 2)
        assert split.estimated_because == "custom estimator 'records-words' gives no guarantee that chunk counts add up"
    finally:
        unregister_token_estimator("records-words")


def test_an_estimating_estimator_is_always_estimated() -> None:
    register_token_estimator("records-len", len)
    try:
        counted = artifact("abc").count_tokens_streamed("records-len").unwrap()
        assert counted.count.precision == "estimated"
        assert counted.estimated_because == "encoding 'records-len' is itself an estimator"
    finally:
        unregister_token_estimator("records-len")


def test_no_safe_cut_within_the_bound_cuts_anyway_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_stream_count, "TARGET_CHARS", 8)
    monkeypatch.setattr(_stream_count, "FORCE_CHARS", 32)
    text = "".join(f"  indented line {i}\n" for i in range(20))
    counted = artifact(text).count_tokens_streamed().unwrap()
    assert counted.count.precision == "estimated" and counted.chunks > 1
    assert counted.estimated_because == "no exact cut point (a line break between non-space text) within 32 characters"


def test_cuts_avoid_a_slash_after_punctuation_which_o200k_would_join(monkeypatch: pytest.MonkeyPatch) -> None:
    # o200k's punctuation piece ' ?[^\s\p{L}\p{N}]+[\r\n/]*' carries '.\n/' across the line break:
    joined = count_tokens("end.\n// note", "o200k_base").unwrap().tokens
    separate = count_tokens("end.\n", "o200k_base").unwrap().tokens + count_tokens("// note", "o200k_base").unwrap().tokens
    assert joined != separate
    monkeypatch.setattr(_stream_count, "TARGET_CHARS", 1)
    text = "end.\n// note\n" * 50 + "Word.\nNext\n" * 50
    counted = artifact(text).count_tokens_streamed("o200k_base").unwrap()
    assert counted.count == count_tokens(text, "o200k_base").unwrap()
    assert counted.chunks > 1


# --- Retrievable over each content kind ---------------------------------------------------------


def test_hinted_handle_mode_counts_the_handle_without_reading_the_body() -> None:
    r = record(SpooledArtifact(BrokenReader(), 1000, 10))
    assert (r.handle_mode, r.size_unknown) == (True, False)
    handle = r.rendered_body("o200k_base").unwrap()
    assert handle == r.content.handle_text(call_id="doc", encoding="o200k_base")  # type: ignore[union-attr]
    assert r.estimate_tokens("o200k_base").unwrap() == count_tokens(handle, "o200k_base").unwrap()
    assert str(r) == r.rendered_body().unwrap()
    assert isinstance(r.content_text().failure(), StoreFailed)


def test_unhinted_handle_mode_is_size_unknown_and_counts_the_body() -> None:
    r = record(artifact("hello world\n"))
    assert (r.handle_mode, r.size_unknown) == (True, True)
    assert "size unknown" in r.rendered_body().unwrap()
    assert r.estimate_tokens().unwrap() == count_tokens("hello world\n").unwrap()


def test_inline_spooled_content_renders_and_counts_the_body() -> None:
    r = record(artifact("hello world\n", 12, 1), inline=True)
    assert (r.handle_mode, r.size_unknown) == (False, False)
    assert r.rendered_body().unwrap() == "hello world\n" == r.content_text().unwrap() == str(r)
    assert r.estimate_tokens().unwrap().tokens == count_tokens("hello world\n").unwrap().tokens


def test_text_and_tokenizable_content() -> None:
    assert record("hello world").estimate_tokens().unwrap().tokens == 2
    assert record(Tokenizable("hello world")).content_text().unwrap() == "hello world"
    dynamic = record(Tokenizable(lambda ctx: "computed"))
    assert str(dynamic) == "computed"
    assert dynamic.estimate_tokens().unwrap().tokens == count_tokens("computed").unwrap().tokens


def test_str_reports_a_failure_instead_of_hiding_it() -> None:
    r = record(SpooledArtifact(BrokenReader()), inline=True)
    assert str(r) == "[retrievable 'doc' could not be rendered: read of id 'broken' failed: the body must not be read]"
    failing = record(Tokenizable(lambda ctx: str(1 // 0)))
    assert str(failing).startswith("[retrievable 'doc' could not be rendered: dynamic value could not be rendered")
    assert isinstance(failing.estimate_tokens().failure(), type(failing.content_text().failure()))


def test_estimate_tokens_rejects_an_unknown_encoding_in_every_mode() -> None:
    for r in (record("x"), record(SpooledArtifact(BrokenReader(), 3)), record(artifact("x"))):
        assert isinstance(r.estimate_tokens("nope").failure(), UnknownEncoding)


class RaisingReader(BrokenReader):
    """A caller-written reader that breaks the protocol by raising: a user callback boundary."""

    problem = OSError("disk on fire")

    def read_all(self) -> Result[str, StoreError]:
        raise self.problem

    def byte_length(self) -> Result[int, StoreError]:
        raise self.problem

    def line_count(self) -> Result[int, StoreError]:
        raise self.problem

    def describe(self) -> ReaderDescriptor | None:
        raise self.problem

    def iter_lines(self) -> Iterator[Result[str, StoreError]]:
        yield Success("first line\n")
        raise self.problem


def test_a_raising_reader_becomes_store_failed_values_with_the_cause() -> None:
    body = SpooledArtifact(RaisingReader())
    results = (body.head(), body.tail(), body.cat(), body.grep("x"), body.as_string(),
               body.estimate_tokens(), body.byte_length(), body.line_count())
    for result in results:
        error = result.failure()
        assert isinstance(error, StoreFailed) and error.cause is RaisingReader.problem
        assert error.message == "read of id '<RaisingReader>' failed: the reader raised OSError: disk on fire"
    assert body.head(1).unwrap() == ("first line",)  # stopping before the fault never meets it
    r = record(body)
    assert isinstance(r.estimate_tokens().failure(), StoreFailed)
    assert str(r) == '[spooled artifact "doc": size unknown; read it with head, tail, grep or cat]'
    assert to_snapshot(r).failure().reason == (
        "describe of id '<RaisingReader>' failed: the reader raised OSError: disk on fire"
    )


# --- grep on RE2 (no ReDoS) ------------------------------------------------------------------

# Each is exponential (or refused with an exception) on Python's backtracking `re`.
_BOMBS = [r"(a+)+$", r"(a|a)+$", r"(a|aa)+$", r"(a*)*b", r"^(\w+\s?)*$", r"(.*a){20}", r"(a?){30}a{30}"]


@pytest.mark.parametrize("pattern", _BOMBS)
def test_patterns_exponential_on_re_complete_on_long_lines(pattern: str) -> None:
    # No wall-clock assertion: on `re` the first line alone would take longer than the universe.
    body = artifact("\n".join(["a" * 20_000 + "!", "a" * 30_000, "b" * 10]))
    found = body.grep(pattern)
    assert isinstance(found, Success) or isinstance(found.failure(), InvalidPattern)
    if isinstance(found, Success):
        assert all(re.fullmatch(r"a+!?|b+", line) for _, line in found.unwrap())


@pytest.mark.parametrize(
    "pattern",
    ["a{4294967296}", "a{1001}", "(" * 5_000 + "a" + ")" * 5_000, "(?:" * 3_000 + "a" + ")*" * 3_000,
     "((a{100}){100}){100}", r"(a)\1", "(?<=a)b", "x" * 2_000_000, "\ud800", "[", "a**"],
)
def test_patterns_re_raises_on_are_completed_or_refused_as_values(pattern: str) -> None:
    found = artifact("a" * 5000 + "\nb").grep(pattern)
    assert isinstance(found, Success) or isinstance(found.failure(), InvalidPattern)
    if isinstance(found, Failure):
        assert len(found.failure().message) < 400


def test_semantics_of_the_classic_bomb_on_re2() -> None:
    body = artifact("aaaa!\naaaa\n")
    assert body.grep(r"(a+)+$").unwrap() == ((1, "aaaa"),)
    assert body.grep(re.compile(r"A+!", re.IGNORECASE)).unwrap() == ((0, "aaaa!"),)
    assert isinstance(body.grep(re.compile("a", re.VERBOSE)).failure(), InvalidPattern)


_GROUPS_BOMB = (
    "import sys\n"
    "from thrift_fp.records import MemoryStore, SpooledArtifact\n"
    "body = SpooledArtifact(MemoryStore().write('doc', 'a\\n' * 20_000).unwrap())\n"
    "found = body.grep('(' * 3000 + 'a' + ')' * 3000).unwrap()\n"
    "sys.exit(0 if len(found) == 20_000 else 1)\n"
)


def test_a_pattern_of_thousands_of_groups_does_not_stall_grep() -> None:
    # A match used to report every group's span: 3,000 nested groups cost 75 ms a line, so this
    # 20,000-line grep took about 25 minutes. grep asks only whether a line matches (about a
    # second now); the limit is a stall detector, not a speed claim.
    done = subprocess.run([sys.executable, "-c", _GROUPS_BOMB], timeout=180, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_groups_still_group_when_nothing_captures() -> None:
    body = artifact("abab\nab\nba\n")
    assert body.grep(r"^(ab){2}$").unwrap() == ((0, "abab"),)
    assert body.grep(r"(?P<pair>ab)+").unwrap() == ((0, "abab"), (1, "ab"))
    assert isinstance(body.grep(r"(a)\1").failure(), InvalidPattern)


def test_a_reader_handing_out_lone_surrogates_is_grepped_not_crashed() -> None:
    class SurrogateReader(BrokenReader):
        def iter_lines(self) -> Iterator[Result[str, StoreError]]:
            yield Success("ok \ud800\n")
            yield Success("plain")

    assert SpooledArtifact(SurrogateReader()).grep("ok").unwrap() == ((0, "ok \ud800"),)
    assert SpooledArtifact(SurrogateReader()).grep("\ufffd").unwrap() == ((0, "ok \ud800"),)


class _LocationDown:
    """A caller-written byte store whose ``location`` raises: matching a descriptor runs it."""

    @property
    def kind(self) -> str:
        return "remote"

    @property
    def location(self) -> str:
        raise ConnectionError("no route to backend")

    def write(self, id: str, data: Writable) -> Result[SpoolReader, StoreError]:
        raise AssertionError("not called")

    def read(self, id: str) -> Result[SpoolReader, StoreError]:
        raise AssertionError("not called")

    def delete(self, id: str) -> Result[bool, StoreError]:
        raise AssertionError("not called")


def test_a_store_that_raises_while_being_matched_is_a_read_failure_with_its_cause() -> None:
    store: ByteStore = _LocationDown()
    error = open_reader(ReaderDescriptor("remote", "s3://bucket", "doc"), [store]).failure()
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id) == ("read", "doc")
    assert isinstance(error.cause, ConnectionError)
    assert error.message == "read of id 'doc' failed: the store raised ConnectionError: no route to backend"


def test_a_pattern_re2_refuses_is_an_error_value_and_nothing_on_standard_error(
    capfd: pytest.CaptureFixture[str],
) -> None:
    artifact = SpooledArtifact(MemoryStore().write("doc", "x\n").unwrap())
    capfd.readouterr()
    error = artifact.grep("(?=x)").failure()
    assert error == InvalidPattern("(?=x)", "invalid perl operator: (?=")
    assert capfd.readouterr().err == ""


# 64 KiB lines, each ending in a non-space character and a break, each starting with a letter: every
# line boundary is an exact cut point, and two lines are exactly the 128 KiB chunk target.
_LINE = "abc " * 16_383 + "abc\n"


def test_a_chunk_is_cut_once_it_reaches_the_target_size_exactly() -> None:
    assert len(_LINE) * 2 == 128 * 1024
    text = _LINE * 6
    artifact = SpooledArtifact(MemoryStore().write("doc", text).unwrap())
    streamed = artifact.count_tokens_streamed("cl100k_base").unwrap()
    assert streamed.chunks == 3
    assert streamed.count == count_tokens(text, "cl100k_base").unwrap()
    assert streamed.estimated_because is None


@pytest.mark.parametrize(
    ("args", "reason"),
    [((b"bad byte \xff in pattern",), "bad byte \ufffd in pattern"), (("in words",), "in words"), ((), "Refused")],
)
def test_an_engine_refusal_is_shown_in_words_even_in_bytes_that_are_not_utf8_or_with_no_detail(
    monkeypatch: pytest.MonkeyPatch, args: tuple[object, ...], reason: str
) -> None:
    # RE2 reports its reasons in bytes; one that is not UTF-8, or none at all, must still read as a reason.
    class Refused(Exception):
        pass

    def refuse(source: str, options: object) -> object:
        raise Refused(*args)

    engine = types.SimpleNamespace(error=Refused, Options=types.SimpleNamespace, compile=refuse)
    monkeypatch.setattr(_regex, "_re2", lambda: engine)
    error = SpooledArtifact(MemoryStore().write("doc", "x\n").unwrap()).grep("x").failure()
    assert error == InvalidPattern("x", reason)


@pytest.mark.parametrize(
    ("start", "end", "got"), [(-1, None, "-1 and None"), (0, -1, "0 and -1"), (-3, -4, "-3 and -4")]
)
def test_negative_cat_bounds_name_the_operation_and_both_bounds(start: int, end: int | None, got: str) -> None:
    error = artifact("a\nb").cat(start, end).failure()
    assert error == InvalidLineRange("cat", f"start and end must be >= 0, got {got}")


def test_handle_text_shows_hints_past_64_bits_by_size_and_64_bit_ones_in_digits() -> None:
    # A directly built artifact may hold any int; parse_retrievable would bound it to 2**63 - 1.
    body = SpooledArtifact(BrokenReader(), 2**1024, 2**64 - 1)
    assert body.handle_text("doc", "cl100k_base") == (
        '[spooled artifact "doc": an int of 1025 bits (too long to print) bytes, 18446744073709551615 lines,'
        " about an int of 1023 bits (too long to print) cl100k_base tokens (estimated from size);"
        " read it with head, tail, grep or cat]"
    )
