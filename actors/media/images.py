"""An image as the model takes it: decoded once to prove it is whole, scaled down to the
Messages API's limits, and re-encoded only when it had to change.

The API takes PNG, JPEG, GIF and WebP, at most 8000 px a side and 5 MB of data per image, and
scales anything over about 1.15 megapixels down on its side, billing about one token per 750
pixels. Scaling down here to ``LONG_EDGE`` costs the same tokens as the API's own resize and
sends far fewer bytes. Pillow decodes: a decompression bomb (a small file of a huge image) is
refused from its header, before any pixel is decoded.
"""

from __future__ import annotations

import base64
import io
import warnings
from typing import TYPE_CHECKING

import msgspec

from actors.errors import MediaUnreadable

if TYPE_CHECKING:
    from actors.protocol import Block

# What the API accepts, by the media type it is sent as.
MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
LONG_EDGE = 1568  # px: the API's own resize target; larger only costs bytes
MAX_BYTES = 5 * 1024 * 1024  # per image, before base64
# An image of more pixels than this is refused from its header (a 100 MP photo, a bomb): its
# decoded pixels alone would be hundreds of megabytes.
MAX_PIXELS = 50_000_000
PIXELS_PER_TOKEN = 750


class Prepared(msgspec.Struct, frozen=True, kw_only=True):
    """An image ready to send, and what was done to it, for the person and the model."""

    block: Block  # {"type": "image", "source": {"type": "base64", ...}}
    width: int  # as sent
    height: int
    tokens: int  # what the model is billed for it, about
    original: tuple[int, int]  # width and height as the file had them
    bytes_sent: int

    def describe(self) -> str:
        """``Image 1568x1176 px (scaled from 4032x3024), about 2,459 tokens``."""
        size = f"{self.width}x{self.height} px"
        if (self.width, self.height) != self.original:
            size += f" (scaled from {self.original[0]}x{self.original[1]})"
        return f"Image {size}, about {self.tokens:,} tokens"


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


def tokens_for(width: int, height: int) -> int:
    return max(1, (width * height + PIXELS_PER_TOKEN - 1) // PIXELS_PER_TOKEN)


def prepare(data: bytes, *, name: str) -> Prepared:
    """``data`` as an image block within the API's limits. ``name`` says which image in the
    messages (a path, ``[Image #1]``). Raises MediaUnreadable naming it: not an image the API
    takes, corrupt or truncated, or too many pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # Pillow warns of a large image before it refuses a larger one: both are refused
            # here, by MAX_PIXELS, with one message.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            width, height = image.size
            kind = image.format or ""
            if kind not in MEDIA_TYPES:
                raise MediaUnreadable(
                    f"{name} is a {kind or 'kind of'} image the model cannot take; it takes PNG, "
                    "JPEG, GIF and WebP",
                    remedy="Convert it to PNG or JPEG and try again",
                )
            if width * height > MAX_PIXELS:
                raise MediaUnreadable(
                    f"{name} is {width}x{height} px ({width * height / 1e6:.0f} megapixels), more "
                    f"than the {MAX_PIXELS // 1_000_000} megapixels Legato decodes",
                    remedy="Scale it down or crop it first (for example to 2000 px wide)",
                )
            image.load()  # decodes every pixel: a truncated or corrupt file fails here
    except MediaUnreadable:
        raise
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        Image.DecompressionBombError,
    ) as error:
        raise MediaUnreadable(
            f"{name} could not be read as an image: {error}",
            remedy="Check that the file is a whole PNG, JPEG, GIF or WebP image",
        ) from None
    scale = min(1.0, LONG_EDGE / max(width, height))
    if scale == 1.0 and len(data) <= MAX_BYTES:
        sent, media_type, size = data, MEDIA_TYPES[kind], (width, height)
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
        original=(width, height),
        bytes_sent=len(sent),
    )


def _shrink(image: object, scale: float, kind: str) -> tuple[bytes, str, tuple[int, int]]:
    """The image scaled by ``scale`` and saved again: PNG where it has transparency or was
    PNG, JPEG otherwise; smaller again until it is within MAX_BYTES."""
    from PIL import Image

    assert isinstance(image, Image.Image)
    if getattr(image, "n_frames", 1) > 1:
        image.seek(0)  # an animation: its first frame stands for it
    keep_alpha = image.mode in ("RGBA", "LA", "P") or kind == "PNG"
    while True:
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        frame = image.convert("RGBA" if keep_alpha else "RGB").resize(
            size, Image.Resampling.LANCZOS
        )
        out = io.BytesIO()
        if keep_alpha:
            frame.save(out, "PNG", optimize=True)
            media_type = "image/png"
        else:
            frame.save(out, "JPEG", quality=85)
            media_type = "image/jpeg"
        if out.tell() <= MAX_BYTES or max(size) <= 200:
            return out.getvalue(), media_type, size
        scale *= 0.75
