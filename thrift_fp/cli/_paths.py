"""Where the command keeps its files: the default index, the per-user cache, reading FILE or ``-``.

One rule for ``index``, ``ask`` and ``serve`` without ``--db`` (and without
``THRIFT_FP_DATABASE_URL``): the index is the nearest ``thrift-fp.db`` in the current folder or
a folder above it, as git finds its repository. ``index`` creates ``./thrift-fp.db`` when there
is none; ``ask`` and ``serve`` then answer from the embedded corpus, and say so.
"""

from __future__ import annotations

import hashlib
import os
import sys

from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from returns.result import Failure, Success

from thrift_fp._value import value
from thrift_fp.cli._annotations import lazy_names
from thrift_fp.cli._exits import fail
from thrift_fp.sources.postgres import is_database_url

if TYPE_CHECKING:  # for mypy; at run time __getattr__ below binds them on first use
    from returns.result import Result

    from thrift_fp.sources import SourceError

# The library's sources (and platformdirs) load inside the functions that use them: choosing the
# corpus is the first thing `serve` does before it answers `initialize` (thrift_fp.serve._handshake).
# beartype (under the test suite) resolves `read_input`'s annotation by getattr on this module.
__getattr__ = lazy_names(__name__, {"Result": "returns.result", "SourceError": "thrift_fp.sources"})

CACHE_ENV: Final = "THRIFT_FP_CACHE_DIR"
DEFAULT_INDEX: Final = "thrift-fp.db"


@value
class Corpus:
    """The index a command uses, and why that one: ``given`` (``--db`` or
    ``THRIFT_FP_DATABASE_URL``), ``nearest`` (a ``thrift-fp.db`` here or above), ``new`` (the
    ``./thrift-fp.db`` an index run creates) or ``embedded`` (the corpus shipped with the package).
    """

    database: str
    chosen: Literal["given", "nearest", "new", "embedded"]

    def describe(self) -> str:
        """How ``ask`` names where it answered from (a URL is not shown: it may hold a password).

        >>> Corpus("/home/ann/docs/thrift-fp.db", "nearest").describe()
        '/home/ann/docs/thrift-fp.db (the nearest thrift-fp.db)'
        >>> Corpus("postgresql://ann:secret@db/kb", "given").describe()
        'the PostgreSQL database given'
        >>> Corpus("host=/run/pg password=secret dbname=kb", "given").describe()
        'the PostgreSQL database given'
        """
        if self.chosen == "embedded":
            return (f"the embedded corpus (no {DEFAULT_INDEX} here or in a folder above;"
                    " `thrift-fp index DOCS` makes one)")
        if is_database_url(self.database):  # a URL or a key=value string: either may hold a password
            return "the PostgreSQL database given"
        return {"given": self.database, "nearest": f"{self.database} (the nearest {DEFAULT_INDEX})",
                "new": f"{self.database} (a new {DEFAULT_INDEX})"}[self.chosen]


def nearest_index(start: Path | None = None) -> Path | None:
    """The nearest ``thrift-fp.db`` in ``start`` (the current folder) or a folder above it.

    Only a regular file owned by this user counts, as git trusts only repositories its user
    owns: a ``thrift-fp.db`` another user left in ``/tmp`` never answers this user's questions.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp()).resolve()
    >>> (root / "docs" / "api").mkdir(parents=True)
    >>> nearest_index(root / "docs" / "api") is None
    True
    >>> (root / "thrift-fp.db").touch()
    >>> nearest_index(root / "docs" / "api") == root / "thrift-fp.db"
    True
    """
    try:
        here = (start if start is not None else Path.cwd()).resolve()
    except OSError:  # the current folder was removed
        return None
    for folder in (here, *here.parents):
        candidate = folder / DEFAULT_INDEX
        try:
            status = candidate.stat()
        except OSError:
            continue
        if candidate.is_file() and _owned_by_this_user(status.st_uid):
            return candidate
    return None


