"""Images and PDFs made by the tests: real files for the real decoders.

The PDFs are written by hand, object by object, so a test can put in exactly what it needs: a
page's text, a broken cross-reference table, RC4 encryption (the PDF standard's revision 2,
which every reader still opens, with or without a user password)."""

from __future__ import annotations

import hashlib
import io
import struct
import zlib
from typing import Any

from PIL import Image

# The standard's padding for passwords (PDF 1.7, 7.6.3.3).
_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
_ID = bytes(range(16))


def image(width: int, height: int, kind: str = "PNG", *, mode: str = "RGB", **save: Any) -> bytes:
    """A ``width`` x ``height`` image: its left half red, its right half blue (so a test can
    tell which way up it arrived)."""
    picture = Image.new("RGB", (width, height), (0, 0, 255))
    picture.paste((255, 0, 0), (0, 0, max(1, width // 2), height))
    if mode != "RGB":
        picture = picture.convert(mode)
    out = io.BytesIO()
    picture.save(out, kind, **save)
    return out.getvalue()


def declaring(width: int, height: int) -> bytes:
    """A PNG of a few bytes whose header declares ``width`` x ``height`` (a decompression bomb
    when that is large): a 1x1 image with its header rewritten, CRC and all."""
    small = image(1, 1)
    chunk = b"IHDR" + struct.pack(">II", width, height) + small[24:29]
    header = struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return small[:8] + header + small[33:]


def pdf(pages: list[str], *, user_password: bytes | None = None) -> bytes:
    """A PDF of one page per text, each drawn in Helvetica; encrypted with RC4 when
    ``user_password`` is given (``b""``: an owner password only, opened without asking)."""
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    key = None if user_password is None else _key(user_password)
    for i, text in enumerate(pages):
        number = 5 + 2 * i
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents {number} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        content = f"BT /F1 14 Tf 20 100 Td ({text}) Tj ET".encode()
        if key is not None:
            content = _rc4(_object_key(key, number), content)
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    trailer = f"/Size {len(objects) + 1} /Root 1 0 R"
    if user_password is not None:
        owner = _rc4(hashlib.md5(_padded(b"owner")).digest()[:5], _padded(user_password))
        user = _rc4(_key(user_password), _PAD)
        objects.append(
            b"<< /Filter /Standard /V 1 /R 2 /O <"
            + owner.hex().encode()
            + b"> /U <"
            + user.hex().encode()
            + b"> /P -4 >>"
        )
        trailer = (
            f"/Size {len(objects) + 1} /Root 1 0 R /Encrypt {len(objects)} 0 R "
            f"/ID [<{_ID.hex()}> <{_ID.hex()}>]"
        )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += f"trailer\n<< {trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _padded(password: bytes) -> bytes:
    return (password + _PAD)[:32]


def _key(user_password: bytes) -> bytes:
    owner = _rc4(hashlib.md5(_padded(b"owner")).digest()[:5], _padded(user_password))
    permissions = (-4).to_bytes(4, "little", signed=True)
    return hashlib.md5(_padded(user_password) + owner + permissions + _ID).digest()[:5]


def _object_key(key: bytes, number: int) -> bytes:
    return hashlib.md5(key + number.to_bytes(3, "little") + b"\0\0").digest()[:10]


def _rc4(key: bytes, data: bytes) -> bytes:
    box = list(range(256))
    j = 0
    for i in range(256):
        j = (j + box[i] + key[i % len(key)]) % 256
        box[i], box[j] = box[j], box[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + box[i]) % 256
        box[i], box[j] = box[j], box[i]
        out.append(byte ^ box[(box[i] + box[j]) % 256])
    return bytes(out)
