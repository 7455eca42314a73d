"""The ``thrift-fp`` commands: index, ask, fit, count.

Every failure is an error value printed as one line on standard error, exit status 1
(2 for command-line syntax, as usual). ``ask`` prints the rendered context on standard
output and the kept/shed table on standard error, so the context can be piped on its own.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from returns.result import Failure, Result
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from thrift_fp.cli._errors import CliError, InvalidArgument
from thrift_fp.cli._paths import embedded_database, read_input
from thrift_fp.cli._postgres import DATABASE_URL_ENV, ask_postgres, index_postgres, is_database_url
from thrift_fp.cli._working_set_json import (
    WORKING_SET_SCHEMA,
    FitRequest,
    fitted_to_json,
    load_json,
    parse_fit_request,
)
from thrift_fp.records import TRUST_TIERS
from thrift_fp.sources import (
    DEFAULT_MAX_TOKENS,
    Assembled,
    CorruptDatabase,
    IndexReport,
    IndexSettingsMismatch,
    PathNotFound,
    assemble,
    embedded_corpus,
    index_paths,
)
from thrift_fp.thrift import ThriftOptions, subtract_to_fit
from thrift_fp.tokens import TokenCount, count_tokens, get_encoding

app = typer.Typer(
    name="thrift-fp",
    help="Index documents, then retrieve, fit and render the context an LLM agent gets to see.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)

# Below this many files to read, a progress bar is more flicker than help.
_PROGRESS_MIN_FILES = 20
_INDEX_DB_HELP = "The index file to create or update, or a postgresql:// URL."


def _fail(error: CliError) -> NoReturn:
    message = " ".join(error.message.split())
    typer.echo(f"thrift-fp: error: {message}", err=True)
    raise typer.Exit(1)


def _check_encoding(encoding: str) -> None:
    checked: Result[object, CliError] = get_encoding(encoding)
    if isinstance(checked, Failure):
        _fail(checked.failure())


class _ProgressBar:
    """A rich progress bar on standard error, started only for long runs on a terminal."""

    def __init__(self) -> None:
        self.progress: Progress | None = None
        self.task = TaskID(0)
        # Off a terminal (a log, a pipe) the transient bar would leave a bare newline behind.
        self.console = Console(stderr=True)

    def __call__(self, done: int, total: int, path: str) -> None:
        if self.progress is None and total >= _PROGRESS_MIN_FILES and self.console.is_terminal:
            self.progress = Progress(
                TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                console=self.console, transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("", total=total)
        if self.progress is not None:
            self.progress.update(self.task, completed=done, description=Path(path).name)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


@app.command("index")
def _index_command(
    paths: Annotated[
        list[Path], typer.Argument(metavar="PATH", help="Files and folders (.md, .txt, .jsonl, ... inside folders).")
    ],
    db: Annotated[str, typer.Option(metavar="PATH|URL", envvar=DATABASE_URL_ENV, help=_INDEX_DB_HELP)] = "thrift-fp.db",
    tier: Annotated[str, typer.Option(metavar="TIER", help="Trust tier of these documents.")] = "first-party",
    max_tokens: Annotated[int, typer.Option(metavar="N", help="Token bound of one passage.")] = DEFAULT_MAX_TOKENS,
    encoding: Annotated[str, typer.Option(metavar="NAME", help="Tokenizer for the passage bound.")] = "cl100k_base",
) -> None:
    """Build or update an index: only changed files are chunked again, deleted ones leave."""
    bar = _ProgressBar()
    if is_database_url(db):
        _index_postgres(db, paths, tier, max_tokens, encoding, bar)
        return
    try:
        indexed = index_paths(Path(db), paths, max_tokens=max_tokens, encoding=encoding, trust_tier=tier, progress=bar)
    finally:
        bar.stop()
    if isinstance(indexed, Failure):
        _fail(indexed.failure())
    typer.echo(_index_summary(indexed.unwrap()))


def _index_postgres(url: str, paths: list[Path], tier: str, max_tokens: int, encoding: str, bar: _ProgressBar) -> None:
    try:
        indexed = index_postgres(url, paths, trust_tier=tier, max_tokens=max_tokens, encoding=encoding, progress=bar)
    finally:
        bar.stop()
    if isinstance(indexed, Failure):
        _fail(indexed.failure())
    summary, skipped = indexed.unwrap()
    for line in skipped:
        typer.echo(f"thrift-fp: {' '.join(line.split())}", err=True)
    typer.echo(summary)


def _index_summary(report: IndexReport) -> str:
    files = len(report.chunked) + len(report.touched) + len(report.unchanged)
    return (
        f"indexed {files} files into {report.database}: {len(report.chunked)} chunked, "
        f"{len(report.touched)} touched, {len(report.unchanged)} unchanged, {len(report.removed)} removed; "
        f"{report.passages} passages"
    )


_DB_HELP = (
    "Index to search (default: the embedded corpus, indexed once into the user cache folder;"
    " THRIFT_FP_CACHE_DIR overrides the folder), or a postgresql:// URL."
)
_WINDOW_HELP = "Context window in tokens (35% is reserved for the answer)."


@app.command("ask")
def _ask_command(
    query: Annotated[
        list[str], typer.Argument(metavar="QUERY", help="One or more queries, each run through the retrieval lifecycle.")
    ],
    db: Annotated[str | None, typer.Option(metavar="PATH|URL", envvar=DATABASE_URL_ENV, help=_DB_HELP)] = None,
    window: Annotated[int | None, typer.Option(metavar="N", help=_WINDOW_HELP)] = None,
    budget: Annotated[int | None, typer.Option(metavar="N", help="Token budget of the rendered context itself.")] = None,
    encoding: Annotated[str, typer.Option(metavar="NAME", help="Tokenizer used to fit and count.")] = "cl100k_base",
    tier: Annotated[list[str] | None, typer.Option(metavar="TIER", help="Only these trust tiers (repeatable).")] = None,
    max_results: Annotated[int, typer.Option(metavar="N", help="Passages retrieved per query.")] = 8,
    max_queries: Annotated[int, typer.Option(metavar="N", help="Quota: queries accepted per request.")] = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead.")] = False,
) -> None:
    """Retrieve, fit and render: print the context, and what was kept and shed."""
    window_tokens, options = _window(window, budget, encoding)
    _check_encoding(encoding)
    for option, count in (("--max-results", max_results), ("--max-queries", max_queries)):
        if count < 0:
            _fail(InvalidArgument(option, count, "must not be negative"))
    done: Result[Assembled, CliError]
    if db is not None and is_database_url(db):
        done = ask_postgres(
            db, query, context_window=window_tokens, options=options,
            max_results=max_results, max_queries=max_queries, tiers=tier if tier else TRUST_TIERS,
        )
    else:
        database = Path(db) if db is not None else _embedded()
        if db is not None and not database.exists():
            _fail(PathNotFound(db))
        done = assemble(
            query, database=database, context_window=window_tokens, options=options,
            max_results=max_results, max_queries=max_queries,
            tiers=tier if tier else TRUST_TIERS,
        )
    if isinstance(done, Failure):
        _fail(done.failure())
    if as_json:
        typer.echo(json.dumps(_ask_json(done.unwrap(), encoding), indent=2))
    else:
        typer.echo(done.unwrap().text)
        Console(stderr=True).print(_decision_table(done.unwrap(), encoding))


def _window(window: int | None, budget: int | None, encoding: str) -> tuple[int, ThriftOptions]:
    if window is not None and budget is not None:
        _fail(InvalidArgument("--budget", budget, "give either --budget or --window, not both"))
    for option, value in (("--window", window), ("--budget", budget)):
        if value is not None and value < 0:
            _fail(InvalidArgument(option, value, "must not be negative"))
    if budget is not None:
        return budget, ThriftOptions(output_reserve=0, encoding=encoding)
    return (window if window is not None else 4096), ThriftOptions(encoding=encoding)


def _embedded() -> Path:
    database = embedded_database()
    built = index_paths(database, [embedded_corpus()])
    if isinstance(built, Failure) and isinstance(built.failure(), CorruptDatabase | IndexSettingsMismatch):
        # It is only a cache (left by another version, or damaged): build it afresh.
        try:
            database.unlink(missing_ok=True)
        except OSError:
            _fail(built.failure())  # not a file we can remove (a folder): say what is wrong with it
        built = index_paths(database, [embedded_corpus()])
    if isinstance(built, Failure):
        _fail(built.failure())
    return database


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
            {"id": d.record.id, "source": d.record.source, "trust_tier": d.record.trust_tier,
             "score": d.record.score, "tokens": d.tokens, "kept": d.kept, "reason": d.reason}
            for d in done.decisions
        ],
        "trace": done.trace.as_dict(),
    }


def _decision_table(done: Assembled, encoding: str) -> Table:
    kept = sum(d.kept for d in done.decisions)
    table = Table(
        title=f"kept {kept} of {len(done.decisions)} passages",
        caption=f"context: {done.tokens} {encoding} tokens of a {done.budget}-token budget",
    )
    table.add_column("")
    table.add_column("passage", overflow="fold")
    table.add_column("score", justify="right")
    table.add_column("tokens", justify="right")
    table.add_column("tier")
    table.add_column("reason")
    for d in done.decisions:
        table.add_row(
            "[green]kept[/]" if d.kept else "[red]shed[/]", d.record.id,
            f"{d.record.score or 0:.3f}", str(d.tokens), d.record.trust_tier, d.reason,
        )
    return table


@app.command("fit")
def _fit_command(
    file: Annotated[str, typer.Argument(metavar="FILE|-", help="Working-set JSON file, or - for standard input.")],
    window: Annotated[
        int | None, typer.Option(metavar="N", help="Context window (overrides the file's context_window).")
    ] = None,
    budget: Annotated[
        int | None, typer.Option(metavar="N", help="Budget with no output reserve (window = budget).")
    ] = None,
    encoding: Annotated[
        str | None, typer.Option(metavar="NAME", help="Tokenizer (overrides options.encoding).")
    ] = None,
) -> None:
    """Fit a working set (JSON; `thrift-fp schema` prints its JSON Schema); print it and the trace."""
    origin = "standard input" if file == "-" else file
    text: Result[str, CliError] = read_input(file)
    loaded: Result[object, CliError] = text.bind(lambda content: load_json(content, origin))
    parsed: Result[FitRequest, CliError] = loaded.bind(lambda raw: parse_fit_request(raw, origin))
    if isinstance(parsed, Failure):
        _fail(parsed.failure())
    request = parsed.unwrap()
    options = request.options if encoding is None else dataclasses.replace(request.options, encoding=encoding)
    _check_encoding(options.encoding)
    chosen = window if window is not None else budget if budget is not None else request.context_window
    if chosen is None:
        _fail(InvalidArgument("context_window", None, "give --window, --budget or context_window in the file"))
    if window is not None and budget is not None:
        _fail(InvalidArgument("--budget", budget, "give either --budget or --window, not both"))
    if chosen < 0:
        _fail(InvalidArgument("--budget" if budget is not None else "--window", chosen, "must not be negative"))
    if budget is not None:
        options = dataclasses.replace(options, output_reserve=0)
    fitted = subtract_to_fit(request.working_set, chosen, request.relevant_tool_names, options)
    if isinstance(fitted, Failure):
        _fail(fitted.failure())
    typer.echo(json.dumps(fitted_to_json(fitted.unwrap()), indent=2, ensure_ascii=False))


@app.command("schema")
def _schema_command() -> None:
    """Print the JSON Schema of the working-set format that `fit` reads."""
    typer.echo(WORKING_SET_SCHEMA.read_text(encoding="utf-8"), nl=False)


@app.command("count")
def _count_command(
    file: Annotated[str, typer.Argument(metavar="FILE|-", help="A text file, or - for standard input.")],
    encoding: Annotated[str, typer.Option(metavar="NAME", help="Tokenizer.")] = "cl100k_base",
    as_json: Annotated[bool, typer.Option("--json", help="Print tokens, encoding and precision as JSON.")] = False,
) -> None:
    """Count the tokens of a file (or standard input)."""
    _check_encoding(encoding)
    counted: Result[TokenCount, CliError] = read_input(file).bind(lambda text: count_tokens(text, encoding))
    if isinstance(counted, Failure):
        _fail(counted.failure())
    result = counted.unwrap()
    typer.echo(
        json.dumps({"tokens": result.tokens, "encoding": result.encoding, "precision": result.precision})
        if as_json
        else str(result.tokens)
    )
