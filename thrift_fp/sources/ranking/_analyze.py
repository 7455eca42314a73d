"""One analyzer for every store: text to the terms the index keeps and a question searches for.

Both stores keep the *analyzed* terms of each passage, not their own reading of its text, so
that SQLite and PostgreSQL count the same terms and give the same scores. A term is
lower-cased, common English words (``how``, ``the``, ``do``) are dropped, and the rest are
stemmed by the Snowball English stemmer (``files`` and ``filing`` both become ``file``) when
``snowballstemmer`` is installed (it comes with the ``docs`` extra); without it terms are
kept as written, and the index records which analyzer built it.

Technical names stay findable. A joined name — ``fs.readFile``, ``node:fs``,
``promise-based``, ``C++`` — gives its whole spelling as one term (``fsreadfile``, ``nodefs``,
``promisebased``, ``cplusplus``) *and* each of its parts, and a camelCase word gives its parts
too (``readFile``: ``readfile``, ``read``, ``file``), so the exact spelling is a rare, strong
term and a partial mention still counts. A snake_case or CONSTANT_CASE name
(``CMAKE_BUILD_TYPE``, ``add_test``) is one term only (``cmakebuildtype``): its parts are
not prose, and a corpus full of such names would otherwise match every question's words. Every term is a run of letters and
digits only: any store's tokenizer reads it as one word.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
from collections.abc import Callable, Iterable, Sequence

from functools import cache
from typing import Final

from thrift_fp._value import value
from thrift_fp.sources.ranking._match import MAX_QUERY_TERMS, STOP_WORDS

# A run of word characters (and '+') possibly joined by . : _ / - into one name.
_NAME: Final = re.compile(r"(?:[^\W_]|\+)+(?:[.:_/\-](?:[^\W_]|\+)+)*")
_PART: Final = re.compile(r"[^\W_]+\+*|\++")
# Lower-to-upper and acronym-to-word boundaries inside one part: readFile, parseHTTPRequest.
_CAMEL: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# reStructuredText markup names no content: roles (:manual:`x`, :prop_tgt:`y`) and directive
# names (.. code-block::, .. program::, .. versionadded::) are dropped, their arguments kept.
_MARKUP: Final = re.compile(r"(?<![\w`]):[\w.+-]+(?::[\w.+-]+)*:(?=`)|^[ \t]*\.\.[ \t]+[\w.+:-]+?::", re.MULTILINE)
# Longer runs are hashes, base64 and minified code: never what a question names.
MAX_TERM_CHARS: Final = 48
SNOWBALL: Final = "english-snowball"
"""The analyzer's name when the Snowball stemmer is installed (the ``docs`` extra), as an index records it."""
PLAIN: Final = "english-plain"


# The name under which the English stemmer's three modules load without snowballstemmer's own
# package (see `_english_stemmer`).
_PRIVATE_SNOWBALL: Final = "thrift_fp._snowball_english"


@cache
def _stemmer() -> Callable[[str], str] | None:
    stem = _english_stemmer()
    return None if stem is None else cache(stem)


def _english_stemmer() -> Callable[[str], str] | None:
    """snowballstemmer's English ``stemWord``, without importing its other 30 languages.

    ``import snowballstemmer`` runs its package, which imports every language's stemmer (about
    30 ms of a one-question ``ask``); the English one needs only ``english_stemmer``,
    ``basestemmer`` and ``among``. They load here from snowballstemmer's own folder under a
    private package name, so a later ``import snowballstemmer`` elsewhere gets the real package.
    Where the package is already loaded, or PyStemmer's C stemmer is installed (which
    snowballstemmer itself then returns), ``snowballstemmer.stemmer("english")`` is used as before.

    >>> _english_stemmer()("filing")
    'file'
    """
    spec = importlib.util.find_spec("snowballstemmer")  # a top-level name: nothing is imported
    if spec is None or not spec.submodule_search_locations:
        return None
    if "snowballstemmer" in sys.modules or importlib.util.find_spec("Stemmer") is not None:
        import snowballstemmer  # noqa: PLC0415 - optional (the docs extra); loaded on first use

        shared: Callable[[str], str] = snowballstemmer.stemmer("english").stemWord
        return shared
    return english_alone(spec.submodule_search_locations)


def english_alone(folders: Sequence[str]) -> Callable[[str], str]:
    """The English ``stemWord`` of the snowballstemmer package in ``folders``, loaded without the
    package's ``__init__`` (see `_english_stemmer`; a property holds it equal to the package's own).

    >>> import importlib.util
    >>> english_alone(importlib.util.find_spec("snowballstemmer").submodule_search_locations)("files")
    'file'
    """
    package = sys.modules.get(_PRIVATE_SNOWBALL)
    if package is None:
        package = types.ModuleType(_PRIVATE_SNOWBALL, "snowballstemmer's folder, without its __init__")
        package.__path__ = list(folders)
        sys.modules[_PRIVATE_SNOWBALL] = package
    english = importlib.import_module(f"{_PRIVATE_SNOWBALL}.english_stemmer")
    stem: Callable[[str], str] = english.EnglishStemmer().stemWord
    return stem


