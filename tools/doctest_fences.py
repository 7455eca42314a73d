"""A Griffe extension for the documentation site (mkdocs.yml): every docstring's ``>>>`` examples
are shown as Python console code blocks.

The docstrings are prose with doctests (run by the test suite), not Markdown: rendered as they are,
an example's output such as ``['a', 'b']`` reads as a Markdown link reference, and the strict
build fails on it. Fencing each example (its ``>>>`` / ``...`` lines and the output up to the next
blank line, as doctest reads it) shows it as code and leaves the text around it alone.
"""

from __future__ import annotations

from typing import Any


def fence_doctests(text: str) -> str:
    """``text`` with each doctest example inside a ```` ```pycon ```` fence, at its own indent.

    >>> fence_doctests("Adds.\\n\\n>>> 1 + 1\\n2\\n\\nMore prose.").split("\\n")
    ['Adds.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More prose.']
    """
    out: list[str] = []
    indent: str | None = None
    for line in text.split("\n"):
        stripped = line.lstrip()
        if indent is None and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
        elif indent is not None and (not stripped or not line.startswith(indent)):
            out.append(f"{indent}```")
            indent = None
        out.append(line)
    if indent is not None:
        out.append(f"{indent}```")
    return "\n".join(out)


try:
    import griffe
except ImportError:  # the site extra is not installed: the fences are only needed to build the site
    pass
else:

    class DoctestFences(griffe.Extension):
        """Fences the doctest examples of every docstring Griffe loads."""

        def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
            if obj.docstring is not None:
                obj.docstring.value = fence_doctests(obj.docstring.value)
