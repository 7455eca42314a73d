"""The options several commands share, and the library's defaults they show.

The defaults are repeated here so that ``--help`` needs no library import; tests/test_cli_surface.py
pins them to thrift_fp.records.TRUST_TIERS and thrift_fp.sources.DEFAULT_MAX_TOKENS.
"""

from __future__ import annotations

import enum
from typing import Final, Literal, get_args

Tier = Literal["first-party", "third-party-public", "third-party-private"]
TIER_CHOICES: Final[tuple[Tier, ...]] = get_args(Tier)
DEFAULT_MAX_TOKENS: Final = 256
DEFAULT_WINDOW: Final = 4096
# `fit` when the protected floor alone exceeds the budget (``"fits": false``).
EXIT_DOES_NOT_FIT: Final = 3
# thrift_fp.cli._postgres.DATABASE_URL_ENV, repeated: that module loads the library.
DATABASE_URL_ENV: Final = "THRIFT_FP_DATABASE_URL"


class TierOption(enum.StrEnum):
    """A repeatable ``--tier`` (typer lists an enum's choices; it cannot list a list of Literal)."""

    FIRST_PARTY = "first-party"
    THIRD_PARTY_PUBLIC = "third-party-public"
    THIRD_PARTY_PRIVATE = "third-party-private"


def tiers_of(chosen: list[TierOption] | None) -> tuple[Tier, ...]:
    # A filter of the canonical tuple: typed as the library's tiers, in its order, no repeats.
    return tuple(tier for tier in TIER_CHOICES if not chosen or tier in chosen)


DB_HELP = (
    "Index to search, or a postgresql:// URL (default: the nearest thrift-fp.db in this folder or"
    " one above, else the embedded corpus, indexed once into the user cache folder)."
)
