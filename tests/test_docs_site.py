"""The API reference covers the public surface: every public module has a mkdocstrings
directive on a reference page, nothing in the site's options hides a name of its ``__all__``,
Griffe (what mkdocstrings reads) finds each of those names, and every top-level name links to
where it lives. With ``THRIFT_FP_SITE_DIR`` (set by ``.ci/run`` after ``mkdocs build --strict``)
the built pages are checked too: each name has its anchor."""

from __future__ import annotations

import importlib
import html
import os
import pkgutil
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import thrift_fp

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
_DIRECTIVE = re.compile(r"^::: ([\w.]+)\s*$", re.MULTILINE)


def _public_modules() -> Iterator[tuple[str, list[str]]]:
    """Every importable public module of the package that declares ``__all__``, with it."""
    names = [info.name for info in pkgutil.walk_packages(thrift_fp.__path__, "thrift_fp.")]
    for name in ["thrift_fp", *names]:
        if any(part.startswith("_") for part in name.split(".")):
            continue
        module = importlib.import_module(name)
        public = getattr(module, "__all__", None)
        if public is not None:
            yield name, list(public)


PUBLIC = dict(_public_modules())
SUBPACKAGES = sorted(name for name in PUBLIC if name != "thrift_fp")


def _directives() -> set[str]:
    return {match for page in REFERENCE.glob("*.md") for match in _DIRECTIVE.findall(page.read_text(encoding="utf-8"))}


def _handler_options() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml", reason="the site extra (mkdocs) brings PyYAML")
    # mkdocs.yml holds no custom YAML tags, so the safe loader reads it.
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    plugins = {next(iter(p)) if isinstance(p, dict) else p: p for p in config["plugins"]}
    options: dict[str, Any] = plugins["mkdocstrings"]["mkdocstrings"]["handlers"]["python"]["options"]
    return options


def test_the_expected_public_modules_are_found() -> None:
    assert {"thrift_fp", "thrift_fp.tokens", "thrift_fp.records", "thrift_fp.retrieval", "thrift_fp.thrift",
            "thrift_fp.render", "thrift_fp.sources", "thrift_fp.sources.postgres", "thrift_fp.cli",
            "thrift_fp.adapters.openai"} <= set(PUBLIC)


@pytest.mark.parametrize("module", SUBPACKAGES)
def test_every_public_module_has_a_reference_directive(module: str) -> None:
    assert module in _directives(), f"add '::: {module}' to a page in docs/reference/"


def test_no_option_hides_a_public_name() -> None:
    options = _handler_options()
    assert "members" not in options
    hidden = [re.compile(rule[1:]) for rule in options.get("filters", []) if rule.startswith("!")]
    for module in SUBPACKAGES:
        for name in PUBLIC[module]:
            assert not any(rule.search(name) for rule in hidden), f"{module}.{name} is filtered out"
    # Only the top-level page narrows its members (its names are documented where they live).
    for page in REFERENCE.glob("*.md"):
        if page.name != "thrift_fp.md":
            assert "members:" not in page.read_text(encoding="utf-8"), page.name


def test_griffe_finds_every_public_name() -> None:
    griffe = pytest.importorskip("griffe", reason="the site extra (mkdocstrings) brings Griffe")
    package = griffe.load("thrift_fp", search_paths=[str(ROOT)], allow_inspection=False)
    missing = []
    for module in SUBPACKAGES:
        loaded = package[module.removeprefix("thrift_fp.")]
        missing += [f"{module}.{name}" for name in PUBLIC[module] if name not in loaded.members]
    assert missing == []