def _owned_by_this_user(uid: int) -> bool:
    getuid = getattr(os, "getuid", None)  # Windows has no POSIX owners
    return getuid is None or uid == getuid()


def chosen_corpus(db: str | None, *, creating: bool = False) -> Corpus:
    """Where a command's index is: ``db`` when given, else the nearest ``thrift-fp.db``, else a
    new ``./thrift-fp.db`` for an index run (``creating``) or the embedded corpus.

    >>> chosen_corpus("docs.db")
    Corpus(database='docs.db', chosen='given')
    """
    if db is not None:
        return Corpus(db, "given")
    found = nearest_index()
    if found is not None:
        return Corpus(str(found), "nearest")
    if creating:
        return Corpus(DEFAULT_INDEX, "new")
    return Corpus(str(embedded_database()), "embedded")


def cache_dir() -> Path:
    """The per-user cache folder (``$THRIFT_FP_CACHE_DIR`` when set, else platformdirs').

    >>> os.environ[CACHE_ENV] = "/tmp/thrift-fp-cache"
    >>> cache_dir()
    PosixPath('/tmp/thrift-fp-cache')
    >>> del os.environ[CACHE_ENV]
    """
    import platformdirs  # noqa: PLC0415 - only where the cache is used

    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else Path(platformdirs.user_cache_dir("thrift-fp", appauthor=False))


def embedded_corpus() -> Path:
    """The embedded corpus's folder (`thrift_fp.sources.embedded_corpus`, its module loaded on use).

    >>> (embedded_corpus() / "README.md").is_file()
    True
    """
    from thrift_fp.sources.documents import embedded_corpus as folder  # noqa: PLC0415 - the library loads on use

    return folder()


def embedded_database() -> Path:
    """The index of this installation's embedded corpus, built on first use inside `cache_dir`.

    The name carries a digest of the corpus folder: installations (venvs, Python versions)
    share the per-user cache, and an index only updates the files under the folder it is
    given, so a shared file would keep serving another installation's corpus.

    >>> embedded_database().name.startswith("embedded-corpus-"), embedded_database().suffix
    (True, '.db')
    """
    digest = hashlib.sha256(os.fsencode(embedded_corpus())).hexdigest()[:16]
    return cache_dir() / f"embedded-corpus-{digest}.db"


def embedded_index() -> Path:
    """`embedded_database`, indexed on first use (afresh when the cache is stale or damaged);
    a failure ends the command (`thrift_fp.cli._exits.fail`)."""
    from thrift_fp.sources import CorruptDatabase, IndexSettingsMismatch  # noqa: PLC0415
    from thrift_fp.sources.sqlite import index_paths  # noqa: PLC0415

    database = embedded_database()
    built = index_paths(database, [embedded_corpus()], dense=True)
    if isinstance(built, Failure) and isinstance(built.failure(), CorruptDatabase | IndexSettingsMismatch):
        # It is only a cache (left by another version, or damaged): build it afresh.
        try:
            database.unlink(missing_ok=True)
        except OSError:
            fail(built.failure())  # not a file we can remove (a folder): say what is wrong with it
        built = index_paths(database, [embedded_corpus()], dense=True)
    if isinstance(built, Failure):
        fail(built.failure())
    return database


def read_input(name: str) -> Result[str, SourceError]:
    """The UTF-8 text of file ``name``, or of standard input for ``-``.

    >>> read_input("/nonexistent").failure().message
    'no such file or folder: /nonexistent'
    """
    from thrift_fp.sources import PathNotFound, UnreadableFile  # noqa: PLC0415 - the library loads on use

    if name == "-":
        if sys.stdin is None:  # the process started with descriptor 0 closed
            return Failure(UnreadableFile("standard input", "it is closed"))
        try:
            return Success(sys.stdin.buffer.read().decode("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            return Failure(UnreadableFile("standard input", str(exc), exc))
    path = Path(name)
    if not path.exists():
        return Failure(PathNotFound(name))
    try:
        return Success(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Failure(UnreadableFile(name, str(exc), exc))
