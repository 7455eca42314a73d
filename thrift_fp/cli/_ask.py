"""``thrift-fp ask``: retrieve, fit and render; the context on standard output, kept and shed on standard error."""

from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Final

import typer

from thrift_fp.cli._annotations import lazy_names
from thrift_fp.cli._exits import DOES_NOT_FIT, check_encoding, fail, usage_error
from thrift_fp.cli._options import DATABASE_URL_ENV, DB_HELP, DEFAULT_WINDOW, TIER_CHOICES, TierOption, tiers_of

if TYPE_CHECKING:  # for mypy; at run time __getattr__ below binds them on first use
    from returns.result import Result
    from rich.table import Table

    from thrift_fp.cli._errors import BudgetTooSmall, CliError
    from thrift_fp.cli._paths import Corpus
    from thrift_fp.sources.dense import EmbedAhead
    from thrift_fp.sources import Assembled, Ranking
    from thrift_fp.thrift import ThriftOptions

# Names the annotations use, imported on first use: beartype (under the test suite) resolves
# such an annotation by getattr on this module, which reaches __getattr__.
__getattr__ = lazy_names(__name__, {
    "Result": "returns.result",
    "Table": "rich.table",
    "CliError": "thrift_fp.cli._errors",
    "BudgetTooSmall": "thrift_fp.cli._errors",
    "Corpus": "thrift_fp.cli._paths",
    "EmbedAhead": "thrift_fp.sources.dense",
    "Assembled": "thrift_fp.sources",
    "Ranking": "thrift_fp.sources",
    "ThriftOptions": "thrift_fp.thrift",
})

_NO_MATCH: Final = "no passage matched; the context is empty (exit status 0)"
# The default is written out: --window's own default is None (meaning "not given", for --budget).
_WINDOW_HELP = f"Context window in tokens (35% is reserved for the answer).  [default: {DEFAULT_WINDOW}]"


