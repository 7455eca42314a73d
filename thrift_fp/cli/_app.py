"""The ``thrift-fp`` commands: index, ask, serve, fit, count.

Every failure is an error value printed as one line on standard error, exit status 1
(2 for command-line syntax, as usual). ``fit`` exits 3 when the working set does not fit
(its output is still printed). ``ask`` prints the rendered context on standard output and the
kept/shed table on standard error, so the context can be piped on its own.

The library is imported inside the commands, not here: ``thrift-fp --help`` and
``--version`` then load only typer (docs/surface.md, "Cold start"). For the same reason rich is
imported only where a command draws a table or a progress bar, ``returns`` only inside the
commands, and the help is click's plain formatting (``rich_markup_mode=None``): typer's rich
help rendering cost about as much again as the whole import.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final, Literal, NoReturn, get_args

import typer

from thrift_fp.cli._words import plural

if TYPE_CHECKING:  # for mypy; at run time __getattr__ below binds them on first use
    from returns.result import Result
    from rich.progress import Progress, TaskID
    from rich.table import Table

    from thrift_fp._errors import ThriftFpError
    from thrift_fp.cli._errors import CliError
    from thrift_fp.cli._paths import Corpus
    from thrift_fp.sources import Assembled, IndexReport, Ranking, SkippedFile
    from thrift_fp.thrift import ThriftOptions

# Names the helpers' annotations use, imported on first use: beartype (under the test suite)
# resolves such an annotation by getattr on this module, which reaches __getattr__.
_ANNOTATION_HOMES: Final = {
    "Result": "returns.result",
    "Progress": "rich.progress",
    "TaskID": "rich.progress",
    "Table": "rich.table",
    "ThriftFpError": "thrift_fp._errors",
    "CliError": "thrift_fp.cli._errors",
    "Corpus": "thrift_fp.cli._paths",
    "Assembled": "thrift_fp.sources",
    "IndexReport": "thrift_fp.sources",
    "Ranking": "thrift_fp.sources",
    "SkippedFile": "thrift_fp.sources",
    "ThriftOptions": "thrift_fp.thrift",
}

# The library's own defaults, repeated so that --help needs no library import;
# tests/test_cli_surface.py pins them to thrift_fp.records.TRUST_TIERS and
# thrift_fp.sources.DEFAULT_MAX_TOKENS.
Tier = Literal["first-party", "third-party-public", "third-party-private"]
TIER_CHOICES: Final[tuple[Tier, ...]] = get_args(Tier)
DEFAULT_MAX_TOKENS: Final = 256
DEFAULT_WINDOW: Final = 4096
# `fit` when the protected floor alone exceeds the budget (``"fits": false``).
EXIT_DOES_NOT_FIT: Final = 3
# thrift_fp.cli._postgres.DATABASE_URL_ENV, repeated: that module loads the library.
DATABASE_URL_ENV: Final = "THRIFT_FP_DATABASE_URL"


class TierOption(enum.StrEnum):
    """A repeatable ``--tier`` (typer lists an enum's choices; it cannot list a list of Literal)."""

    FIRST_PARTY = "first-party"
    THIRD_PARTY_PUBLIC = "third-party-public"
    THIRD_PARTY_PRIVATE = "third-party-private"


def _tiers(chosen: list[TierOption] | None) -> tuple[Tier, ...]:
    # A filter of the canonical tuple: typed as the library's tiers, in its order, no repeats.
    return tuple(tier for tier in TIER_CHOICES if not chosen or tier in chosen)


def __getattr__(name: str) -> object:
    home = _ANNOTATION_HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


app = typer.Typer(
    name="thrift-fp",
    help="Index documents, then retrieve, fit and render the context an LLM agent gets to see.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Plain click help: rich's rendering (and its import) was most of --help's time.
    rich_markup_mode=None,
    context_settings={
        # Up to 120 columns on a wide terminal (click's default stops at 80 and cuts command summaries).
        "max_content_width": 120,
        # `thrift-fp ask --help` gives the group neither --help nor --version, and a flag not given
        # has no value (None); typer coerces a non-bool value through pydantic, whose import
        # doubled every subcommand's --help time. Bool defaults (click's documented default_map)
        # skip that coercion: typer leaves a bool-annotated flag that is already a bool alone.
        "default_map": {"help": False, "version": False, "verbose": False},
    },
    epilog=(
        "Exit status: 0 done, 1 an error (one line on standard error), 2 a command-line syntax error,"
        " 3 `fit` found that the working set does not fit (its result is still printed)."
    ),
)


def _print_version(requested: bool) -> bool:
    if requested:
        # The package's own constant (pyproject.toml's version is read from it): importing
        # importlib.metadata to ask the installed distribution cost a third of --version's start.
        from thrift_fp import __version__  # noqa: PLC0415

        typer.echo(f"thrift-fp {__version__}")
        raise typer.Exit(0)
    return requested  # a callback's result is the option's value


@app.callback()
def _main(
    # A plain bool, not bool | None, and False in the app's default_map (see there): typer then
    # skips its pydantic coercion of this flag.
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Log more: the database driver's warnings, progress and informational records."
        ),
    ] = False,
) -> None:
    """The options before any command (typer shows the app's help and epilog instead)."""
    # typer.main's own import of its vendored click's get_current_context (not re-exported).
    from typer.main import get_current_context  # type: ignore[attr-defined]  # noqa: PLC0415

    from thrift_fp.cli._logging import configure_logging  # noqa: PLC0415 - logging only for a command

    # Not a `ctx: typer.Context` parameter: typer passes its vendored click's Context, which is
    # not a typer.Context, and the run-time type check would refuse it.
    get_current_context().call_on_close(configure_logging(verbose))


