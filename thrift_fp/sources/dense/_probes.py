"""Off-topic probes: questions about nothing a docs corpus holds, asked of an index to calibrate its no-match floor.

How close the nearest passage of a corpus comes to a question about nothing in it depends on the
corpus: short API passages (a library reference) sit nearer to almost anything in the model's
space than long prose does. So an index measures it on its own passages. `probe_questions`
are everyday questions, questions about other software stacks, and nonsense made from a seeded
generator. None of them is in the evaluation sets (``benchmarks/eval/questions``).

>>> len(probe_questions()) == len(EVERYDAY) + len(OTHER_STACKS) + NONSENSE
True
>>> probe_questions() == probe_questions()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from functools import cache
from typing import Final, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp.sources.dense._hybrid import MATCH_RULE

_E = TypeVar("_E")

EVERYDAY: Final = (
    "how do I remove a coffee stain from a white shirt",
    "what is the longest river in South America",
    "how many minutes should I steam broccoli",
    "who composed the Four Seasons violin concertos",
    "how can I stop my dog from barking at the mailman",
    "what is the difference between a crocodile and an alligator",
    "how to season a cast iron skillet",
    "when is the best time to prune apple trees",
    "what are the symptoms of a sprained ankle",
    "how do I fold a fitted sheet",
    "which planet has the most moons",
    "how to make a paper airplane that flies far",
    "what is the rule for a tie-break in tennis",
    "how long should bread dough rise before baking",
    "why do leaves change colour in autumn",
    "how do I get rid of fruit flies in the kitchen",
    "what language is spoken in Brazil",
    "how to lower my electricity bill in summer",
    "what is the plot of Pride and Prejudice",
    "how do I improve my posture at a desk",
    "how many calories does a brisk walk burn",
    "what should I pack for a week of camping",
)
OTHER_STACKS: Final = (
    "laravel eloquent relationship returns null",
    "angular change detection not triggered after http call",
    "how to deploy a django app to heroku",
    "vue computed property not reactive",
    "c sharp linq group by multiple columns",
    "android recyclerview items flicker on scroll",
    "how to read a parquet file in spark",
    "ruby on rails migration rollback a single step",
    "go goroutine leak detected in tests",
    "photoshop layer mask not showing",
    "sql server deadlock graph explained",
    "how to install drivers for an nvidia gpu on windows",
)
NONSENSE: Final = 24
"""How many nonsense probes the seeded generator makes."""
_SYLLABLES: Final = (
    "bra", "cle", "dro", "fen", "gal", "hux", "jor", "kib", "lom", "mup", "nax", "obb", "pled", "quor",
    "rin", "sto", "tev", "ulk", "vash", "wim", "yop", "zed", "ath", "eng",
)
_SEED: Final = 20261206


@cache
def probe_questions() -> tuple[str, ...]:
    """The probes, everyday, other stacks, then nonsense: the same tuple in every process.

    >>> probe_questions()[0]
    'how do I remove a coffee stain from a white shirt'
    >>> all(question.strip() for question in probe_questions())
    True
    """
    # A private generator, never the module-level one: the probes must not depend on, or move,
    # anyone else's random state.
    generator = random.Random(_SEED)
    nonsense: list[str] = []
    for index in range(NONSENSE):
        if index % 6 == 5:
            # Runs of one letter: the tokenizer cuts them into pieces no word resembles.
            letter = generator.choice("abcdefghijklmnopqrstuvwxyz")
            nonsense.append(" ".join(letter * generator.randint(3, 6) for _ in range(generator.randint(1, 4))))
            continue
        words = (
            "".join(generator.choice(_SYLLABLES) for _ in range(generator.randint(2, 4)))
            for _ in range(generator.randint(1, 4))
        )
        nonsense.append(" ".join(words))
    return (*EVERYDAY, *OTHER_STACKS, *nonsense)


# Chosen on tuning questions only (benchmarks/no_match_floor.py --choose-calibration: the tune
# halves of all five corpora and offtopic.tune.txt; the probes are neither): the least
# aggressive rule that turns away >= 0.95 of the off-topic tuning asks with no tune hit@5 lost.
FLOOR_QUANTILE: Final = 0.9
"""The share of the probes an index's calibrated floor is set at (nearest rank, before ``FLOOR_MARGIN``)."""
FLOOR_MARGIN: Final = 0.01
"""Added to the probes' quantile: how far above the probes a question must reach to be answered."""
FLOOR_CAP: Final = 0.35
"""The highest floor a calibration may set, whatever the probes reach (on-topic questions come first)."""
FLOOR_RULE: Final = (
    f"probes q{FLOOR_QUANTILE} +{FLOOR_MARGIN} cap {FLOOR_CAP}, {len(EVERYDAY) + len(OTHER_STACKS) + NONSENSE} probes,"
    f" of {MATCH_RULE}"
)
"""Names the rule a stored floor was calibrated by: a floor from another rule is measured again."""


def calibrated_floor(bests: Sequence[float], base: float) -> float:
    """The no-match floor of an index whose probes' match scores (`match_score`) are ``bests``: their
    ``FLOOR_QUANTILE`` plus ``FLOOR_MARGIN``, never below ``base`` (the floor for every index)
    nor above ``FLOOR_CAP``. Rounded to 3 places, as stored.

    >>> calibrated_floor([0.1] * 10, 0.3)
    0.3
    >>> calibrated_floor([0.2] * 8 + [0.35, 0.5], 0.3) == round(min(max(0.35 + FLOOR_MARGIN, 0.3), FLOOR_CAP), 3)
    True
    >>> calibrated_floor([0.9] * 10, 0.3) == FLOOR_CAP
    True
    >>> calibrated_floor([], 0.3)
    0.3
    """
    if not bests:
        return round(base, 3)
    ordered = sorted(bests)
    # The nearest-rank quantile: a score some probe really reached, never an interpolation.
    reached = ordered[min(len(ordered) - 1, max(0, math.ceil(FLOOR_QUANTILE * len(ordered)) - 1))]
    return round(min(max(reached + FLOOR_MARGIN, base), max(FLOOR_CAP, base)), 3)


def calibrate(best_of: Callable[[str], Result[float, _E]], base: float) -> Result[float, _E]:
    """The calibrated floor of an index, ``best_of(question)`` being the `match_score` a search
    of it gives ``question`` with no floor (0 when it finds nothing); the first failure stops it.

    >>> from returns.result import Success
    >>> calibrate(lambda question: Success(0.1), 0.3)
    <Success: 0.3>
    """
    bests: list[float] = []
    for question in probe_questions():
        best = best_of(question)
        if isinstance(best, Failure):
            return best
        bests.append(best.unwrap())
    return Success(calibrated_floor(bests, base))
