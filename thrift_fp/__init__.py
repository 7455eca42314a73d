"""thrift_fp: decide what retrieved knowledge an LLM agent sees, and prove it fits.

Every public name is importable from here. Each layer keeps its own ``__all__``;
this module re-exports them in data-flow order (tokens first).
"""

from beartype.claw import beartype_this_package

from thrift_fp._beartype import CLAW_CONF

beartype_this_package(conf=CLAW_CONF)

from thrift_fp.tokens import *  # noqa: E402,F403
from thrift_fp.tokens import __all__ as _tokens_all  # noqa: E402
from thrift_fp.records import *  # noqa: E402,F403
from thrift_fp.records import __all__ as _records_all  # noqa: E402
from thrift_fp.retrieval import *  # noqa: E402,F403
from thrift_fp.retrieval import __all__ as _retrieval_all  # noqa: E402
from thrift_fp.thrift import *  # noqa: E402,F403
from thrift_fp.thrift import __all__ as _thrift_all  # noqa: E402
from thrift_fp.render import *  # noqa: E402,F403
from thrift_fp.render import __all__ as _render_all  # noqa: E402
from thrift_fp.sources import *  # noqa: E402,F403
from thrift_fp.sources import __all__ as _sources_all  # noqa: E402

__all__ = [
    *_tokens_all,
    *_records_all,
    *_retrieval_all,
    *_thrift_all,
    *_render_all,
    *_sources_all,
]