def ask_command(
    words: Annotated[
        list[str] | None,
        typer.Argument(metavar="QUESTION", hidden=True),  # described in the docstring, without a Python type
    ] = None,
    queries: Annotated[
        list[str] | None,
        typer.Option("--query", "-q", metavar="TEXT", help="A further query (repeatable): one retrieval each."),
    ] = None,
    db: Annotated[str | None, typer.Option(metavar="PATH|URL", envvar=DATABASE_URL_ENV, help=DB_HELP)] = None,
    window: Annotated[int | None, typer.Option(metavar="N", min=0, help=_WINDOW_HELP)] = None,
    budget: Annotated[
        int | None, typer.Option(metavar="N", min=0, help="Token budget of the rendered context itself.")
    ] = None,
    encoding: Annotated[str, typer.Option(metavar="NAME", help="Tokenizer used to fit and count.")] = "cl100k_base",
    tier: Annotated[
        list[TierOption] | None,
        typer.Option(metavar="TIER", help=f"Only this trust tier (repeatable): {', '.join(TIER_CHOICES)}.  [default: all]"),
    ] = None,
    max_results: Annotated[int, typer.Option(metavar="N", min=0, help="Passages retrieved per query.")] = 8,
    max_queries: Annotated[int, typer.Option(metavar="N", min=0, help="Quota: queries accepted per request.")] = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead.")] = False,
    report: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="Also write the fit as one self-contained HTML page (no network)."),
    ] = None,
    lexical: Annotated[
        bool,
        typer.Option("--lexical", help="Rank lexically even where the index holds vectors (default: hybrid there)."),
    ] = False,
) -> None:
    """Retrieve, fit and render: print the context, and what was kept and shed.

    QUESTION... is the question: all its words form one query (quotes not needed). Give a
    question, one or more --query, or both.

    When no passage matches, the context is empty: a line on standard error says so and the exit
    status is 0 (nothing went wrong; there is nothing to show).
    """
    from thrift_fp.cli._paths import chosen_corpus, embedded_index  # noqa: PLC0415 - the library loads on use

    asked = ([" ".join(words)] if words else []) + list(queries or ())
    if not asked:
        usage_error("give a question, or one or more --query")
    corpus = chosen_corpus(db)
    if not lexical:
        from thrift_fp.cli._paths import cache_dir  # noqa: PLC0415
        from thrift_fp.sources.dense import use_model_cache  # noqa: PLC0415 - the face only (lazy): no onnxruntime

        # A question embedded here (no child, or several queries) loads the model prepared for one
        # question from the command's cache folder too.
        use_model_cache(cache_dir)
    # First, before the library's layers load: the question is embedded meanwhile, by a second
    # process where the index holds the default model's vectors (_ahead), else the question's
    # model loads on a second thread (_warm).
    held = _held_index(corpus, lexical)
    with _ahead(held, asked, tiers_of(tier), max_results) as ahead:
        model_loaded = _warm(held, len(asked) == 1) if ahead is None else (lambda: None)

        from returns.result import Failure  # noqa: PLC0415 - the library loads on use
        from rich.console import Console  # noqa: PLC0415 - rich loads only for a command that draws

        from thrift_fp.cli._errors import InvalidArgument  # noqa: PLC0415
        from thrift_fp.sources.postgres import is_database_url  # noqa: PLC0415 - the face only (lazy)
        from thrift_fp.sources import PathNotFound  # noqa: PLC0415
        from thrift_fp.sources.sqlite import assemble  # noqa: PLC0415
        from thrift_fp.sources.dense import OneQuestion  # noqa: PLC0415

        window_tokens, options = _window(window, budget, encoding)
        check_encoding(encoding)
        done: Result[Assembled, CliError]
        database: Path | None = None  # the index file searched (None: a PostgreSQL URL)
        db = corpus.database if corpus.chosen != "embedded" else None
        if db is not None and is_database_url(db):
            # Only for a URL: its module imports the document readers (for `index`), which a
            # search of an SQLite index never uses (~10 ms).
            from thrift_fp.cli._postgres import ask_postgres  # noqa: PLC0415

            done = ask_postgres(
                db, asked, context_window=window_tokens, options=options,
                max_results=max_results, max_queries=max_queries, tiers=tiers_of(tier), dense=not lexical,
            )
        else:
            database = Path(db) if db is not None else embedded_index()
            if db is not None and not database.exists():
                fail(PathNotFound(db))
            model_loaded()  # the search must find the model whole, or not loaded at all
            # One question embedded, then the process exits: the model's session for one question
            # (loaded from the copy prepared in the cache folder), kept apart from the one an
            # index run or `serve` builds (issue 35); for several queries the usual one. The
            # question's vector and dense candidates made ahead where they were (`_ahead`); the
            # search makes them itself where they were not.
            prefetched = ahead.result() if ahead is not None else None
            if ahead is not None and (prefetched is None or prefetched.scored is None):
                # The child did not rank the index: its vectors loaded here, for the search.
                from thrift_fp.sources.sqlite import warm_matrix  # noqa: PLC0415

                warm_matrix(database)
            done = assemble(
                asked, database=database, context_window=window_tokens, options=options,
                max_results=max_results, max_queries=max_queries, tiers=tiers_of(tier),
                dense=False if lexical else (prefetched or (OneQuestion() if len(asked) == 1 else True)),
            )
        if isinstance(done, Failure):
            fail(_plain(done.failure()))
        if report is not None:
            _write_report(report, done.unwrap())
        matched = bool(done.unwrap().decisions)
        too_small = _too_small(done.unwrap(), window_tokens if budget is None else None, encoding)
        if too_small is not None:
            # Passages matched but none fits beside the directive: an empty context is no answer.
            if not as_json:
                Console(stderr=True).print(_decision_table(done.unwrap(), encoding))
            fail(too_small, DOES_NOT_FIT)
        if as_json:
            # The ranking the answer ran with: hybrid where the index holds the model's vectors.
            shown = _ask_json(done.unwrap(), encoding) | {"corpus": _corpus_json(corpus)} | done.unwrap().ranking.as_json()
            typer.echo(json.dumps(shown, indent=2))
        else:
            typer.echo(f"thrift-fp: answered from {corpus.describe()}", err=True)
            typer.echo(f"thrift-fp: {_ranking_line(done.unwrap().ranking)}", err=True)
        if matched and not as_json:
            typer.echo(done.unwrap().text)
            Console(stderr=True).print(_decision_table(done.unwrap(), encoding))
        if not matched:
            typer.echo(f"thrift-fp: {_NO_MATCH}", err=True)


def _held_index(corpus: Corpus, lexical: bool) -> tuple[Path, str] | None:
    """The SQLite index file ``corpus`` names and the model its vectors are of (finished or
    pending), read once before the library loads; ``None`` when the search ranks lexically anyway
    (``--lexical``, a PostgreSQL URL, an index without vectors)."""
    from thrift_fp.cli._paths import embedded_database  # noqa: PLC0415
    from thrift_fp.sources.postgres import is_database_url  # noqa: PLC0415 - the face only (lazy)
    from thrift_fp.sources.sqlite import held_model  # noqa: PLC0415 - the standard library only

    if lexical or is_database_url(corpus.database):
        return None
    database = Path(corpus.database) if corpus.chosen != "embedded" else embedded_database()
    model = held_model(database)
    return None if model is None else (database, model)


