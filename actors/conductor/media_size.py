"""The size of an image or a PDF already in the conversation, read from its base64 without
decoding its pixels or pages: a context estimate runs often, and must stay cheap.

A wrong or unreadable header answers None (or no pages): the caller then counts a conservative
figure, never an error, as these are only estimates.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct

# A page object of a PDF (``/Type /Page``, not the ``/Pages`` tree above them). Pages kept
# in compressed object streams are not seen: the caller's figure covers that.
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start-of-frame markers


def image_size(data: str) -> tuple[int, int] | None:
    """Width and height of a base64 PNG, GIF, WebP or JPEG, from its header."""
    # PNG, GIF and WebP say their size in the first 30 bytes; JPEG's frame header may follow
    # a large thumbnail, so it alone is decoded whole.
    head = _decode(data[:64])
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        return _positive(*struct.unpack(">II", head[16:24]))
    if head.startswith((b"GIF87a", b"GIF89a")) and len(head) >= 10:
        return _positive(*struct.unpack("<HH", head[6:10]))
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        return _webp(head)
    if head.startswith(b"\xff\xd8"):
        return _jpeg(_decode(data))
    return None


def pdf_page_count(data: str) -> int:
    """The page objects a base64 PDF holds; 0 when none are seen."""
    return len(_PAGE.findall(_decode(data)))


def _decode(data: str) -> bytes:
    cut = len(data) - len(data) % 4
    try:
        return base64.b64decode(data[:cut], validate=False)
    except (binascii.Error, ValueError):
        return b""


def _positive(width: int, height: int) -> tuple[int, int] | None:
    return (width, height) if width > 0 and height > 0 else None


def _webp(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return _positive(width, height)
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return _positive(width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L":
        bits = int.from_bytes(head[21:25], "little")
        return _positive((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    return None


def _jpeg(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte before a marker
            at += 1
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if marker in _JPEG_FRAMES:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return _positive(width, height)
        at += 2 + length
    return None
