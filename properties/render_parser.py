"""A strict parser for rendered retrievables, written for the tests (the package never uses it).

It knows the format from the outside: the directive, then up to three blocks in tier order (a
``<corpusN>`` block, then ``<untrustedN tier=…>`` blocks, public before private), each holding
one or more sections ``<dataN …>\\nbody\\n`` with the block's nonce ``N``. A body runs from its header
to the FIRST later occurrence of ``\\n<dataN`` or ``\\n</…N>`` for its block's nonce, which must be
exactly the next header or the block's closer; anything else is a `RenderParseError`. So a body that
held its block's nonce in a tag would be cut short, and the parse (or the body comparison) fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from thrift_fp.render import SAFETY_DIRECTIVE

_VALUE: Final = r'(?:"(?:[^"<>&]|&(?:amp|lt|gt|quot|#x[0-9a-f]+);)*"|[^\s"\'<>&=`]+)'
_ATTRIBUTES: Final = r"((?: [a-z_]+=" + _VALUE + r")*)"
_ATTRIBUTE: Final = re.compile(r" ([a-z_]+)=(" + _VALUE + r")")
_HEADER: Final = re.compile(r"<data([0-9]{20})" + _ATTRIBUTES + r">\n")
_CORPUS_OPEN: Final = re.compile(r"<corpus([0-9]{20})>\n")
_THIRD_OPEN: Final = re.compile(r"<untrusted([0-9]{20}) tier=(third-party-public|third-party-private)>\n")
_ENTITY: Final = re.compile(r"&(amp|lt|gt|quot|#x[0-9a-f]+);")
_UNESCAPED: Final = {"amp": "&", "lt": "<", "gt": ">", "quot": '"'}

ORDER: Final = ("id", "src", "tool", "heading", "kind", "score", "date", "created_at", "updated_at")


class RenderParseError(ValueError):
    """The text is not exactly the rendered format."""


@dataclass(frozen=True, slots=True)
class ParsedEnvelope:
    """One record's section: its block (trust tier), the block's nonce, unescaped attributes in
    order, its body, and its exact text (header, body and the newline after it)."""

    block: str
    nonce: str
    attributes: tuple[tuple[str, str], ...]
    body: str
    text: str

    def attribute(self, name: str) -> str | None:
        return dict(self.attributes).get(name)


def _unescape(value: str) -> str:
    if not value.startswith('"'):
        return value
    return _ENTITY.sub(
        lambda match: chr(int(match.group(1)[2:], 16)) if match.group(1).startswith("#") else _UNESCAPED[match.group(1)],
        value[1:-1],
    )


def _attributes(raw: str) -> tuple[tuple[str, str], ...]:
    pairs = tuple((name, _unescape(value)) for name, value in _ATTRIBUTE.findall(raw))
    names = [name for name, _ in pairs]
    if names != [name for name in ORDER if name in names]:
        raise RenderParseError(f"attributes {names} are not a subsequence of {ORDER}")
    return pairs


def _block(text: str, pos: int, tier: str, wrapper: str, nonce: str) -> tuple[list[ParsedEnvelope], int]:
    closer = f"</{wrapper}{nonce}>\n\n"
    header_start = f"\n<data{nonce}"
    sections: list[ParsedEnvelope] = []
    while True:
        header = _HEADER.match(text, pos)
        if header is None or header.group(1) != nonce:
            raise RenderParseError(f"expected a <data{nonce} …> header at {pos}: {text[pos:pos + 60]!r}")
        start = header.end()
        # The body ends at the first newline followed by a tag carrying this block's nonce.
        ends = [at for at in (text.find(header_start, start - 1), text.find(f"\n</{wrapper}{nonce}>", start - 1)) if at >= 0]
        if not ends:
            raise RenderParseError(f"block {nonce} never closes")
        end = min(ends)
        sections.append(
            ParsedEnvelope(tier, nonce, _attributes(header.group(2)), text[start:end], text[pos : end + 1])
        )
        pos = end + 1
        if text.startswith(closer, pos):
            return sections, pos + len(closer)


def parse_rendered(text: str) -> tuple[ParsedEnvelope, ...]:
    """Every record section in ``text``, in order; raises `RenderParseError` on any deviation."""
    if text == "":
        return ()
    head = SAFETY_DIRECTIVE + "\n\n"
    if not text.startswith(head):
        raise RenderParseError("text does not start with the safety directive and a blank line")
    pos = len(head)
    sections: list[ParsedEnvelope] = []
    tiers: list[str] = []
    nonces: list[str] = []
    corpus = _CORPUS_OPEN.match(text, pos)
    if corpus is not None:
        nonces.append(corpus.group(1))
        tiers.append("first-party")
        found, pos = _block(text, corpus.end(), "first-party", "corpus", corpus.group(1))
        sections += found
    while pos < len(text):
        opening = _THIRD_OPEN.match(text, pos)
        if opening is None:
            raise RenderParseError(f"expected an <untrusted… tier=…> block at {pos}: {text[pos:pos + 60]!r}")
        tier = opening.group(2)
        if tier in tiers or (tier == "third-party-public" and "third-party-private" in tiers):
            raise RenderParseError(f"{tier} block out of order or repeated")
        tiers.append(tier)
        nonces.append(opening.group(1))
        found, pos = _block(text, opening.end(), tier, "untrusted", opening.group(1))
        sections += found
    if not sections:
        raise RenderParseError("a directive with no blocks")
    if len(set(nonces)) != len(nonces):
        raise RenderParseError("two blocks share a nonce")
    return tuple(sections)


def bodies_open_or_close_nothing(envelopes: tuple[ParsedEnvelope, ...]) -> bool:
    """No body holds any block's nonce, exactly or disguised (its digit skeleton), so none can open,
    end or forge a tag."""
    from thrift_fp.render._skeleton import digit_skeleton

    nonces = {envelope.nonce for envelope in envelopes}
    return not any(
        nonce in digit_skeleton(envelope.body) or nonce in digit_skeleton(value)
        for envelope in envelopes
        for nonce in nonces
        for value in (envelope.body, *(value for _, value in envelope.attributes))
    )


def split_served(text: str) -> tuple[tuple[ParsedEnvelope, ...], str]:
    """A served answer (`thrift-fp serve`, `ask`) as its envelopes and the text outside them: the
    notes after the blocks, or a note of the server's own alone. The directive, when present, leads;
    notes never hold ``>`` (names in them are quoted), so the blocks end at the last ``>`` and a
    blank line."""
    head = SAFETY_DIRECTIVE + "\n\n"
    if not text.startswith(head):
        return (), text
    rest = text[len(head):]
    if not rest.startswith(("<corpus", "<untrusted")):
        return (), rest
    end = text.rindex(">\n\n") + 3
    return parse_rendered(text[:end]), text[end:]