# Below this many files to read (passages to embed), a progress bar is more flicker than help.
_PROGRESS_MIN_FILES = 20
_PROGRESS_MIN_PASSAGES = 100
_INDEX_DB_HELP = (
    "The index file to create or update, or a postgresql:// URL (default: the nearest thrift-fp.db"
    " in this folder or one above, else ./thrift-fp.db)."
)
_NO_MATCH: Final = "no passage matched; the context is empty (exit status 0)"


def _fail(error: ThriftFpError) -> NoReturn:
    message = " ".join(error.message.split())
    typer.echo(f"thrift-fp: error: {message}", err=True)
    raise typer.Exit(1)


def _usage_error(message: str) -> NoReturn:
    # click's own usage error: the usage line, a pointer to --help, and exit status 2.
    # typer.main's import of its vendored click's get_current_context (not re-exported).
    from typer.main import get_current_context  # type: ignore[attr-defined]  # noqa: PLC0415

    get_current_context().fail(message)
    raise AssertionError("click's Context.fail raises")  # for the type checker: fail() is NoReturn


def _skipped_line(message: str) -> str:
    # One "skipped": some problems already say it ("skipped PATH: binary data").
    line = " ".join(message.split())
    return f"thrift-fp: {line}" if line.startswith("skipped ") else f"thrift-fp: skipped: {line}"


def _check_encoding(encoding: str) -> None:
    # Result and ThriftFpError name the annotated locals below, which beartype's claw checks
    # under the test suite (it evaluates their hints in this function's scope).
    from returns.result import Failure, Result  # noqa: PLC0415 - the library loads on use (module docstring)

    from thrift_fp._errors import ThriftFpError  # noqa: PLC0415
    from thrift_fp.tokens import get_encoding  # noqa: PLC0415

    checked: Result[object, ThriftFpError] = get_encoding(encoding)
    if isinstance(checked, Failure):
        _fail(checked.failure())


