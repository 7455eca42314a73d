"""``thrift-fp serve``: the MCP server (the ``[mcp]`` extra, imported only when this command runs)."""

from __future__ import annotations

from typing import Annotated, Final

import typer

from thrift_fp.cli._exits import check_encoding, fail
from thrift_fp.cli._options import DATABASE_URL_ENV, DB_HELP, TierOption, tiers_of


# thrift_fp.serve's defaults, repeated so that --help needs no library (nor SDK) import;
# tests/test_serve_cli.py pins them to thrift_fp.serve.ServeSettings.
_SERVE_DEFAULTS: Final[dict[str, int]] = {
    "budget": 1024, "max_budget": 8192, "max_calls": 64, "max_session_tokens": 65536, "max_request_bytes": 4 * 1024 * 1024,
}
_IDLE_TIMEOUT: Final = 1800.0


def serve_command(
    db: Annotated[str | None, typer.Option(metavar="PATH|URL", envvar=DATABASE_URL_ENV, help=DB_HELP)] = None,
    http: Annotated[
        str | None,
        typer.Option(metavar="HOST:PORT", help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
                     "(a loopback host; port 0 picks a free one)."),
    ] = None,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Allow a non-loopback --http host (the server has no authentication).")
    ] = False,
    budget: Annotated[
        int, typer.Option(metavar="N", help="A call's token budget when the client names none.")
    ] = _SERVE_DEFAULTS["budget"],
    max_budget: Annotated[
        int, typer.Option(metavar="N", help="Ceiling on the budget a client may ask for.")
    ] = _SERVE_DEFAULTS["max_budget"],
    max_calls: Annotated[int, typer.Option(metavar="N", help="Quota: calls per session.")] = _SERVE_DEFAULTS["max_calls"],
    max_session_tokens: Annotated[
        int, typer.Option(metavar="N", help="Quota: answer tokens per session.")
    ] = _SERVE_DEFAULTS["max_session_tokens"],
    max_results: Annotated[int, typer.Option(metavar="N", help="Passages retrieved per question.")] = 8,
    encoding: Annotated[str, typer.Option(metavar="NAME", help="Tokenizer budgets are counted in.")] = "cl100k_base",
    tier: Annotated[
        list[TierOption] | None, typer.Option(help="Serve only these trust tiers (repeatable).  [default: all]")
    ] = None,
    lexical: Annotated[
        bool,
        typer.Option("--lexical", help="Rank lexically even where the index holds vectors (default: hybrid there)."),
    ] = False,
    session_idle_timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="With --http: end a session idle this long, and free its ledger.")
    ] = _IDLE_TIMEOUT,
    max_request_bytes: Annotated[
        int, typer.Option(metavar="N", help="With --http: refuse a request body larger than this while it streams in.")
    ] = _SERVE_DEFAULTS["max_request_bytes"],
) -> None:
    """Serve `search` and `read` over MCP: budgeted, enveloped answers, a quota and de-duplication per session."""
    from thrift_fp.cli._paths import chosen_corpus, embedded_index  # noqa: PLC0415

    # The handshake module itself, not the serve face: the face's checked wrapper would load
    # beartype (about 50 ms) before the answer it is there to hasten.
    from thrift_fp.serve._handshake import answer_first_frame  # noqa: PLC0415

    corpus = chosen_corpus(db)
    database = corpus.database if corpus.chosen != "embedded" else None
    settings = {
        "default_budget": budget, "max_budget": max_budget, "max_calls": max_calls,
        "max_session_tokens": max_session_tokens, "max_results": max_results, "encoding": encoding,
        "tiers": tiers_of(tier), "session_idle_timeout": session_idle_timeout, "max_request_bytes": max_request_bytes,
    }
    # On stdio a client's first frame is `initialize`, answered before the SDK loads (~0.6 s).
    first, handshake = answer_first_frame(database, settings) if http is None else (b"", None)
    try:
        from thrift_fp.serve._command import serve_command as serve  # noqa: PLC0415 - the SDK loads only for serve
    except ImportError as exc:
        typer.echo(f"thrift-fp: error: serve needs the mcp extra ({exc}): pip install 'thrift_fp[mcp]'", err=True)
        raise typer.Exit(1) from None
    from returns.result import Failure  # noqa: PLC0415

    check_encoding(encoding)
    if corpus.chosen != "given" and http is None:
        # Over HTTP the first line on standard error is the server's address, which scripts
        # (and the tests) read: the index is named only on stdio, as index names it, when found.
        typer.echo(f"thrift-fp: serving {corpus.describe()}", err=True)
    served = serve(
        database, embedded_index, http=http, allow_remote=allow_remote, default_budget=budget, max_budget=max_budget,
        max_calls=max_calls, max_session_tokens=max_session_tokens, max_results=max_results, encoding=encoding,
        tiers=tiers_of(tier), lexical=lexical, session_idle_timeout=session_idle_timeout,
        max_request_bytes=max_request_bytes, first=first, handshake=handshake,
    )
    if isinstance(served, Failure):
        fail(served.failure())

