"""The ``thrift-fp`` command group: its options, and each command from its own module.

Every failure is an error value printed as one line on standard error, exit status 1
(2 for command-line syntax, as usual). ``fit`` exits 3 when the working set does not fit
(its output is still printed). ``ask`` prints the rendered context on standard output and the
kept/shed table on standard error, so the context can be piped on its own.

The library is imported inside the commands, not here: ``thrift-fp --help`` and
``--version`` then load only typer (docs/surface.md, "Cold start"). For the same reason rich is
imported only where a command draws a table or a progress bar, ``returns`` only inside the
commands, and the help is click's plain formatting (``rich_markup_mode=None``): typer's rich
help rendering cost about as much again as the whole import.

One module per command (``_index``, ``_ask``, ``_serve``, ``_fit``, ``_schema``, ``_count``); the
options they share are in ``_options`` and how a command ends in ``_exits``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, Final

import typer

from thrift_fp.cli._ask import ask_command
from thrift_fp.cli._coercion import QuickCommand
from thrift_fp.cli._count import count_command
from thrift_fp.cli._fit import fit_command
from thrift_fp.cli._index import index_command
from thrift_fp.cli._schema import schema_command
from thrift_fp.cli._serve import serve_command

# The group's settings, shared by the whole app and each one-command app (`app_for`).
_SETTINGS: Final[dict[str, Any]] = {
    "name": "thrift-fp",
    "help": "Index documents, then retrieve, fit and render the context an LLM agent gets to see.",
    "add_completion": False,
    "no_args_is_help": True,
    "pretty_exceptions_enable": False,
    # Plain click help: rich's rendering (and its import) was most of --help's time.
    "rich_markup_mode": None,
    "context_settings": {
        # Up to 120 columns on a wide terminal (click's default stops at 80 and cuts command summaries).
        "max_content_width": 120,
        # `thrift-fp ask --help` gives the group neither --help nor --version, and a flag not given
        # has no value (None); typer coerces a non-bool value through pydantic, whose import
        # doubled every subcommand's --help time. Bool defaults (click's documented default_map)
        # skip that coercion: typer leaves a bool-annotated flag that is already a bool alone.
        "default_map": {"help": False, "version": False, "verbose": False},
    },
    "epilog": (
        "Exit status: 0 done, 1 an error (one line on standard error), 2 a command-line syntax error,"
        " 3 `fit` found that the working set does not fit (its result is still printed)."
    ),
}
app = typer.Typer(**_SETTINGS)
"""The ``thrift-fp`` command group (Typer); `run` calls it with a list of arguments."""


def _print_version(requested: bool) -> bool:
    if requested:
        # The package's own constant (pyproject.toml's version is read from it): importing
        # importlib.metadata to ask the installed distribution cost a third of --version's start.
        from thrift_fp import __version__  # noqa: PLC0415

        typer.echo(f"thrift-fp {__version__}")
        raise typer.Exit(0)
    return requested  # a callback's result is the option's value


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


# short_help: click cuts a summary longer than the 80-column listing leaves room for.
# QuickCommand: plain values (strings, whole numbers) skip typer's pydantic coercion (cli/_coercion.py).
_COMMANDS: Final[dict[str, tuple[Callable[..., None], str | None]]] = {
    "index": (index_command, "Build or update an index: only changed files are re-chunked."),
    "ask": (ask_command, "Retrieve, fit and render: print the context, kept and shed."),
    "serve": (serve_command, "Serve search and read to any agent over MCP (stdio, or --http)."),
    "fit": (fit_command, "Fit a working set (JSON, see `schema`); print it and the trace."),
    "schema": (schema_command, None),
    "count": (count_command, None),
}


def _register(group: typer.Typer, names: Iterable[str]) -> typer.Typer:
    group.callback()(_main)
    for name in names:
        command, short_help = _COMMANDS[name]
        group.command(name, cls=QuickCommand, short_help=short_help)(command)
    return group


_register(app, _COMMANDS)


def app_for(argv: Sequence[str]) -> typer.Typer:
    """The app that runs ``argv``: for a command named first, a group holding that command alone
    (typer builds a click command from each registered function's signature on every run, ~3 ms
    each); otherwise (the group's own options, its help, an unknown name) the whole `app`.

    >>> [info.name for info in app_for(["count", "notes.txt"]).registered_commands]
    ['count']
    >>> app_for(["--help"]) is app
    True
    """
    if not argv or argv[0] not in _COMMANDS:
        return app
    return _register(typer.Typer(**_SETTINGS), [argv[0]])
