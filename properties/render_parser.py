"""A strict parser for rendered retrievables, written for the tests (the package never uses it).

It knows the format from the outside: the directive, an optional ``<retrieved_corpus>`` block of
nonce-keyed children, then nonce-keyed untrusted-content envelopes, public before private. A body
runs from its opening tag to the FIRST closing tag with that tag's nonce, which must then be
followed by exactly the expected separator; anything else is a `RenderParseError`. So a body that
closed its own envelope early would be cut short and the parse (or the body comparison) fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from thrift_fp.render import SAFETY_DIRECTIVE

_ATTRIBUTES: Final = r'((?: [a-z_]+="(?:[^"<>&]|&(?:amp|lt|gt|quot);)*")*)'
_FIRST_OPEN: Final = re.compile(r"<retrieved_([0-9a-f]{32})" + _ATTRIBUTES + r">\n")
_THIRD_OPEN: Final = re.compile(r"<untrusted_content_([0-9a-f]{32})" + _ATTRIBUTES + r">\n")
_ATTRIBUTE: Final = re.compile(r' ([a-z_]+)="([^"]*)"')
_ENTITY: Final = re.compile(r"&(amp|lt|gt|quot);")
_UNESCAPED: Final = {"amp": "&", "lt": "<", "gt": ">", "quot": '"'}

_FIRST_ORDER: Final = ("source", "nonce", "created_at", "kind", "score")
_THIRD_ORDER: Final = ("kind", "tool", "nonce", "created_at", "content_kind", "score")
_TIER_OF_KIND: Final = {
    "retrieved-third-party-public": "third-party-public",
    "retrieved-third-party-private": "third-party-private",
}


class RenderParseError(ValueError):
    """The text is not exactly the rendered format."""


@dataclass(frozen=True, slots=True)
class ParsedEnvelope:
    """One envelope: its block (trust tier), nonce, unescaped attributes in order, and body."""

    block: str
    nonce: str
    attributes: tuple[tuple[str, str], ...]
    body: str

    def attribute(self, name: str) -> str | None:
        return dict(self.attributes).get(name)


def _unescape(value: str) -> str:
    return _ENTITY.sub(lambda match: _UNESCAPED[match.group(1)], value)


def _attributes(raw: str, order: tuple[str, ...], nonce: str) -> tuple[tuple[str, str], ...]:
    pairs = tuple((name, _unescape(value)) for name, value in _ATTRIBUTE.findall(raw))
    names = [name for name, _ in pairs]
    if names != [name for name in order if name in names]:
        raise RenderParseError(f"attributes {names} are not a subsequence of {order}")
    values = dict(pairs)
    if values.get("nonce") != nonce:
        raise RenderParseError(f"nonce attribute {values.get('nonce')!r} differs from tag nonce {nonce!r}")
    if "created_at" not in values:
        raise RenderParseError("created_at attribute missing")
    return pairs


def _envelope(
    text: str, pos: int, opening: re.Pattern[str], tag: str, order: tuple[str, ...], separator: str
) -> tuple[str, str, tuple[tuple[str, str], ...], str, int]:
    match = opening.match(text, pos)
    if match is None:
        raise RenderParseError(f"expected a <{tag}_…> opening tag at {pos}: {text[pos:pos + 60]!r}")
    nonce = match.group(1)
    attributes = _attributes(match.group(2), order, nonce)
    closing = f"</{tag}_{nonce}>"
    end = text.find(closing, match.end())
    if end - 1 < match.end() or text[end - 1] != "\n":
        raise RenderParseError(f"closing tag {closing} missing or not on its own line")
    after = end + len(closing)
    if not text.startswith(separator, after):
        raise RenderParseError(f"{closing} at {end} is not followed by {separator!r}")
    return tag, nonce, attributes, text[match.end() : end - 1], after + len(separator)


def parse_rendered(text: str) -> tuple[ParsedEnvelope, ...]:
    """Every envelope in ``text``, in order; raises `RenderParseError` on any deviation."""
    if text == "":
        return ()
    head = SAFETY_DIRECTIVE + "\n\n"
    if not text.startswith(head):
        raise RenderParseError("text does not start with the safety directive and a blank line")
    pos = len(head)
    envelopes: list[ParsedEnvelope] = []
    if text.startswith("<retrieved_corpus>\n", pos):
        pos += len("<retrieved_corpus>\n")
        while not text.startswith("</retrieved_corpus>\n\n", pos):
            _, nonce, attributes, body, pos = _envelope(
                text, pos, _FIRST_OPEN, "retrieved", _FIRST_ORDER, "\n"
            )
            envelopes.append(ParsedEnvelope("first-party", nonce, attributes, body))
        if not envelopes:
            raise RenderParseError("empty <retrieved_corpus> block")
        pos += len("</retrieved_corpus>\n\n")
    seen_private = False
    while pos < len(text):
        _, nonce, attributes, body, pos = _envelope(
            text, pos, _THIRD_OPEN, "untrusted_content", _THIRD_ORDER, "\n\n"
        )
        block = _TIER_OF_KIND.get(dict(attributes).get("kind", ""))
        if block is None:
            raise RenderParseError(f"untrusted-content envelope {nonce} has no third-party kind")
        if block == "third-party-public" and seen_private:
            raise RenderParseError(f"public envelope {nonce} after a private one")
        seen_private = seen_private or block == "third-party-private"
        envelopes.append(ParsedEnvelope(block, nonce, attributes, body))
    if not envelopes:
        raise RenderParseError("a directive with no envelopes")
    nonces = [envelope.nonce for envelope in envelopes]
    if len(set(nonces)) != len(nonces):
        raise RenderParseError("two envelopes share a nonce")
    return tuple(envelopes)


def bodies_open_or_close_nothing(envelopes: tuple[ParsedEnvelope, ...]) -> bool:
    """No body holds any envelope's nonce (in any case), so none can open or close an envelope."""
    nonces = [envelope.nonce for envelope in envelopes]
    return not any(nonce in envelope.body.lower() for envelope in envelopes for nonce in nonces)