class _ProgressBar:
    """Rich progress bars on standard error, for long runs on a terminal only (silent in a log, a
    pipe, or with ``--json``): the files read, then the passages embedded, each with its rate
    and the time left."""

    def __init__(self, enabled: bool = True) -> None:
        # Progress and TaskID name the annotated attributes below, which beartype's claw checks.
        from rich.console import Console  # noqa: PLC0415 - rich loads only for a command that draws
        from rich.progress import Progress, TaskID  # noqa: PLC0415

        self.progress: Progress | None = None
        self.tasks: dict[str, TaskID] = {}
        # Off a terminal (a log, a pipe) the transient bar would leave a bare newline behind.
        self.console = Console(stderr=True)
        self.enabled = enabled and self.console.is_terminal

    def __call__(self, done: int, total: int, path: str) -> None:
        self._update("indexing", "files", done, total, _PROGRESS_MIN_FILES, Path(path).name)

    def embedding(self, done: int, total: int) -> None:
        """The embedding phase: ``done`` of ``total`` passages this run embeds."""
        self._update("embedding", "passages", done, total, _PROGRESS_MIN_PASSAGES, "")

    def _update(self, phase: str, unit: str, done: int, total: int, least: int, description: str) -> None:
        if phase not in self.tasks:
            if not self.enabled or total < least:
                return
            if self.progress is None:
                from rich.progress import (  # noqa: PLC0415
                    BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn,
                )

                self.progress = Progress(
                    TextColumn("{task.fields[phase]:9}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[unit]}, {task.fields[rate]}"), TimeRemainingColumn(),
                    TextColumn("{task.description}"), console=self.console, transient=True,
                )
                self.progress.start()
            self.tasks[phase] = self.progress.add_task(description, total=total, phase=phase, unit=unit, rate="")
        if self.progress is not None:
            task = self.tasks[phase]
            elapsed = self.progress.tasks[task].elapsed or 0.0
            rate = f"{done / elapsed:,.0f}/s" if elapsed > 0 and done else "…"
            self.progress.update(task, completed=done, description=description, rate=rate)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


