"""The one model → encoding table every adapter reads, with each model family's chat framing.

A model name matches an entry when it equals the entry or starts with the entry plus ``-`` (dated
snapshots such as ``gpt-4o-2024-08-06``); the longest match wins, so ``gpt-4o-mini`` is not read as
``gpt-4o`` and ``gpt-4o`` is not read as ``gpt-4``. A provider prefix (``openai:gpt-4o``, as
Pydantic AI writes it) is dropped first.

Framing, from OpenAI's cookbook "How to count tokens with tiktoken": every message costs
``tokens_per_message`` (3) plus its encoded values, a ``name`` costs ``tokens_per_name`` (1) more,
and every reply is primed with 3 tokens. ``gpt-3.5-turbo-0301`` frames with 4 and -1. Function
tools cost ``func_init`` per function (7 for gpt-4o and newer, 10 for gpt-4 and gpt-3.5), plus
``prop_init`` (3) when it has properties, ``prop_key`` (3) per property, ``enum_init`` (-3) per enum
and ``enum_item`` (3) per enum value, and ``func_end`` (12) once for the whole tool list.

Images cannot be measured offline without their pixel size, so each is priced at the most its
detail level can cost under OpenAI's vision pricing: ``low`` costs the base, ``high``/``auto`` the
base plus 8 tiles (the largest tile count an image reaches after the 2048 px and 768 px scaling).
These prices make a count ``estimated``; pass ``image_tokens`` to price images yourself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from returns.result import Failure, Result, Success
from thrift_fp._errors import ErrorValue
from thrift_fp._value import value

_MAX_TILES: Final = 8


@value
class ModelProfile:
    """How a model family counts a chat request: its encoding and its framing constants.

    >>> resolve_model("gpt-4o-2024-08-06").unwrap().encoding
    'o200k_base'
    """

    family: str
    encoding: str
    tokens_per_message: int = 3
    tokens_per_name: int = 1
    reply_priming: int = 3
    func_init: int = 7
    prop_init: int = 3
    prop_key: int = 3
    enum_init: int = -3
    enum_item: int = 3
    func_end: int = 12
    image_base: int = 85
    image_tile: int = 170

    @property
    def image_low(self) -> int:
        """Tokens of a ``detail="low"`` image."""
        return self.image_base

    @property
    def image_high(self) -> int:
        """The most a ``high``/``auto`` image can cost (8 tiles).

        >>> resolve_model("gpt-4o").unwrap().image_high
        1445
        """
        return self.image_base + _MAX_TILES * self.image_tile


_GPT4O: Final = ModelProfile("gpt-4o", "o200k_base")
_GPT4O_MINI: Final = ModelProfile("gpt-4o-mini", "o200k_base", image_base=2833, image_tile=5667)
_O_SERIES: Final = ModelProfile("o-series", "o200k_base", image_base=75, image_tile=150)
_GPT5: Final = ModelProfile("gpt-5", "o200k_base", image_base=70, image_tile=140)
_GPT4: Final = ModelProfile("gpt-4", "cl100k_base", func_init=10)
_GPT35_0301: Final = ModelProfile("gpt-3.5-turbo-0301", "cl100k_base", 4, -1, func_init=10)

MODELS: Final[dict[str, ModelProfile]] = {
    "gpt-5": _GPT5,
    "gpt-5-mini": _GPT5,
    "gpt-5-nano": _GPT5,
    "gpt-4.5-preview": _GPT4O,
    "gpt-4.1": _GPT4O,
    "gpt-4.1-mini": _GPT4O,
    "gpt-4.1-nano": _GPT4O,
    "gpt-4o": _GPT4O,
    "chatgpt-4o-latest": _GPT4O,
    "gpt-4o-mini": _GPT4O_MINI,
    "o1": _O_SERIES,
    "o1-mini": _O_SERIES,
    "o3": _O_SERIES,
    "o3-mini": _O_SERIES,
    "o4-mini": _O_SERIES,
    "gpt-4": _GPT4,
    "gpt-4-turbo": _GPT4,
    "gpt-4-32k": _GPT4,
    "gpt-3.5-turbo": _GPT4,
    "gpt-3.5-turbo-16k": _GPT4,
    "gpt-35-turbo": _GPT4,
    "gpt-3.5-turbo-0301": _GPT35_0301,
}
"""Model name (or snapshot prefix) → profile. Add a model here, nowhere else."""

_BY_ENCODING: Final = {"o200k_base": _GPT4O, "cl100k_base": _GPT4}


class UnknownModel(ErrorValue):
    """A model name the table does not know, with the names it does.

    >>> UnknownModel("gpt-9", ("gpt-4o", "gpt-4")).message
    "unknown model 'gpt-9'; known models (and their dated snapshots): gpt-4o, gpt-4; or pass encoding= explicitly"
    """

    model: str
    known: tuple[str, ...]

    @property
    def message(self) -> str:
        if not self.model:
            return f"no model given; pass model= (one of {', '.join(self.known)}) or encoding="
        return (
            f"unknown model {self.model!r}; known models (and their dated snapshots): {', '.join(self.known)};"
            " or pass encoding= explicitly"
        )


def _strip_provider(model: str) -> str:
    return model.split(":", 1)[1] if ":" in model else model


def resolve_model(model: str | None, encoding: str | None = None) -> Result[ModelProfile, UnknownModel]:
    """The profile of ``model``; ``encoding`` overrides the table's encoding (and names the
    framing family, gpt-4o's for ``o200k_base`` and gpt-4's for ``cl100k_base``, when the model is
    unknown or not given).

    >>> resolve_model("gpt-4-0613").unwrap().encoding
    'cl100k_base'
    >>> resolve_model("openai:gpt-4o-mini").unwrap().family
    'gpt-4o-mini'
    >>> resolve_model("my-finetune", encoding="o200k_base").unwrap().family
    'gpt-4o'
    >>> resolve_model("llama-3").failure().message
    "unknown model 'llama-3'; known models (and their dated snapshots): gpt-5, ..., gpt-3.5-turbo-0301; or pass encoding= explicitly"
    """
    profile = _match(_strip_provider(model)) if model is not None else None
    if profile is None:
        if encoding is None:
            return Failure(UnknownModel(model if model is not None else "", tuple(MODELS)))
        base = _BY_ENCODING.get(encoding, _GPT4O)
        return Success(ModelProfile(base.family, encoding, func_init=base.func_init))
    if encoding is not None and encoding != profile.encoding:
        return Success(replace(profile, encoding=encoding))
    return Success(profile)


def _match(model: str) -> ModelProfile | None:
    best: str | None = None
    for name in MODELS:
        if (model == name or model.startswith(name + "-")) and (best is None or len(name) > len(best)):
            best = name
    return MODELS[best] if best is not None else None
