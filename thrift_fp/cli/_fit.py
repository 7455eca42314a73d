"""``thrift-fp fit``: fit a working set given as JSON (see ``schema``); print it and the trace."""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated

import typer

from thrift_fp.cli._exits import check_encoding, fail, usage_error
from thrift_fp.cli._options import EXIT_DOES_NOT_FIT


def fit_command(
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
    from thrift_fp.thrift._fit import subtract_to_fit  # noqa: PLC0415

    origin = "standard input" if file == "-" else file
    text: Result[str, ThriftFpError] = read_input(file)
    loaded: Result[object, ThriftFpError] = text.bind(lambda content: load_json(content, origin))
    parsed: Result[FitRequest, ThriftFpError] = loaded.bind(lambda raw: parse_fit_request(raw, origin))
    if isinstance(parsed, Failure):
        fail(parsed.failure())
    request = parsed.unwrap()
    options = request.options if encoding is None else dataclasses.replace(request.options, encoding=encoding)
    check_encoding(options.encoding)
    if window is not None and budget is not None:
        usage_error("give either --budget or --window, not both")
    chosen = window if window is not None else budget if budget is not None else request.context_window
    if chosen is None:
        fail(InvalidArgument("no context window", None, "give --window, --budget or context_window in the file"))
    if budget is not None:
        options = dataclasses.replace(options, output_reserve=0)
    fitted = subtract_to_fit(request.working_set, chosen, request.relevant_tool_names, options)
    if isinstance(fitted, Failure):
        fail(fitted.failure())
    typer.echo(json.dumps(fitted_to_json(fitted.unwrap()), indent=2, ensure_ascii=False))
    if not fitted.unwrap().trace.fits:
        raise typer.Exit(EXIT_DOES_NOT_FIT)
