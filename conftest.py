"""Shared pytest set-up: the beartype claw over thrift_fp, and Hypothesis profiles chosen by
HYPOTHESIS_PROFILE."""

from __future__ import annotations

import os
import shutil
import tempfile

# The suite changes nothing on the machine, its temporary files included: every temporary folder
# (tempfile's, pytest's tmp_path, the children's through TMPDIR) is made inside one folder of this
# run's, removed when the run ends. Set before any test module is imported, since some make their
# folders at import time.
SCRATCH = tempfile.mkdtemp(prefix="thrift-fp-suite-")
tempfile.tempdir = SCRATCH
os.environ["TMPDIR"] = SCRATCH
# The command's cache folder (the embedded corpus's index, the parsed vocabularies) for commands
# run in process (doctests) and by children; tests of the default folder set their own.
os.environ.setdefault("THRIFT_FP_CACHE_DIR", os.path.join(SCRATCH, "cache"))


def pytest_unconfigure() -> None:
    """Remove this run's temporary folder, whatever the tests left in it."""
    shutil.rmtree(SCRATCH, ignore_errors=True)


from beartype.claw import beartype_package

# Under the test suite every function and class of thrift_fp is type-checked at run time; this
# must run before any test module imports a thrift_fp subpackage (conftest.py is loaded first).
# Production checks only the public boundary (thrift_fp/_beartype.py, docs/surface.md).
from thrift_fp._beartype import claw_conf  # noqa: E402 - imports only the conf, no subpackage

beartype_package("thrift_fp", conf=claw_conf())

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# CI's second run, at the minimum dependency versions: compatibility, not the rules again (the
# "ci" profile with fewer examples).
settings.register_profile("ci-minimum", settings.get_profile("ci"), max_examples=20)
settings.register_profile(
    "nightly",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# A real PostgreSQL server for the PostgreSQL source's tests (see tests/_postgres_cluster.py).
pytest_plugins = ["tests._postgres_cluster", "tests._pgvector_cluster"]
