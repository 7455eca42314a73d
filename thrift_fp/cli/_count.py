"""``thrift-fp count``: the tokens of a file or of standard input."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from thrift_fp.cli._exits import check_encoding, fail


def count_command(
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
    from thrift_fp.tokens import TokenCount  # noqa: PLC0415
    from thrift_fp.tokens._count import count_tokens  # noqa: PLC0415

    check_encoding(encoding)
    counted: Result[TokenCount, ThriftFpError] = read_input(file).bind(lambda text: count_tokens(text, encoding))
    if isinstance(counted, Failure):
        fail(counted.failure())
    result = counted.unwrap()
    typer.echo(
        json.dumps({"tokens": result.tokens, "encoding": result.encoding, "precision": result.precision})
        if as_json
        else str(result.tokens)
    )
