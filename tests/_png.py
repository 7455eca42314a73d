"""A small PNG reader for tests: the distinct colours of a screenshot (8-bit RGB or RGBA,
non-interlaced, as Chromium writes them), so a test can tell a drawn page from a blank one
without an imaging library."""

from __future__ import annotations

import struct
import zlib

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel at bit depth 8


def _paeth(left: int, up: int, corner: int) -> int:
    estimate = left + up - corner
    to_left, to_up, to_corner = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
    if to_left <= to_up and to_left <= to_corner:
        return left
    return up if to_up <= to_corner else corner


def png_size_and_rows(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered rows (``channels * width`` bytes each) of a PNG."""
    assert data.startswith(_SIGNATURE), "not a PNG"
    at = len(_SIGNATURE)
    header = b""
    compressed = bytearray()
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            compressed += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in _CHANNELS and interlace == 0, (depth, colour, interlace)
    step = _CHANNELS[colour]
    raw = zlib.decompress(bytes(compressed))
    stride = width * step
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        method = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if method == 1:
                line[i] = (line[i] + left) & 0xFF
            elif method == 2:
                line[i] = (line[i] + up) & 0xFF
            elif method == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif method == 4:
                line[i] = (line[i] + _paeth(left, up, corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def distinct_colours(data: bytes) -> int:
    """How many distinct pixel values a PNG holds (1 for a blank page)."""
    width, _, rows = png_size_and_rows(data)
    step = len(rows[0]) // width if rows else 1
    return len({row[i : i + step] for row in rows for i in range(0, len(row), step)})