@contextmanager
def _ahead(
    held: tuple[Path, str] | None, asked: list[str], tiers: tuple[str, ...], max_results: int
) -> Iterator[EmbedAhead | None]:
    """The one question ``asked`` being embedded, and the index ranked by it densely, in a second
    process (`thrift_fp.sources.sqlite.ranked_ahead`), for an SQLite index that holds the default
    model's vectors and may rank hybrid (``None`` otherwise); stopped on leaving, if still running."""
    ahead = _embed_ahead(held, asked, tiers, max_results)
    try:
        yield ahead
    finally:
        if ahead is not None:
            ahead.close()


def _embed_ahead(
    held: tuple[Path, str] | None, asked: list[str], tiers: tuple[str, ...], max_results: int
) -> EmbedAhead | None:
    if held is None or len(asked) != 1:
        return None
    from thrift_fp._query import normal_query  # noqa: PLC0415 - not the retrieval layers: they load meanwhile
    from thrift_fp.cli._paths import cache_dir  # noqa: PLC0415
    from thrift_fp.sources.dense import DEFAULT_MODEL_ID, missing_runtime  # noqa: PLC0415
    from thrift_fp.sources.sqlite import ranked_ahead  # noqa: PLC0415

    database, model = held
    if model != DEFAULT_MODEL_ID or missing_runtime() is not None:
        return None
    # As the retrieval normalises it (`prepare_query`): the text the search embeds; searched as
    # `assemble` will (its tiers and hits); the model prepared for one question in the command's
    # cache folder (`_prepared`).
    return ranked_ahead(database, normal_query(asked[0]), tiers, max_results, cache_dir())


def _warm(held: tuple[Path, str] | None, one_question: bool) -> Callable[[], None]:
    """Start loading the question's model for an SQLite index that may rank hybrid
    (`thrift_fp.cli._warm`; its session for ``one_question``, as the search will ask for it); the
    function returned waits for it (nothing to wait for otherwise)."""
    from thrift_fp.cli._warm import warm_model  # noqa: PLC0415

    if held is None:
        # No vectors (nor a run making them), or a lexical search: no model to load. A thread
        # would only import the search's layers beside this one, holding their import locks while
        # it waits for the GIL (~30-40 ms of a lexical `ask`: BENCHMARKS.md §21, seventh pass).
        return lambda: None
    return warm_model(held[0], one_question)


def _plain(error: CliError) -> CliError:
    """``error`` as ``ask`` shows it: a question the index refused, in the index's own words,
    without the Python exception its check raised (``assemble`` keeps it, as ``cause``).

    >>> from thrift_fp.retrieval import InvalidQuery
    >>> _plain(InvalidQuery("fts5-search", "ValueError: no word", ValueError("the query '?!' has no word"))).message
    "question: the query '?!' has no word"
    """
    from thrift_fp.cli._errors import InvalidArgument  # noqa: PLC0415 - the library loads on use
    from thrift_fp.retrieval import InvalidQuery  # noqa: PLC0415

    if not isinstance(error, InvalidQuery) or not isinstance(error.cause, Exception):
        return error
    try:
        reason = " ".join(str(error.cause).split())
    except Exception:  # noqa: BLE001 - an exception's __str__ may raise
        reason = ""
    return InvalidArgument("question", None, reason or "the index refused it")


def _too_small(done: Assembled, window: int | None, encoding: str) -> BudgetTooSmall | None:
    """The error of a budget too small for the directive and one of the passages that matched
    (``None`` when one was kept, or none matched), naming the smallest budget, and the smallest
    ``--window``, that would answer."""
    from thrift_fp.cli._errors import BudgetTooSmall  # noqa: PLC0415 - the library loads on use
    from thrift_fp.render._smallest import smallest_budget  # noqa: PLC0415
    from thrift_fp.sources.contract import ANSWER_FIELDS  # noqa: PLC0415
    from thrift_fp.thrift._budget import resolve_budget  # noqa: PLC0415

    if not done.decisions or any(decision.kept for decision in done.decisions):
        return None
    # Priced as `assemble` renders them (each passage shows its source, heading, score and date).
    smallest = smallest_budget([decision.record for decision in done.decisions], encoding, ANSWER_FIELDS)
    if window is None:
        return BudgetTooSmall(done.budget, smallest, None, None)
    # The smallest window whose budget (after the answer's reserve) reaches `smallest`.
    wide = max(window, smallest)
    while resolve_budget(wide).unwrap().budget < smallest:
        wide += 1
    return BudgetTooSmall(done.budget, smallest, window, wide)


