"""Every tool error a served call can end in, through the server itself (the SDK's in-process
client): its text and its structured content name no Python exception (builtin, the library's
own error classes, or whatever a failing source raised) and show no credential, whatever the
call: unknown tools, hostile arguments, a source that raises inside the lifecycle, and a backend
that raises outside it (the server's last boundary). The exception's type and traceback reach
the operator's log, scrubbed of the database password."""

from __future__ import annotations

import builtins
import dataclasses
import functools
import json
import logging
import tempfile
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from properties.hostile_strategies import examples
from tests._serve_harness import build_index
from thrift_fp._errors import ThriftFpError
from thrift_fp.retrieval import OperationContext
from thrift_fp.serve import SqliteBackend, build_server, serve_settings
from thrift_fp.serve._server import INTERNAL_ERROR
from thrift_fp.sources import FtsDefinition, Hit

SECRET: Final = "hunter2-s3cret"


class IndexVanishedError(RuntimeError):
    """What a failing backend raises (its name must not reach the agent either)."""


def _subclasses(root: type) -> set[str]:
    found = {root.__name__}
    child: type
    for child in root.__subclasses__():
        found |= _subclasses(child)
    return found


EXCEPTION_NAMES: Final = tuple(
    sorted(
        {name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)}
        | _subclasses(ThriftFpError) | {IndexVanishedError.__name__}
    )
)


@dataclasses.dataclass(frozen=True, slots=True)
class _Database:
    password: str


@dataclasses.dataclass(frozen=True, slots=True)
class FailingBackend:
    """The real index; its searches raise inside the lifecycle for questions holding "boom",
    its definition raises outside it for the third-party-private tier, and its surroundings
    always raise (each message holding the database's password)."""

    inner: SqliteBackend
    database: _Database = _Database(SECRET)

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        if tiers == ("third-party-private",):
            raise IndexVanishedError(f"cannot open postgresql://ann:{SECRET}@db/docs (password {SECRET})")
        real = self.inner.definition(tiers, max_results, max_calls)

        def execute(query: str, context: OperationContext[object]) -> tuple[Hit, ...]:
            if "boom" in query:
                raise KeyError(f"boom: password={SECRET}")
            return real.execute(query, context)

        return dataclasses.replace(real, execute=execute)

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        raise IndexVanishedError(f"the index vanished ({SECRET})")

    def describe(self) -> str:
        return self.inner.describe()

    def ranking(self) -> dict[str, object]:
        return self.inner.ranking()


@functools.cache
def _index() -> Path:
    return build_index(Path(tempfile.mkdtemp(prefix="serve-tool-errors-")))


def _names_nothing(text: str) -> None:
    named = [name for name in EXCEPTION_NAMES if name in text]
    assert not named and SECRET not in text, (named, text[:400])


# JSON as a frame carries it once the server has tamed it (`thrift_fp.serve._frames`: no huge
# numbers, no deep nesting), which the in-process client skips.
json_like = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
tools = st.sampled_from(["search", "read", "nope", "Search", ""])
questions = st.sampled_from(["boom shedding", "shedding budgets", "?!", "", "walker gitignore parser", "zzqxv"]) | st.text(max_size=20)
arguments = st.one_of(
    st.fixed_dictionaries(
        {"question": questions},
        optional={"budget": st.integers(-5, 3000) | json_like, "tiers": st.sampled_from([["third-party-private"], ["first-party"], "x", []])},
    ),
    st.fixed_dictionaries({"id": st.sampled_from(["docs/walk.md#2", "docs/walk.md#1", "nowhere#1"]) | json_like},
                          optional={"budget": st.integers(-5, 3000)}),
    st.dictionaries(st.text(max_size=8), json_like, max_size=3),
)


async def _served(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, bool, str]]:
    server = build_server(FailingBackend(SqliteBackend(_index(), dense=False)), serve_settings(max_budget=3000).unwrap())
    said: list[tuple[str, bool, str]] = []
    async with Client(server) as client:
        # A read needs an earlier search to have found its passage (the forum one included).
        for tool, given_arguments in [("search", {"question": "walker gitignore parser", "budget": 400}), *calls]:
            result = await client.call_tool(tool, given_arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            said.append((text, bool(result.is_error), json.dumps(result.structured_content, ensure_ascii=False)))
        receipts = await client.read_resource("receipts://session")
        said.append((getattr(receipts.contents[0], "text", ""), False, ""))
    return said


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(st.tuples(tools, arguments), min_size=1, max_size=5))
def test_no_tool_error_names_a_python_exception_or_shows_a_credential(
    calls: list[tuple[str, dict[str, Any]]], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="thrift_fp.serve"):
        said = anyio.run(_served, calls)
    for text, is_error, structured in said:
        _names_nothing(structured)
        if is_error:
            _names_nothing(text)
        else:  # an answer carries documents' text: it may say anything but a builtin exception name
            assert SECRET not in text
    # A crash is told to the agent in plain words, and to the operator in full, scrubbed.
    logged = caplog.text
    assert SECRET not in logged
    crashed = [text for text, is_error, _ in said if is_error and INTERNAL_ERROR in text]
    if crashed:
        assert "IndexVanishedError" in logged and "Traceback" in logged


def test_a_backend_that_raises_is_an_internal_error_in_plain_words_and_a_scrubbed_traceback_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search", {"question": "shedding", "tiers": ["third-party-private"]}),  # raises outside the lifecycle
        ("read", {"id": "docs/walk.md#2", "budget": 2000}),  # a shed passage: its surroundings raise
        ("search", {"question": "boom budgets"}),  # raises inside the lifecycle
        ("search", {"question": "envelopes nonce"}),  # and the session goes on
    ]
    with caplog.at_level(logging.ERROR, logger="thrift_fp.serve"):
        said = anyio.run(_served, calls)
    texts = [text for text, _, _ in said[1:-1]]
    assert texts[:3] == [
        f"search: {INTERNAL_ERROR}", f"read: {INTERNAL_ERROR}",
        "search: the source failed on this call; the server's log has the details",
    ]
    assert not said[4][1]
    for text, _, structured in said:
        _names_nothing(text if text.startswith(("search:", "read:")) else "")
        _names_nothing(structured)
    assert '"error": "source_failed"' in said[1][2]
    assert caplog.text.count("Traceback") == 3 and "IndexVanishedError" in caplog.text and "KeyError" in caplog.text
    assert SECRET not in caplog.text and "postgresql://ann:***@db/docs" in caplog.text
