"""An image as the model takes it: decoded once to prove it is whole, scaled down to the
Messages API's limits, and re-encoded only when it had to change.

The API takes PNG, JPEG, GIF and WebP, at most 8000 px a side and 5 MB of data per image; it
scales an image down on its side when its long edge is over 1568 px or it would cost more than
about 1,600 tokens (one token per 750 pixels). Scaling down here to the same bounds
(``fit_scale``) costs the same tokens as the API's own resize, sends far fewer bytes, and makes
the cost shown the cost billed. Pillow decodes: a decompression bomb (a small file of a huge
image) is refused from its header, before any pixel is decoded.
"""

from __future__ import annotations

import base64
import io
import math
import threading
import warnings
from typing import TYPE_CHECKING

import msgspec

from actors.counts import counted
from actors.errors import MediaUnreadable

if TYPE_CHECKING:
    from PIL import Image

    from actors.protocol import Block

# What the API accepts, by the media type it is sent as.
MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
LONG_EDGE = 1568  # px: the API's own resize target; larger only costs bytes
SENT_PIXELS = 1_200_000  # about 1,600 tokens: past it the API scales the image down itself
# Per image, as sent: the API measures the base64 text, a third larger than the file.
MAX_BYTES = 5 * 1024 * 1024
# An image that would decode to more pixels than this is refused from its header (a 100 MP
# PNG, a bomb): its decoded pixels alone would be hundreds of megabytes. A JPEG counts at the
# reduced scale it is decoded at.
MAX_PIXELS = 50_000_000
PIXELS_PER_TOKEN = 750
# One image at a time: the warnings filter is process-wide, and two threads changing it at once
# can leave it changed for good. A cancelled Read's thread still holds this until it is done.
_PILLOW = threading.Lock()


class Prepared(msgspec.Struct, frozen=True, kw_only=True):
    """An image ready to send, and what was done to it, for the person and the model."""

    block: Block  # {"type": "image", "source": {"type": "base64", ...}}
    width: int  # as sent
    height: int
    tokens: int  # what the model is billed for it, about
    original: tuple[int, int]  # width and height as the file had them
    bytes_sent: int

    def describe(self) -> str:
        """``Image 1265x949 px (scaled from 4032x3024), about 1,601 tokens``."""
        size = f"{self.width}x{self.height} px"
        if (self.width, self.height) != self.original:
            size += f" (scaled from {self.original[0]}x{self.original[1]})"
        return f"Image {size}, about {counted(self.tokens, 'token')}"