def default_analyzer() -> str:
    """The analyzer a new index uses: ``english-snowball`` when the stemmer is installed.

    >>> default_analyzer()
    'english-snowball'
    """
    return SNOWBALL if _stemmer() is not None else PLAIN


def analyzer_available(name: str) -> bool:
    """Whether this Python can run the analyzer an index was built with.

    >>> analyzer_available("english-plain"), analyzer_available("english-snowball"), analyzer_available("x")
    (True, True, False)
    """
    return name == PLAIN or (name == SNOWBALL and _stemmer() is not None)


def _camel(part: str) -> bool:
    return part.isascii() and part.isalnum() and not part.isupper() and any(c.isupper() for c in part[1:])


def _word(part: str, stem: Callable[[str], str] | None) -> str:
    plain = part.replace("+", "plus")
    return stem(plain) if stem is not None and plain.isalpha() else plain


def _terms(text: str, analyzer: str, keep_stop_words: bool) -> Iterable[str]:
    stem = _stemmer() if analyzer == SNOWBALL else None
    for match in _NAME.finditer(_MARKUP.sub(" ", text)):
        name = match.group()
        parts = _PART.findall(name)
        whole = "".join(part.replace("+", "plus") for part in parts).lower()
        # C++ stays whole (its '+' is part of the word); other parts split at camelCase bounds.
        pieces = [piece for part in parts for piece in (_CAMEL.findall(part) if _camel(part) else [part])]
        words = [piece.lower() for piece in pieces]
        if len(words) > 1 and len(whole) <= MAX_TERM_CHARS:
            yield whole
            if "_" in name:
                # snake_case and CONSTANT_CASE are names, never prose: CMAKE_RUNTIME_OUTPUT_DIRECTORY
                # does not mention "output" the way a sentence does.
                continue
        for word in words:
            if len(word) <= MAX_TERM_CHARS and (keep_stop_words or word not in STOP_WORDS):
                yield _word(word, stem)


def analyze(text: str, analyzer: str = SNOWBALL) -> tuple[str, ...]:
    """The terms of a passage, in order, repeats kept (how often a term occurs counts).

    >>> analyze("Reading files with fs.readFile() in C++")
    ('read', 'file', 'fsreadfile', 'fs', 'read', 'file', 'cplusplus')
    >>> analyze("the CMAKE_BUILD_TYPE variable", "english-plain")
    ('cmakebuildtype', 'variable')
    >>> analyze(".. program:: ctest\\n\\nRun by :manual:`ctest(1)`.", "english-plain")
    ('ctest', 'run', 'ctest', '1')
    """
    return tuple(_terms(text, analyzer, keep_stop_words=False))


def query_words(query: str, analyzer: str = SNOWBALL) -> tuple[str, ...]:
    """The distinct terms a question searches for, in order; its stop words only when it has
    nothing else; at most ``MAX_QUERY_TERMS``.

    >>> query_words("How do I read a file with fsPromises?")
    ('read', 'file', 'fspromises', 'fs', 'promis')
    >>> query_words("how to")
    ('how', 'to')
    >>> query_words("?!")
    ()
    """
    terms = tuple(dict.fromkeys(_terms(query, analyzer, keep_stop_words=False)))
    return (terms or tuple(dict.fromkeys(_terms(query, analyzer, keep_stop_words=True))))[:MAX_QUERY_TERMS]


@value
class AnalyzedFields:
    """A passage's analyzed fields as the stores keep them: its body, its own heading (the
    last of its heading path) and the headings above it, each as terms joined by two spaces
    (so that counting `` term `` in the field, padded by one space, counts every occurrence)."""

    body: str
    heading: str
    trail: str

    @property
    def lengths(self) -> tuple[int, int, int]:
        """How many terms each field holds.

        >>> AnalyzedFields("a  b  c", "d", "").lengths
        (3, 1, 0)
        """
        return (len(self.body.split()), len(self.heading.split()), len(self.trail.split()))


def analyze_fields(text: str, heading_path: Sequence[str], analyzer: str) -> AnalyzedFields:
    """The analyzed fields of a passage with its heading path.

    >>> analyze_fields("Reads the whole file.", ("fs", "Promises API", "fsPromises.readFile"), "english-snowball")
    AnalyzedFields(body='read  whole  file', heading='fspromisesreadfile  fs  promis  read  file', trail='fs  promis  api')
    """
    own = heading_path[-1] if heading_path else ""
    return AnalyzedFields(
        "  ".join(analyze(text, analyzer)),
        "  ".join(analyze(own, analyzer)),
        "  ".join(analyze(" ".join(heading_path[:-1]), analyzer)),
    )
