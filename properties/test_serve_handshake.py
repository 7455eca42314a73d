"""``thrift-fp serve`` answers ``initialize`` before the SDK loads (`thrift_fp.serve._handshake`):
the hand answer is the SDK's own, byte for byte, for every protocol version the SDK supports and
for generated requests; whatever the hand does not answer is left to the SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, KNOWN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS

from thrift_fp import __version__
from thrift_fp.serve import SqliteBackend, build_server, serve_settings
from thrift_fp.serve._frames import tame_frame
from thrift_fp.serve._handshake import (
    EMBEDDED_NAME,
    HANDSHAKE_VERSIONS,
    answer_initialize,
    corpus_name,
    instructions,
)

# Settings and a corpus name as an operator might choose them (quotas and the index file's name
# are what the instructions carry).
SETTINGS = serve_settings(max_calls=7, max_session_tokens=9000).unwrap()
SERVERS = {
    "an index file": SqliteBackend(Path("/srv/docs/manual é.db")),
    "the embedded corpus": SqliteBackend(Path("/cache/embedded.db"), True, EMBEDDED_NAME),
}


def told(backend: SqliteBackend) -> str:
    """The instructions the command computes for ``backend`` before the SDK loads (no backend)."""
    named = corpus_name(None) if backend.name == EMBEDDED_NAME else corpus_name(backend.database)
    return instructions(named, SETTINGS.max_calls, SETTINGS.max_session_tokens)


def sdk_answer(backend: SqliteBackend, line: bytes) -> str | None:
    """What the SDK's stdio transport writes in answer to ``line`` (as ``serve_stdio`` feeds it:
    decoded, tamed), or ``None`` when it writes nothing for it."""
    text = tame_frame(line.decode("utf-8", errors="replace").rstrip("\n"))
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception:  # noqa: BLE001 - the SDK's reader turns any failure into no answer here
        return None
    server = build_server(backend, SETTINGS)
    answered: list[str] = []

    async def exchange() -> None:
        reader_in, reader_out = create_context_streams[SessionMessage | Exception](0)
        writer_in, writer_out = create_context_streams[SessionMessage](0)
        async with reader_in, reader_out, writer_in, writer_out, anyio.create_task_group() as group:
            group.start_soon(server.run, reader_out, writer_in, server.create_initialization_options())
            await reader_in.send(SessionMessage(message))
            with anyio.move_on_after(5):
                sent = await writer_out.receive()
                answered.append(sent.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n")
            group.cancel_scope.cancel()

    anyio.run(exchange)
    return answered[0] if answered else None


def initialize(version: object, request_id: object = 1, **params: Any) -> bytes:
    """An ``initialize`` frame as a client writes it."""
    fields = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}} | params
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": fields}).encode() + b"\n"


def test_the_versions_answered_by_hand_are_the_sdks_handshake_versions() -> None:
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


CLIENTS: dict[str, dict[str, Any]] = {
    "bare": {},
    "claude-like": {"capabilities": {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}}},
    "titled": {"clientInfo": {"name": "probe", "version": "2.0", "title": "Probe ✓"}},
    "experimental": {"capabilities": {"experimental": {"x-trace": {"level": 2, "on": True, "tags": ["a"]}}}},
}


@pytest.mark.parametrize("server", sorted(SERVERS))
@pytest.mark.parametrize("client", sorted(CLIENTS))
@pytest.mark.parametrize("version", [*SUPPORTED_PROTOCOL_VERSIONS, "1999-01-01", "draft"])
def test_the_hand_answer_is_the_sdks_for_every_protocol_version(server: str, client: str, version: str) -> None:
    backend = SERVERS[server]
    for request_id in (1, "init-1"):
        line = initialize(version, request_id, **CLIENTS[client])
        handshake = answer_initialize(line, told(backend), __version__)
        assert handshake is not None and handshake.request_id == request_id
        assert handshake.frame == sdk_answer(backend, line)


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n',
        b'[{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}]\n',
        initialize(5),
        initialize("2025-06-18", True),
        initialize("2025-06-18", None),
        initialize("2025-06-18", 1.5),
        initialize("2025-06-18", clientInfo={"name": "probe"}),
        initialize("2025-06-18", capabilities={"roots": {"listChanged": "yes"}}),
        initialize("2025-06-18", capabilities={"sampling": {"tools": {}}}),
        initialize("2025-06-18", _meta={"progressToken": 1}),
        b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "initialize", "params": {}}\n',
        b"not json\n",
        b"",
    ],
)
def test_a_request_not_plainly_valid_is_left_to_the_sdk(line: bytes) -> None:
    assert answer_initialize(line, "hi", __version__) is None


# Values a client might send where the hand answers only one shape.
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=6),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=3), max_size=2),
    st.just({}), st.just({"listChanged": True}), st.just({"tools": {}}),
)
FLAT = st.dictionaries(st.text(max_size=4), st.integers(-(2**60), 2**60) | st.text(max_size=4) | st.booleans(), max_size=2)
VALID_CAPABILITIES = st.fixed_dictionaries(
    {},
    optional={
        "roots": st.fixed_dictionaries({}, optional={"listChanged": st.booleans()}),
        "sampling": st.just({}),
        "elicitation": st.just({}),
        "experimental": st.dictionaries(st.text(max_size=5), FLAT, max_size=2),
    },
)
VALID_CLIENT = st.fixed_dictionaries(
    {"name": st.text(max_size=8), "version": st.text(max_size=5)}, optional={"title": st.text(max_size=5)}
)
# Where one change goes: a field of the request, of its params, of the capabilities, of the client.
PLACES = [
    ("jsonrpc",), ("id",), ("method",), ("params",), ("extra",),
    ("params", "protocolVersion"), ("params", "capabilities"), ("params", "clientInfo"), ("params", "_meta"),
    ("params", "capabilities", "roots"), ("params", "capabilities", "sampling"),
    ("params", "capabilities", "elicitation"), ("params", "capabilities", "experimental"),
    ("params", "capabilities", "tasks"), ("params", "capabilities", "roots", "listChanged"),
    ("params", "clientInfo", "name"), ("params", "clientInfo", "version"), ("params", "clientInfo", "title"),
    ("params", "clientInfo", "websiteUrl"),
]


@st.composite
def plain_frames(draw: st.DrawFn) -> dict[str, Any]:
    """A plain ``initialize`` request, as clients send it."""
    return {
        "jsonrpc": "2.0",
        "id": draw(st.one_of(st.integers(-(2**60), 2**60), st.text(max_size=6))),
        "method": "initialize",
        "params": {
            "protocolVersion": draw(st.one_of(st.sampled_from([*KNOWN_PROTOCOL_VERSIONS, "1999-01-01"]), st.text(max_size=10))),
            "capabilities": draw(VALID_CAPABILITIES),
            "clientInfo": draw(VALID_CLIENT),
        },
    }


def changed(frame: dict[str, Any], place: tuple[str, ...], value: object, drop: bool) -> dict[str, Any]:
    """``frame`` with the field at ``place`` set to ``value``, or dropped (a copy)."""
    copy: dict[str, Any] = json.loads(json.dumps(frame))
    parent: Any = copy
    for key in place[:-1]:
        parent = parent.setdefault(key, {}) if isinstance(parent, dict) else None
    if isinstance(parent, dict):
        if drop:
            parent.pop(place[-1], None)
        else:
            parent[place[-1]] = value
    return copy


@pytest.mark.parametrize("place", PLACES, ids="/".join)
@given(frame=plain_frames(), value=ODD, drop=st.booleans(), server=st.sampled_from(sorted(SERVERS)))
def test_whatever_the_hand_answers_the_sdk_answers_alike(
    place: tuple[str, ...], frame: dict[str, Any], value: object, drop: bool, server: str
) -> None:
    # One field of a plain request changed, field by field: the hand answers only what the SDK
    # answers the same way (and leaves the rest to it).
    backend = SERVERS[server]
    line = json.dumps(changed(frame, place, value, drop)).encode() + b"\n"
    handshake = answer_initialize(line, told(backend), __version__)
    if handshake is not None:
        assert handshake.frame == sdk_answer(backend, line)


@given(
    version=st.sampled_from([*KNOWN_PROTOCOL_VERSIONS, "1999-01-01"]),
    capabilities=st.fixed_dictionaries(
        {},
        optional={"roots": st.fixed_dictionaries({}, optional={"listChanged": st.booleans()}),
                  "sampling": st.just({}), "elicitation": st.just({})},
    ),
    name=st.text(min_size=1, max_size=12),
)
def test_a_plain_initialize_is_answered_by_hand(version: str, capabilities: dict[str, object], name: str) -> None:
    # The hand answers what clients send (so the fast path is taken), and answers it as the SDK does.
    line = initialize(version, 7, capabilities=capabilities, clientInfo={"name": name, "version": "1.0"})
    handshake = answer_initialize(line, told(SERVERS["an index file"]), __version__)
    assert handshake is not None
    assert handshake.frame == sdk_answer(SERVERS["an index file"], line)