# short_help: click cuts a summary longer than the 80-column listing leaves room for.
@app.command("index", short_help="Build or update an index: only changed files are re-chunked.")
def _index_command(
    paths: Annotated[
        list[Path],
        # Described in the docstring: typer's argument listing would add a Python type (<list[Path]>).
        typer.Argument(metavar="PATH", hidden=True),
    ],
    db: Annotated[
        str | None, typer.Option(metavar="PATH|URL", envvar=DATABASE_URL_ENV, help=_INDEX_DB_HELP)
    ] = None,
    tier: Annotated[
        Tier, typer.Option(metavar="TIER", help=f"Trust tier of these documents: {', '.join(TIER_CHOICES)}.")
    ] = "first-party",
    max_tokens: Annotated[int, typer.Option(metavar="N", help="Token bound of one passage.")] = DEFAULT_MAX_TOKENS,
    encoding: Annotated[str, typer.Option(metavar="NAME", help="Tokenizer for the passage bound.")] = "cl100k_base",
    include: Annotated[
        list[str] | None,
        typer.Option(metavar="GLOB", help="Only files matching this gitignore-style glob inside folders "
                     "(repeatable; replaces the default document suffixes)."),
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option(metavar="GLOB", help="Leave out files and folders matching (repeatable).")
    ] = None,
    gitignore: Annotated[
        bool, typer.Option("--gitignore/--no-gitignore", help="Honour .gitignore files inside the folders.")
    ] = True,
    strict: Annotated[
        bool, typer.Option("--strict", help="Any file that cannot be indexed fails the run; nothing is written.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Build or update an index: changed files are re-chunked, vanished ones leave, bad ones are skipped.

    PATH... are the files and folders to index (.md, .rst, .html, .txt, .jsonl inside folders).
    """
    from returns.result import Failure  # noqa: PLC0415 - the library loads on use

    from thrift_fp.cli._paths import chosen_corpus  # noqa: PLC0415
    from thrift_fp.cli._postgres import is_database_url  # noqa: PLC0415
    from thrift_fp.sources import DEFAULT_INCLUDE, IndexProblems, index_paths  # noqa: PLC0415

    corpus = chosen_corpus(db, creating=True)
    db = corpus.database
    if corpus.chosen != "given":
        typer.echo(f"thrift-fp: indexing into {corpus.describe()}", err=True)
    bar = _ProgressBar(enabled=not as_json)
    included, excluded = tuple(include) if include else DEFAULT_INCLUDE, tuple(exclude or ())
    if is_database_url(db):
        _index_postgres(db, paths, tier, max_tokens, encoding, bar, _Selection(included, excluded, gitignore, strict))
        return
    try:
        with _terminated_cleanly():
            indexed = index_paths(
                Path(db), paths, max_tokens=max_tokens, encoding=encoding, trust_tier=tier, progress=bar,
                include=included, exclude=excluded, gitignore=gitignore, strict=strict, dense=True,
                embed_progress=bar.embedding,
            )
    except KeyboardInterrupt:
        bar.stop()
        typer.echo(f"thrift-fp: interrupted; {_kept_after_interrupt(Path(db))}", err=True)
        raise typer.Exit(130) from None
    finally:
        bar.stop()
    if isinstance(indexed, Failure):
        error = indexed.failure()
        if isinstance(error, IndexProblems):
            if as_json:
                typer.echo(json.dumps({"error": error.message, "skipped": _skipped_json(error.skipped)}, indent=2))
            for skipped in error.skipped:
                typer.echo(_skipped_line(skipped.message), err=True)
        _fail(error)
    report = indexed.unwrap()
    if as_json:
        typer.echo(json.dumps(_index_json(report), indent=2, ensure_ascii=False))
        return
    for skipped in report.skipped:
        typer.echo(_skipped_line(skipped.message), err=True)
    typer.echo(_index_summary(report))


@contextmanager
def _terminated_cleanly() -> Iterator[None]:
    # SIGTERM/SIGHUP would end the process without unwinding, leaving the half-built temporary
    # index behind; as SystemExit they unwind through the indexer's cleanup like Ctrl-C does.
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
    for number in previous:
        signal.signal(number, _exit_on_signal)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _exit_on_signal(number: int, frame: object) -> None:
    raise SystemExit(128 + number)


@dataclasses.dataclass(frozen=True, slots=True)
class _Selection:
    """``index``'s file selection and ``--strict``, the same for an index file and a URL."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    gitignore: bool
    strict: bool


def _index_postgres(
    url: str, paths: list[Path], tier: str, max_tokens: int, encoding: str, bar: _ProgressBar, selection: _Selection
) -> None:
    from returns.result import Failure  # noqa: PLC0415 - the library loads on use

    from thrift_fp.cli._postgres import index_postgres  # noqa: PLC0415
    from thrift_fp.sources import IndexProblems  # noqa: PLC0415

    try:
        indexed = index_postgres(
            url, paths, trust_tier=tier, max_tokens=max_tokens, encoding=encoding, progress=bar,
            include=selection.include, exclude=selection.exclude, gitignore=selection.gitignore,
            strict=selection.strict,
        )
    finally:
        bar.stop()
    if isinstance(indexed, Failure):
        error = indexed.failure()
        if isinstance(error, IndexProblems):
            for problem in error.skipped:
                typer.echo(_skipped_line(problem.message), err=True)
        _fail(error)
    summary, lines = indexed.unwrap()
    for line in lines:
        typer.echo(_skipped_line(line), err=True)
    typer.echo(summary)


def _kept_after_interrupt(database: Path) -> str:
    # Ctrl-C while reading leaves the index as it was; while embedding, the passages and every
    # committed batch of vectors stay (thrift_fp.sources.index_paths).
    from returns.result import Success  # noqa: PLC0415 - the library loads on use

    from thrift_fp.sources import search_ranking  # noqa: PLC0415

    ranking = search_ranking(database, dense=True) if database.is_file() else None
    if isinstance(ranking, Success) and ranking.unwrap().incomplete is not None:
        embedded, total = ranking.unwrap().incomplete
        return (
            f"the passages and {embedded} of {total} vectors are kept; search is lexical until "
            "the same command, run again, embeds the rest"
        )
    return "the index is as it was before this run"


def _index_summary(report: IndexReport) -> str:
    files = len(report.chunked) + len(report.touched) + len(report.unchanged)
    skipped = f", {len(report.skipped)} skipped" if report.skipped else ""
    embedded = f", {report.embedded} embedded" if report.embedded else ""
    return (
        f"indexed {plural(files, 'file')} into {report.database}: {len(report.chunked)} chunked, "
        f"{len(report.touched)} touched, {len(report.unchanged)} unchanged, {len(report.removed)} removed"
        f"{skipped}; {plural(report.passages, 'passage')}{embedded}"
    )


def _skipped_json(skipped: tuple[SkippedFile, ...]) -> list[dict[str, str]]:
    return [{"path": item.path, "reason": item.message} for item in skipped]


def _index_json(report: IndexReport) -> dict[str, object]:
    return {
        "database": report.database,
        "chunked": list(report.chunked),
        "touched": list(report.touched),
        "unchanged": len(report.unchanged),
        "removed": list(report.removed),
        "skipped": _skipped_json(report.skipped),
        "passages": report.passages,
        # Passage texts embedded by this run (the [dense] extra; 0 without it or when none changed).
        "embedded": report.embedded,
    }


_DB_HELP = (
    "Index to search, or a postgresql:// URL (default: the nearest thrift-fp.db in this folder or"
    " one above, else the embedded corpus, indexed once into the user cache folder)."
)
# The default is written out: --window's own default is None (meaning "not given", for --budget).
_WINDOW_HELP = f"Context window in tokens (35% is reserved for the answer).  [default: {DEFAULT_WINDOW}]"


@app.command("ask", short_help="Retrieve, fit and render: print the context, kept and shed.")
def _ask_command(
    words: Annotated[
        list[str] | None,
        typer.Argument(metavar="QUESTION", hidden=True),  # described in the docstring, without a Python type
    ] = None,
    queries: Annotated[
        list[str] | None,
        typer.Option("--query", "-q", metavar="TEXT", help="A further query (repeatable): one retrieval each."),
    ] = None,
    db: Annotated[str | None, typer.Option(metavar="PATH|URL", envvar=DATABASE_URL_ENV, help=_DB_HELP)] = None,
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
    from returns.result import Failure  # noqa: PLC0415 - the library loads on use
    from rich.console import Console  # noqa: PLC0415 - rich loads only for a command that draws

    from thrift_fp.cli._errors import InvalidArgument  # noqa: PLC0415
    from thrift_fp.cli._paths import chosen_corpus  # noqa: PLC0415
    from thrift_fp.cli._postgres import ask_postgres, is_database_url  # noqa: PLC0415
    from thrift_fp.sources import PathNotFound, assemble  # noqa: PLC0415

    asked = ([" ".join(words)] if words else []) + list(queries or ())
    if not asked:
        _usage_error("give a question, or one or more --query")
    window_tokens, options = _window(window, budget, encoding)
    _check_encoding(encoding)
    done: Result[Assembled, CliError]
    database: Path | None = None  # the index file searched (None: a PostgreSQL URL)
    corpus = chosen_corpus(db)
    db = corpus.database if corpus.chosen != "embedded" else None
    if db is not None and is_database_url(db):
        done = ask_postgres(
            db, asked, context_window=window_tokens, options=options,
            max_results=max_results, max_queries=max_queries, tiers=_tiers(tier), dense=not lexical,
        )
    else:
        database = Path(db) if db is not None else _embedded()
        if db is not None and not database.exists():
            _fail(PathNotFound(db))
        done = assemble(
            asked, database=database, context_window=window_tokens, options=options,
            max_results=max_results, max_queries=max_queries, tiers=_tiers(tier), dense=not lexical,
        )
    if isinstance(done, Failure):
        _fail(done.failure())
    if report is not None:
        _write_report(report, done.unwrap())
    matched = bool(done.unwrap().decisions)
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
    # A PostgreSQL URL is not repeated: it may hold a password.
    shown = "postgresql" if "://" in corpus.database else corpus.database
    return {"database": shown, "chosen": corpus.chosen}


def _write_report(path: Path, done: Assembled) -> None:
    """The fit's picture (`thrift_fp.render.fit_report_html`) in ``path``; a path that cannot be
    written is an error naming it, before anything is printed."""
    from thrift_fp.cli._errors import InvalidArgument  # noqa: PLC0415 - the library loads on use

    try:
        path.write_text(done._repr_html_(), encoding="utf-8")
    except OSError as error:
        _fail(InvalidArgument("--report", str(path), f"cannot be written: {error.strerror or error}"))


def _window(window: int | None, budget: int | None, encoding: str) -> tuple[int, ThriftOptions]:
    from thrift_fp.thrift import ThriftOptions  # noqa: PLC0415 - the library loads on use

    if window is not None and budget is not None:
        _usage_error("give either --budget or --window, not both")
    # ask refills: a shed passage that still fits what shedding left comes back.
    if budget is not None:
        return budget, ThriftOptions(output_reserve=0, encoding=encoding, refill=True)
    return (window if window is not None else DEFAULT_WINDOW), ThriftOptions(encoding=encoding, refill=True)


def _embedded() -> Path:
    from returns.result import Failure  # noqa: PLC0415 - the library loads on use

    from thrift_fp.cli._paths import embedded_database  # noqa: PLC0415
    from thrift_fp.sources import CorruptDatabase, IndexSettingsMismatch, embedded_corpus, index_paths  # noqa: PLC0415

    database = embedded_database()
    built = index_paths(database, [embedded_corpus()], dense=True)
    if isinstance(built, Failure) and isinstance(built.failure(), CorruptDatabase | IndexSettingsMismatch):
        # It is only a cache (left by another version, or damaged): build it afresh.
        try:
            database.unlink(missing_ok=True)
        except OSError:
            _fail(built.failure())  # not a file we can remove (a folder): say what is wrong with it
        built = index_paths(database, [embedded_corpus()], dense=True)
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
        table.add_row(
            "[green]kept[/]" if d.kept else "[red]shed[/]", d.record.id,
            f"{d.record.score or 0:.3f}", str(d.tokens), envelope, rendered, d.record.trust_tier, d.reason,
        )
    return table


# thrift_fp.serve's defaults, repeated so that --help needs no library (nor SDK) import;
# tests/test_serve_cli.py pins them to thrift_fp.serve.ServeSettings.
_SERVE_DEFAULTS: Final = {"budget": 1024, "max_budget": 8192, "max_calls": 64, "max_session_tokens": 65536}


@app.command("serve", short_help="Serve search and read to any agent over MCP (stdio, or --http).")
def _serve_command(
    db: Annotated[str | None, typer.Option(metavar="PATH|URL", envvar=DATABASE_URL_ENV, help=_DB_HELP)] = None,
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
) -> None:
    """Serve `search` and `read` over MCP: budgeted, enveloped answers, a quota and de-duplication per session."""
    try:
        from thrift_fp.serve._command import serve_command  # noqa: PLC0415 - the SDK loads only for serve
    except ImportError as exc:
        typer.echo(f"thrift-fp: error: serve needs the mcp extra ({exc}): pip install 'thrift_fp[mcp]'", err=True)
        raise typer.Exit(1) from None
    from returns.result import Failure  # noqa: PLC0415

    from thrift_fp.cli._paths import chosen_corpus  # noqa: PLC0415

    _check_encoding(encoding)
    corpus = chosen_corpus(db)
    typer.echo(f"thrift-fp: serving {corpus.describe()}", err=True)
    served = serve_command(
        corpus.database if corpus.chosen != "embedded" else None, _embedded, http=http, allow_remote=allow_remote, default_budget=budget, max_budget=max_budget,
        max_calls=max_calls, max_session_tokens=max_session_tokens, max_results=max_results, encoding=encoding,
        tiers=_tiers(tier), lexical=lexical,
    )
    if isinstance(served, Failure):
        _fail(served.failure())


@app.command("fit", short_help="Fit a working set (JSON, see `schema`); print it and the trace.")
def _fit_command(
    file: Annotated[str, typer.Argument(metavar="FILE|-", hidden=True)],  # described in the docstring
    window: Annotated[
        int | None, typer.Option(metavar="N", min=0, help="Context window (overrides the file's context_window).")
    ] = None,
    budget: Annotated[
        int | None, typer.Option(metavar="N", min=0, help="Budget with no output reserve (window = budget).")
    ] = None,
    encoding: Annotated[
        str | None, typer.Option(metavar="NAME", help="Tokenizer (overrides options.encoding).")
    ] = None,
) -> None:
    """Fit a working set (JSON; `thrift-fp schema` prints its JSON Schema); print it and the trace.

    FILE is the working-set JSON file, or - for standard input.

    Exits 3 when it does not fit: the protected items alone exceed the budget ("fits": false).
    """
    from returns.result import Failure, Result  # noqa: PLC0415 - the library loads on use

    from thrift_fp._errors import ThriftFpError  # noqa: PLC0415
    from thrift_fp.cli._errors import InvalidArgument  # noqa: PLC0415
    from thrift_fp.cli._paths import read_input  # noqa: PLC0415
    from thrift_fp.cli._working_set_json import FitRequest, fitted_to_json, load_json, parse_fit_request  # noqa: PLC0415
    from thrift_fp.thrift import subtract_to_fit  # noqa: PLC0415

    origin = "standard input" if file == "-" else file
    text: Result[str, ThriftFpError] = read_input(file)
    loaded: Result[object, ThriftFpError] = text.bind(lambda content: load_json(content, origin))
    parsed: Result[FitRequest, ThriftFpError] = loaded.bind(lambda raw: parse_fit_request(raw, origin))
    if isinstance(parsed, Failure):
        _fail(parsed.failure())
    request = parsed.unwrap()
    options = request.options if encoding is None else dataclasses.replace(request.options, encoding=encoding)
    _check_encoding(options.encoding)
    if window is not None and budget is not None:
        _usage_error("give either --budget or --window, not both")
    chosen = window if window is not None else budget if budget is not None else request.context_window
    if chosen is None:
        _fail(InvalidArgument("no context window", None, "give --window, --budget or context_window in the file"))
    if budget is not None:
        options = dataclasses.replace(options, output_reserve=0)
    fitted = subtract_to_fit(request.working_set, chosen, request.relevant_tool_names, options)
    if isinstance(fitted, Failure):
        _fail(fitted.failure())
    typer.echo(json.dumps(fitted_to_json(fitted.unwrap()), indent=2, ensure_ascii=False))
    if not fitted.unwrap().trace.fits:
        raise typer.Exit(EXIT_DOES_NOT_FIT)


@app.command("schema")
def _schema_command() -> None:
    """Print the JSON Schema of the working-set format that `fit` reads."""
    from thrift_fp.cli._working_set_json import WORKING_SET_SCHEMA  # noqa: PLC0415 - the library loads on use

    typer.echo(WORKING_SET_SCHEMA.read_text(encoding="utf-8"), nl=False)


@app.command("count")
def _count_command(
    file: Annotated[str, typer.Argument(metavar="FILE|-", hidden=True)],  # described in the docstring
    encoding: Annotated[str, typer.Option(metavar="NAME", help="Tokenizer.")] = "cl100k_base",
    as_json: Annotated[bool, typer.Option("--json", help="Print tokens, encoding and precision as JSON.")] = False,
) -> None:
    """Count the tokens of a file (or standard input).

    FILE is a text file, or - for standard input.
    """
    from returns.result import Failure, Result  # noqa: PLC0415 - the library loads on use

    from thrift_fp._errors import ThriftFpError  # noqa: PLC0415
    from thrift_fp.cli._paths import read_input  # noqa: PLC0415
    from thrift_fp.tokens import TokenCount, count_tokens  # noqa: PLC0415

    _check_encoding(encoding)
    counted: Result[TokenCount, ThriftFpError] = read_input(file).bind(lambda text: count_tokens(text, encoding))
    if isinstance(counted, Failure):
        _fail(counted.failure())
    result = counted.unwrap()
    typer.echo(
        json.dumps({"tokens": result.tokens, "encoding": result.encoding, "precision": result.precision})
        if as_json
        else str(result.tokens)
    )
