"""``thrift-fp serve`` over stdio, spawned and driven by the MCP SDK's own client: the tools and
their schemas, answers within budget whose envelopes parse, de-duplication within the session,
hostile arguments as tool errors, and a server that keeps serving after each."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from pathlib import Path

import pytest

from tests._serve_harness import Client, build_index, counted, envelopes, notes, serve_command, stdio_session


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(tmp_path_factory.mktemp("serve-stdio"))


@pytest.fixture(scope="module")
def client(database: Path) -> Iterator[Client]:
    with stdio_session(serve_command(database, "--max-budget", "2000", "--budget", "400")) as session:
        yield session


@pytest.fixture
def fresh(database: Path) -> Iterator[Client]:
    """A session of its own: nothing sent to it yet."""
    with stdio_session(serve_command(database, "--max-budget", "2000", "--budget", "400")) as session:
        yield session


# Only handles.md speaks of spooled artifacts, only walk.md's long middle section of gitignore
# patterns: 150 tokens keep the short one and shed the long one (retrieved, not sent).
SHEDS_WALK = {"question": "gitignore patterns spooled artifacts", "budget": 150}


def test_the_tools_are_search_and_read_with_bounded_schemas(client: Client) -> None:
    tools = {tool.name: tool for tool in client.tools()}
    assert sorted(tools) == ["read", "search"]
    search = tools["search"].input_schema
    assert search["required"] == ["question"] and search["additionalProperties"] is False
    assert search["properties"]["budget"] | {"description": ""} == {
        "type": "integer", "minimum": 1, "maximum": 2000, "default": 400, "description": "",
    }
    assert search["properties"]["tiers"]["items"]["enum"] == ["first-party", "third-party-public", "third-party-private"]
    assert tools["read"].input_schema["required"] == ["id"]


def test_an_answer_is_within_its_budget_and_its_envelopes_parse(client: Client) -> None:
    result = client.call("search", {"question": "what does a budget count", "budget": 300})
    assert not result.is_error
    text = client.text(result)
    assert counted(text) <= 300
    assert result.structured_content is not None and result.structured_content["tokens"] == counted(text)
    parsed = envelopes(text)
    kept = [row["id"] for row in result.structured_content["passages"] if row["kept"]]
    assert kept and [envelope.attribute("src") for envelope in parsed] == [
        row["source"] for row in result.structured_content["passages"] if row["kept"]
    ]


def test_a_passage_already_sent_is_named_not_sent_again(client: Client) -> None:
    first = client.call("search", {"question": "how does shedding drop passages", "budget": 2000})
    assert not first.is_error
    sent = {passage for call in client.receipts()["calls"] for passage in call["sent"]}
    second = client.call("search", {"question": "shedding quotas", "budget": 2000})
    assert not second.is_error and second.structured_content is not None
    repeated = {row["id"] for row in second.structured_content["repeated"]}
    assert repeated and repeated <= sent
    fresh = {row["id"] for row in second.structured_content["passages"]}
    assert not fresh & repeated
    text = client.text(second)
    assert "Already sent earlier in this session" in notes(text)
    assert all(envelope.body not in client.text(first) for envelope in envelopes(text))


def test_the_same_question_twice_is_a_tool_error_naming_what_it_sent(client: Client) -> None:
    first = client.call("search", {"question": "envelopes nonce", "budget": 500})
    again = client.call("search", {"question": "  Envelopes   NONCE ", "budget": 500})
    assert not first.is_error and again.is_error
    assert "already answered in this session" in client.text(again)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"question": "budgets", "budget": 10**5000}, "{'refused': 'a number of 5001 digits'}: must be an integer"),
        ({"question": "budgets", "budget": 2001}, "must be an integer from 1 to 2000"),
        ({"question": "budgets", "budget": -1}, "must be an integer from 1 to 2000"),
        ({"question": "budgets", "budget": 1.5}, "must be an integer"),
        ({"question": "budgets", "budget": True}, "must be an integer"),
        ({"question": 10**5000}, "must be a string"),
        ({"question": [[[[[[[[[["deep"]]]]]]]]]]}, "must be a string"),
        ({}, "'question' = None: is required"),
        ({"question": "budgets", "tiers": ["secret"]}, "each must be one of"),
        ({"question": "budgets", "tiers": "first-party"}, "must be a non-empty list"),
        ({"question": "budgets", "sudo": True}, "unknown argument"),
        ({"question": "x" * 100_000}, "longer than 2000 characters"),
        ({"question": "?!"}, "no word to search for"),
    ],
)
def test_hostile_arguments_are_tool_errors_and_the_server_keeps_serving(
    client: Client, arguments: dict[str, object], expected: str
) -> None:
    result = client.call("search", arguments)
    assert result.is_error, client.text(result)
    assert expected in client.text(result)
    assert len(client.tools()) == 2  # still serving


def test_json_nested_deeper_than_a_question_can_be_is_a_tool_error(client: Client) -> None:
    deep: object = "x"
    for _ in range(150):  # past the SDK's own JSON nesting limit
        deep = [deep]
    result = client.call("search", {"question": deep})
    assert result.is_error and "argument 'question' = [[[[...]]]]: must be a string, not an array" in client.text(result)
    assert len(client.tools()) == 2  # still serving


def test_an_unknown_tool_and_an_unknown_passage_are_tool_errors(client: Client) -> None:
    unknown = client.call("delete_everything", {})
    assert unknown.is_error and "its tools are search, read" in client.text(unknown)
    missing = client.call("read", {"id": "docs/nowhere.md#1"})
    assert missing.is_error and 'no passage "docs/nowhere.md#1"' in client.text(missing)


def test_read_returns_a_shed_passage_within_its_budget_then_names_it_as_sent(fresh: Client) -> None:
    answer = fresh.call("search", SHEDS_WALK)
    assert answer.structured_content is not None
    assert [(row["id"], row["kept"]) for row in answer.structured_content["passages"]] == [
        ("docs/handles.md#1", True), ("docs/walk.md#2", False),
    ] or [(row["id"], row["kept"]) for row in answer.structured_content["passages"]] == [
        ("docs/walk.md#2", False), ("docs/handles.md#1", True),
    ]
    read = fresh.call("read", {"id": "docs/walk.md#2", "budget": 400})
    assert not read.is_error and counted(fresh.text(read)) <= 400
    [envelope] = envelopes(fresh.text(read))
    assert envelope.attribute("src") == "docs/walk.md" and "gitignore patterns" in envelope.body
    again = fresh.call("read", {"id": "docs/walk.md#2", "budget": 500})
    assert not again.is_error and notes(fresh.text(again)).startswith("Already sent in answer")


def test_a_budget_too_small_for_one_passage_is_a_tool_error_naming_the_smallest(client: Client) -> None:
    smalls = [client.call("search", {"question": "spooled artifacts", "budget": budget}) for budget in (1, 50, 100)]
    for small in smalls:
        assert small.is_error and "cannot carry the safety directive and one passage" in client.text(small)
    small = smalls[-1]
    smallest = int(client.text(small).rsplit(" ", 1)[1])
    # Nothing was kept: the same question at that budget is answered, with the passage in it.
    answered = client.call("search", {"question": "spooled artifacts", "budget": smallest})
    assert not answered.is_error and answered.structured_content is not None
    assert [row["kept"] for row in answered.structured_content["passages"]] == [True]
    assert answered.structured_content["tokens"] <= smallest


def test_the_tools_name_the_corpus_not_a_path_on_disk(client: Client) -> None:
    described = " ".join(tool.description or "" for tool in client.tools())
    assert "the index 'index.db'" in described and "serve-stdio" not in described and "/" not in described


def test_read_brings_the_passages_around_one_in_document_order(fresh: Client) -> None:
    answer = fresh.call("search", SHEDS_WALK)
    assert answer.structured_content is not None
    [row] = [row for row in answer.structured_content["passages"] if not row["kept"]]
    read = fresh.call("read", {"id": row["id"], "budget": 1000})
    assert not read.is_error and read.structured_content is not None
    assert counted(fresh.text(read)) <= 1000
    bodies = [envelope.body for envelope in envelopes(fresh.text(read))]
    firsts = ("First the walker lists folders.", "Then gitignore patterns filter files.", "Last each parser yields sections.")
    assert len(bodies) == 3 and all(first in body for first, body in zip(firsts, bodies, strict=True))
    assert len(read.structured_content["surroundings"]) == 2 and row["id"] not in read.structured_content["surroundings"]


def test_the_receipts_resource_lists_every_call_of_the_session(client: Client) -> None:
    receipts = client.receipts()
    calls = receipts["calls"]
    assert calls and [call["call"] for call in calls] == list(range(1, len(calls) + 1))
    answered = [call for call in calls if call["outcome"] == "answered" and call["tool"] == "search"]
    assert all(call["receipt"]["definition_id"] == "fts5-search" for call in answered)
    assert receipts["session"]["tokens_used"] == sum(call["tokens"] for call in calls)
