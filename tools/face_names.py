"""Count the names on each public face: ``python -m tools.face_names [--markdown]``.

A face is a public module (no part of its dotted name starts with ``_``) that declares
``__all__``. The counts are what docs/layout.md's "Names per face" table shows; run this to
refresh it after a face changes.

>>> counts = face_counts()
>>> counts["thrift_fp"] == len(__import__("thrift_fp").__all__)
True
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from collections import Counter

import thrift_fp


def public_faces() -> dict[str, list[str]]:
    """Every public module of the package that declares ``__all__``, with it, in name order."""
    names = [info.name for info in pkgutil.walk_packages(thrift_fp.__path__, "thrift_fp.")]
    faces: dict[str, list[str]] = {}
    for name in sorted(["thrift_fp", *names]):
        if any(part.startswith("_") for part in name.split(".")):
            continue
        public = getattr(importlib.import_module(name), "__all__", None)
        if public is not None:
            faces[name] = list(public)
    return faces


def face_counts() -> dict[str, int]:
    """Face → how many names its ``__all__`` holds."""
    return {face: len(names) for face, names in public_faces().items()}


def _summary(faces: dict[str, list[str]]) -> tuple[int, int]:
    """(distinct names across the subpackage faces, names exported by two or more of them)."""
    seen = Counter(name for face, names in faces.items() if face != "thrift_fp" for name in set(names))
    return len(seen), sum(1 for count in seen.values() if count > 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    arguments = parser.parse_args(argv)
    faces = public_faces()
    distinct, shared = _summary(faces)
    if arguments.markdown:
        print("| face | names |\n| --- | ---: |")
        for face, names in faces.items():
            print(f"| `{face}` | {len(names)} |")
    else:
        for face, names in faces.items():
            print(f"{len(names):4d}  {face}")
    print(f"\n{distinct} distinct names across the subpackage faces; {shared} exported by two or more")


if __name__ == "__main__":
    main()
