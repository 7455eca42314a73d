"""``thrift-fp index``: build or update an index file or a PostgreSQL collection, with progress on a terminal."""

from __future__ import annotations

import dataclasses
import json
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thrift_fp.cli._annotations import lazy_names
from thrift_fp.cli._exits import check_encoding, fail
from thrift_fp.cli._options import DATABASE_URL_ENV, DEFAULT_MAX_TOKENS, TIER_CHOICES, Tier
from thrift_fp.cli._words import plural

if TYPE_CHECKING:  # for mypy; at run time __getattr__ below binds them on first use
    from rich.progress import Progress, TaskID

    from thrift_fp.sources import IndexReport, SkippedFile
    from thrift_fp.sources.dense import DenseChoice

# Names the annotations use, imported on first use: beartype (under the test suite) resolves
# such an annotation by getattr on this module, which reaches __getattr__.
__getattr__ = lazy_names(__name__, {
    "Progress": "rich.progress",
    "TaskID": "rich.progress",
    "IndexReport": "thrift_fp.sources",
    "SkippedFile": "thrift_fp.sources",
    "DenseChoice": "thrift_fp.sources.dense",
})

# Below this many files to read (passages to embed), a progress bar is more flicker than help.
_PROGRESS_MIN_FILES = 20
_PROGRESS_MIN_PASSAGES = 100
_INDEX_DB_HELP = (
    "The index file to create or update, or a postgresql:// URL (default: the nearest thrift-fp.db"
    " in this folder or one above, else ./thrift-fp.db)."
)


def skipped_line(message: str) -> str:
    # One "skipped": some problems already say it ("skipped PATH: binary data").
    line = " ".join(message.split())
    return f"thrift-fp: {line}" if line.startswith("skipped ") else f"thrift-fp: skipped: {line}"


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


def index_command(
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
    model: Annotated[
        str | None,
        typer.Option(metavar="MODEL", help="Embedding model (the [dense] extra): minilm (the default: better "
                     "answers) or static (about 30 times faster to index; needs wordllama). Default: the model "
                     "the index already holds, else minilm."),
    ] = None,
) -> None:
    """Build or update an index: changed files are re-chunked, vanished ones leave, bad ones are skipped.

    PATH... are the files and folders to index (.md, .rst, .html, .txt, .jsonl inside folders).
    """
    from returns.result import Failure  # noqa: PLC0415 - the library loads on use

    from thrift_fp.cli._paths import chosen_corpus  # noqa: PLC0415
    from thrift_fp.cli._postgres import is_database_url  # noqa: PLC0415
    from thrift_fp.sources import DEFAULT_INCLUDE, IndexProblems  # noqa: PLC0415
    from thrift_fp.sources.sqlite import index_paths  # noqa: PLC0415

    corpus = chosen_corpus(db, creating=True)
    db = corpus.database
    if corpus.chosen != "given":
        typer.echo(f"thrift-fp: indexing into {corpus.describe()}", err=True)
    dense = _model_choice(model)
    bar = _ProgressBar(enabled=not as_json)
    included, excluded = tuple(include) if include else DEFAULT_INCLUDE, tuple(exclude or ())
    if is_database_url(db):
        _index_postgres(db, paths, tier, max_tokens, encoding, bar, _Selection(included, excluded, gitignore, strict))
        return
    try:
        with _terminated_cleanly():
            indexed = index_paths(
                Path(db), paths, max_tokens=max_tokens, encoding=encoding, trust_tier=tier, progress=bar,
                include=included, exclude=excluded, gitignore=gitignore, strict=strict, dense=dense,
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
                typer.echo(skipped_line(skipped.message), err=True)
        fail(error)
    report = indexed.unwrap()
    if as_json:
        typer.echo(json.dumps(_index_json(report), indent=2, ensure_ascii=False))
        return
    for skipped in report.skipped:
        typer.echo(skipped_line(skipped.message), err=True)
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
                typer.echo(skipped_line(problem.message), err=True)
        fail(error)
    summary, lines = indexed.unwrap()
    for line in lines:
        typer.echo(skipped_line(line), err=True)
    typer.echo(summary)


def _model_choice(model: str | None) -> DenseChoice:
    # --model names a shipped embedding model; without it, the index keeps the model it holds.
    from returns.result import Failure  # noqa: PLC0415 - the library loads on use

    from thrift_fp.cli._errors import InvalidArgument  # noqa: PLC0415
    from thrift_fp.sources.dense import embedder_for  # noqa: PLC0415

    if model is None:
        return True
    if model not in ("minilm", "static"):
        fail(InvalidArgument("--model", model, "is not one of minilm, static"))
    loaded = embedder_for(model)
    if isinstance(loaded, Failure):
        fail(loaded.failure())
    return loaded.unwrap()


def _kept_after_interrupt(database: Path) -> str:
    # Ctrl-C while reading leaves the index as it was; while embedding, the passages and every
    # committed batch of vectors stay (thrift_fp.sources.index_paths).
    from returns.result import Success  # noqa: PLC0415 - the library loads on use

    from thrift_fp.sources.sqlite import search_ranking  # noqa: PLC0415

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
