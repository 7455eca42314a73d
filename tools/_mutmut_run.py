"""Run mutmut's command line, optionally with a narrower test selection.

``THRIFT_FP_MUTMUT_TESTS`` (paths joined with ``os.pathsep``) replaces
``pytest_add_cli_args_test_selection`` from ``[tool.mutmut]`` for this run only. mutmut has
no command-line option for it, and its forkserver workers are ``os.fork`` children of this
process, so setting the loaded config here reaches them. A narrower selection can only kill
fewer mutants, so a score measured with it is a lower bound of the full selection's.
"""

from __future__ import annotations

import os


def main() -> None:
    """Narrow the test selection if asked, then hand over to mutmut (imported here: optional)."""
    from mutmut.__main__ import cli
    from mutmut.configuration import config

    selection = os.environ.get("THRIFT_FP_MUTMUT_TESTS", "")
    if selection:
        config().pytest_add_cli_args_test_selection[:] = selection.split(os.pathsep)
    cli()


if __name__ == "__main__":
    main()