def test_every_top_level_name_links_to_its_home() -> None:
    page = (REFERENCE / "thrift_fp.md").read_text(encoding="utf-8")
    for name in thrift_fp.__all__:
        value = getattr(thrift_fp, name)
        homes = [m for m in SUBPACKAGES if name in PUBLIC[m] and getattr(importlib.import_module(m), name) is value]
        if homes:
            assert f"[`{name}`][{homes[0]}.{name}]" in page, name
        elif name == "ThriftFpError":  # the base of every error value lives in a private module
            assert f"[`{name}`][thrift_fp._errors.{name}]" in page and f"::: thrift_fp._errors.{name}" in page
        else:  # Result, Success, Failure: the returns library's own documentation
            assert f"[`{name}`](https://returns.readthedocs.io/" in page, name


@pytest.mark.skipif("THRIFT_FP_SITE_DIR" not in os.environ, reason="set by .ci/run after mkdocs build --strict")
def test_the_built_reference_has_an_anchor_for_every_public_name() -> None:
    site = Path(os.environ["THRIFT_FP_SITE_DIR"]) / "reference"
    html = "".join(page.read_text(encoding="utf-8") for page in site.rglob("*.html"))
    anchors = set(re.findall(r'id="(thrift_fp[\w.]*)"', html))
    missing = [f"{module}.{name}" for module in SUBPACKAGES for name in PUBLIC[module] if f"{module}.{name}" not in anchors]
    assert missing == []
    top = [name for name in thrift_fp.__all__ if f"[`{name}`]" not in (REFERENCE / "thrift_fp.md").read_text()]
    assert top == []


@pytest.mark.skipif("THRIFT_FP_SITE_DIR" not in os.environ, reason="set by .ci/run after mkdocs build --strict")
def test_the_built_reference_shows_an_error_values_fields_as_its_signature() -> None:
    # Error classes are dataclasses through ErrorValue's metaclass, which Griffe cannot see;
    # tools/error_signatures.py gives them their signature, inherited fields included.
    page = (Path(os.environ["THRIFT_FP_SITE_DIR"]) / "reference" / "retrieval" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
    assert "ExecutionFailed ( definition_id : str , key : str , reason : str , cause : BaseException | None = None )" in text


@pytest.mark.skipif("THRIFT_FP_SITE_DIR" not in os.environ, reason="set by .ci/run after mkdocs build --strict")
def test_the_built_reference_shows_a_value_classs_fields_as_its_signature() -> None:
    # Value classes are dataclasses through `@value` (thrift_fp._value), which Griffe does not
    # know; tools/error_signatures.py's ValueSignatures gives them their signature and label,
    # field(default_factory=...) shown as a call, as Griffe shows a @dataclass's.
    site = Path(os.environ["THRIFT_FP_SITE_DIR"]) / "reference"
    texts = {
        layer: re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", (site / layer / "index.html").read_text(encoding="utf-8"))))
        for layer in ("thrift", "retrieval")
    }
    assert "Budget dataclass ¶ Budget ( context_window : int | float , reserve : int , budget : int )" in texts["thrift"]
    assert "extensions : MappingProxyType [ str , object ] = _no_extensions ())" in texts["retrieval"]


def _documented_class(value: object) -> bool:
    # A dataclass without a docstring gets its signature as __doc__: that is not documentation.
    doc = vars(value).get("__doc__") if isinstance(value, type) else None
    return bool(doc) and not str(doc).startswith(f"{getattr(value, '__name__', '')}(")


def test_every_public_name_has_documentation() -> None:
    """Each name of each face has a docstring Griffe shows (a constant or a type alias: the string
    right below it); an error union is documented by its members, each a documented class."""
    griffe = pytest.importorskip("griffe", reason="the site extra (mkdocstrings) brings Griffe")
    package = griffe.load("thrift_fp", search_paths=[str(ROOT)], allow_inspection=False)
    missing = []
    for module in SUBPACKAGES:
        for name in PUBLIC[module]:
            found = package[f"{module.removeprefix('thrift_fp.')}.{name}"]
            if (found.final_target if found.is_alias else found).docstring:
                continue
            members = typing.get_args(getattr(importlib.import_module(module), name))
            if name.endswith("Error") and members and all(_documented_class(member) for member in members):
                continue
            missing.append(f"{module}.{name}")
    assert sorted(missing) == []