def sniff(head: bytes) -> str | None:
    """The media type of an image the API takes, from the file's first bytes; None otherwise."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def encoded_size(size: int) -> int:
    """The length of ``size`` bytes in base64."""
    return (size + 2) // 3 * 4


def tokens_for(width: int, height: int) -> int:
    return max(1, (width * height + PIXELS_PER_TOKEN - 1) // PIXELS_PER_TOKEN)


# Kinds of image a person may well have that the API does not take, by their first bytes: named
# in the refusal, so that the remedy (convert it) is plainly the one.
_OTHER_KINDS = (
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"8BPS", "Photoshop"),
)


def _other_kind(head: bytes) -> str | None:
    for magic, kind in _OTHER_KINDS:
        if head.startswith(magic):
            return kind
    if head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"mif1", b"msf1"):
        return "HEIC"
    if head[4:8] == b"ftyp" and head[8:12] in (b"avif", b"avis"):
        return "AVIF"
    if b"<svg" in head or head.lstrip().startswith(b"<?xml"):
        return "SVG"
    return None


def _article(kind: str) -> str:
    return "an" if kind in ("AVIF", "ICO", "SVG") else "a"


def prepare(data: bytes, *, name: str) -> Prepared:
    """``data`` as an image block within the API's limits. ``name`` says which image in the
    messages (a path, ``[Image #1]``). Raises MediaUnreadable naming it: not an image the API
    takes, corrupt or truncated, or too many pixels."""
    media_type = sniff(data[:16])
    if media_type is None:
        kind = _other_kind(data[:64])
        what = (
            f"{_article(kind)} {kind} image, which the model cannot take"
            if kind
            else "not an image the model can take"
        )
        raise MediaUnreadable(
            f"{name} is {what}; it takes PNG, JPEG, GIF and WebP",
            remedy="Convert it to PNG or JPEG and try again",
        )
    with _PILLOW, warnings.catch_warnings():
        # Pillow warns of odd files it can still read (corrupt EXIF, a large image): a warning
        # would print over the terminal. What it cannot read raises, and is refused below.
        warnings.simplefilter("ignore")
        image, stored = _decoded(data, name, media_type)
        kind = image.format or "PNG"  # a turned copy has none
        whole = image.size == stored  # not decoded at a JPEG's reduced scale
        turn = _orientation(image)
        if turn != 1:
            from PIL import ImageOps

            # A phone stores its photos as the sensor saw them and says in EXIF how to turn
            # them: the model must see the photo the right way up.
            image = ImageOps.exif_transpose(image)
        width, height = stored if turn < 5 else stored[::-1]
        scale = fit_scale(*image.size)
        fits = encoded_size(len(data)) <= MAX_BYTES
        if scale == 1.0 and whole and fits and turn == 1 and _plain(image):
            sent, size = data, image.size
        else:
            sent, media_type, size = _shrink(image, scale, kind)
    encoded = base64.b64encode(sent).decode("ascii")
    block: Block = {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": encoded},
    }
    return Prepared(
        block=block,
        width=size[0],
        height=size[1],
        tokens=tokens_for(*size),
        original=(width, height),  # upright, as the person sees it
        bytes_sent=len(sent),
    )


def fit_scale(width: int, height: int) -> float:
    """How much to scale an image of this size so that the API takes it as it is: its long
    edge at most LONG_EDGE and its pixels at most SENT_PIXELS; 1.0 when it already fits."""
    return min(1.0, LONG_EDGE / max(width, height), math.sqrt(SENT_PIXELS / (width * height)))


def _decoded(data: bytes, name: str, media_type: str) -> tuple[Image.Image, tuple[int, int]]:
    """The image, every pixel of its first frame decoded, and its size as stored; refused from
    its header when it has too many pixels, so a bomb costs nothing. A large JPEG is decoded at
    a half, quarter or eighth of its size, no smaller than what is sent: several times faster,
    and a fraction of the memory."""
    from PIL import Image, UnidentifiedImageError

    # Only the kind the bytes claim is tried: no other of Pillow's decoders sees the file.
    kind = next(k for k, v in MEDIA_TYPES.items() if v == media_type)
    try:
        image = Image.open(io.BytesIO(data), formats=[kind])
        width, height = image.size
        ratio = fit_scale(width, height)
        if image.format in ("JPEG", "MPO") and ratio < 1.0:
            image.draft(image.mode, (math.ceil(width * ratio), math.ceil(height * ratio)))
        # The cap is on the pixels decoded: a 108 MP phone photo decodes at a quarter of its
        # size, well under it, while a PNG is decoded whole.
        if image.size[0] * image.size[1] > MAX_PIXELS:
            raise _too_big(name, width, height)
        image.load()  # decodes every pixel: a truncated or corrupt file fails here
    except MediaUnreadable:
        raise
    except Image.DecompressionBombError:
        # Pillow refuses from the header before MAX_PIXELS could: far more pixels than that.
        raise MediaUnreadable(
            f"{name} declares more pixels than Legato decodes (over "
            f"{MAX_PIXELS // 1_000_000} megapixels): a huge image or a decompression bomb",
            remedy="Scale it down or crop it first (for example to 2000 px wide)",
        ) from None
    except UnidentifiedImageError:
        # Pillow's own words here name its in-memory buffer, which means nothing to anyone.
        shown_kind = "WebP" if kind == "WEBP" else kind
        raise MediaUnreadable(
            f"{name} could not be read as an image: it starts as a {shown_kind} file but the "
            "rest is not one (cut short or damaged)",
            remedy="Check that the file is a whole PNG, JPEG, GIF or WebP image",
        ) from None
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        words = str(error) or type(error).__name__
        raise MediaUnreadable(
            f"{name} could not be read as an image: {words}",
            remedy="Check that the file is a whole PNG, JPEG, GIF or WebP image",
        ) from None
    return image, (width, height)


def _too_big(name: str, width: int, height: int) -> MediaUnreadable:
    return MediaUnreadable(
        f"{name} is {width}x{height} px ({width * height / 1e6:.0f} megapixels), more "
        f"than the {MAX_PIXELS // 1_000_000} megapixels Legato decodes",
        remedy="Scale it down or crop it first (for example to 2000 px wide)",
    )


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation (1: as stored; 5-8: turned a quarter), 1 where it says none."""
    try:
        value = image.getexif().get(0x0112, 1)
    except (OSError, SyntaxError, ValueError):  # a corrupt EXIF block: the image as stored
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _plain(image: Image.Image) -> bool:
    """Whether the file can go as it is: colours the model reads as a viewer shows them (not
    CMYK, which the API's decoders may show inverted, nor 16-bit samples)."""
    return image.mode in ("1", "L", "LA", "P", "PA", "RGB", "RGBA")


def _floor(length: float) -> int:
    return max(1, math.floor(length + 1e-9))


def _shrink(image: Image.Image, scale: float, kind: str) -> tuple[bytes, str, tuple[int, int]]:
    """The image scaled by ``scale`` and saved again: PNG where it has transparency or was
    PNG, JPEG otherwise; smaller again until it is within MAX_BYTES."""
    from PIL import Image

    # An animation's first frame (the one decoded) stands for it.
    keep_alpha = kind in ("PNG", "GIF") or "A" in image.getbands() or image.mode == "P"
    source = _eight_bit(image)
    while True:
        # Down, not to the nearest: rounded up, the pixels could pass SENT_PIXELS by a few.
        size = (_floor(source.width * scale), _floor(source.height * scale))
        frame = source.convert("RGBA" if keep_alpha else "RGB")
        if size != frame.size:
            frame = frame.resize(size, Image.Resampling.LANCZOS)
        out = io.BytesIO()
        if keep_alpha:
            frame.save(out, "PNG", optimize=True)
            media_type = "image/png"
        else:
            frame.save(out, "JPEG", quality=85)
            media_type = "image/jpeg"
        if encoded_size(out.tell()) <= MAX_BYTES or max(size) <= 200:
            return out.getvalue(), media_type, size
        scale *= 0.75


def _eight_bit(image: Image.Image) -> Image.Image:
    """16-bit and 32-bit grey as 8-bit grey: converted directly, Pillow clips every sample
    over 255 and a 16-bit scan comes out white."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        top = image.getextrema()[1]
        wide = image.mode.startswith("I;16") or (isinstance(top, int) and top > 255)
        high = 65535 if wide else 255
        return image.convert("I").point(lambda value: value * (255 / high)).convert("L")
    if image.mode == "F":
        return image.convert("L")
    if image.mode == "P" and "transparency" in image.info:
        return image.convert("RGBA")  # Pillow warns when a palette's transparency is dropped
    return image