def _ranking_line(ranking: Ranking) -> str:
    """How ``ask`` names the ranking it ran on standard error.

    >>> from thrift_fp.sources import Ranking
    >>> _ranking_line(Ranking("lexical", None, "dense ranking is turned off"))
    'ranked lexically (dense ranking is turned off)'
    """
    if ranking.kind == "hybrid":
        return f"ranked hybrid (lexical fused with {ranking.model})"
    if ranking.incomplete is not None:
        # An index whose embedding run has not finished answers lexically meanwhile.
        return f"note: answered lexically: {ranking.reason}"
    return f"ranked lexically ({ranking.reason})"


def _corpus_json(corpus: Corpus) -> dict[str, str]:
    from thrift_fp.sources.postgres import is_database_url  # noqa: PLC0415 - the library loads on use

    # A PostgreSQL URL (or key=value string) is not repeated: it may hold a password.
    shown = "postgresql" if is_database_url(corpus.database) else corpus.database
    return {"database": shown, "chosen": corpus.chosen}


def _write_report(path: Path, done: Assembled) -> None:
    """The fit's picture (`thrift_fp.thrift.fit_report_html`) in ``path``; a path that cannot be
    written is an error naming it, before anything is printed."""
    from thrift_fp.cli._errors import InvalidArgument  # noqa: PLC0415 - the library loads on use

    try:
        path.write_text(done._repr_html_(), encoding="utf-8")
    except OSError as error:
        fail(InvalidArgument("--report", str(path), f"cannot be written: {error.strerror or error}"))


def _window(window: int | None, budget: int | None, encoding: str) -> tuple[int, ThriftOptions]:
    from thrift_fp.thrift import ThriftOptions  # noqa: PLC0415 - the library loads on use

    if window is not None and budget is not None:
        usage_error("give either --budget or --window, not both")
    # ask refills: a shed passage that still fits what shedding left comes back.
    if budget is not None:
        return budget, ThriftOptions(output_reserve=0, encoding=encoding, refill=True)
    return (window if window is not None else DEFAULT_WINDOW), ThriftOptions(encoding=encoding, refill=True)


def _ask_json(done: Assembled, encoding: str) -> dict[str, object]:
    return {
        "context": done.text,
        "tokens": done.tokens,
        "budget": done.budget,
        "encoding": encoding,
        "receipts": [
            {"definition_id": r.definition_id, "sequence": r.sequence, "key": r.key, "query": r.query,
             "sources": [hit.passage_id for hit in r.sources],
             "started_at": r.started_at.isoformat(), "finished_at": r.finished_at.isoformat()}
            for r in done.receipts
        ],
        "decisions": [
            {"id": d.record.id, "source": d.record.source, "heading": d.record.heading,
             "trust_tier": d.record.trust_tier, "score": d.record.score, "tokens": d.tokens, "kept": d.kept,
             "reason": d.reason}
            for d in done.decisions
        ],
        "trace": done.trace.as_dict(),
    }


def _decision_table(done: Assembled, encoding: str) -> Table:
    """Each passage's rendered cost (its body + its envelope = cost); the footer adds the kept rows'
    costs and the fixed overhead (the directive and block tags) up to the context's exact total."""
    from rich.table import Table  # noqa: PLC0415 - rich loads only for a command that draws
    from rich.text import Text  # noqa: PLC0415

    from thrift_fp._shown import quote_untrusted  # noqa: PLC0415 - the library loads on use

    kept = [d for d in done.decisions if d.kept]
    rows_total = sum(d.rendered or 0 for d in kept)
    table = Table(
        title=f"kept {len(kept)} of {len(done.decisions)} passages",
        caption=(
            f"context: {done.tokens} {encoding} tokens of a {done.budget}-token budget;"
            " fixed: the directive and block tags"
        ),
        show_footer=True,
        collapse_padding=True,
        pad_edge=False,
    )
    table.add_column("")
    table.add_column("passage", "kept\n+ fixed\n= context", overflow="fold")
    table.add_column("score", justify="right")
    table.add_column("body", justify="right")
    table.add_column("env", justify="right")
    table.add_column("cost", f"{rows_total}\n{done.fixed}\n{rows_total + done.fixed}", justify="right")
    table.add_column("tier")
    table.add_column("reason")
    for d in done.decisions:
        envelope, rendered = ("-", "-") if d.rendered is None else (str(d.rendered - d.tokens), str(d.rendered))
        # An id is a name a document chose: data, never console markup; quoted when it needs it.
        shown_id = d.record.id if quote_untrusted(d.record.id) == f'"{d.record.id}"' else quote_untrusted(d.record.id)
        table.add_row(
            "[green]kept[/]" if d.kept else "[red]shed[/]", Text(shown_id),
            f"{d.record.score or 0:.3f}", str(d.tokens), envelope, rendered, d.record.trust_tier, d.reason,
        )
    return table
