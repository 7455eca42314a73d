"""``thrift-fp schema``: the JSON Schema of the working-set format ``fit`` reads."""

from __future__ import annotations

import typer


def schema_command() -> None:
    """Print the JSON Schema of the working-set format that `fit` reads."""
    from thrift_fp.cli._working_set_json import WORKING_SET_SCHEMA  # noqa: PLC0415 - the library loads on use

    typer.echo(WORKING_SET_SCHEMA.read_text(encoding="utf-8"), nl=False)
