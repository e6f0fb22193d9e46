"""Images made ready for the model: within the API's limits, the right way up, and a clear
refusal for every file that cannot be."""

from __future__ import annotations

import base64
import io
import random

import pytest
from PIL import Image

from actors.errors import MediaUnreadable
from actors.media.images import LONG_EDGE, MAX_BYTES, encoded_size, prepare
from tests.media.files import declaring, image


def _sent(block: object) -> Image.Image:
    assert isinstance(block, dict)
    return Image.open(io.BytesIO(base64.b64decode(block["source"]["data"])))


def test_a_small_image_goes_as_it_is() -> None:
    data = image(800, 600)
    ready = prepare(data, name="shot.png")
    assert ready.block["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": base64.b64encode(data).decode(),
    }
    assert (ready.width, ready.height, ready.tokens) == (800, 600, 640)
    assert ready.describe() == "Image 800x600 px, about 640 tokens"
    assert prepare(image(20, 20), name="dot.png").describe() == "Image 20x20 px, about 1 token"


def test_a_large_photo_is_scaled_to_what_the_api_would_keep_of_it() -> None:
    # 12 MP: within about 1,600 tokens (1.2 MP), as the API would scale it itself.
    ready = prepare(image(4032, 3024, "JPEG"), name="photo.jpg")
    assert (ready.width, ready.height) == (1264, 948)
    assert ready.block["source"]["media_type"] == "image/jpeg"
    assert _sent(ready.block).size == (1264, 948)
    assert ready.describe() == "Image 1264x948 px (scaled from 4032x3024), about 1,598 tokens"
    assert ready.bytes_sent <= MAX_BYTES


def test_a_phone_photo_arrives_the_right_way_up() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # stored on its side: turn it a quarter clockwise to view
    ready = prepare(image(200, 100, "JPEG", exif=exif.tobytes()), name="phone.jpg")
    assert (ready.width, ready.height) == (100, 200)
    sent = _sent(ready.block).convert("RGB")
    top, bottom = sent.getpixel((50, 10)), sent.getpixel((50, 190))
    assert isinstance(top, tuple) and isinstance(bottom, tuple)
    assert top[0] > 200 and top[2] < 60  # the red half, once the left, is now on top
    assert bottom[2] > 200 and bottom[0] < 60
    assert ready.describe() == "Image 100x200 px, about 27 tokens"
    assert ready.block["source"]["media_type"] == "image/jpeg"  # a photo stays a JPEG


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (declaring(50_000, 50_000), "shot.png declares more pixels than Legato decodes"),
        (declaring(10_000, 10_000), "shot.png is 10000x10000 px (100 megapixels)"),
        (image(300, 200, "JPEG")[:700], "shot.png could not be read as an image"),
        (image(4000, 3000, "JPEG")[:20_000], "shot.png could not be read as an image"),
        (image(30, 20)[:29] + b"\0\0\0\0" + image(30, 20)[33:], "could not be read as an image"),
        (image(30, 20, "BMP"), "shot.png is a BMP image, which the model cannot take"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "shot.png is an SVG image"),
        (b"plain words", "shot.png is not an image the model can take"),
        (
            b"\x89PNG\r\n\x1a\n",
            "shot.png could not be read as an image: it starts as a PNG file but the rest is not "
            "one (cut short or damaged)",
        ),
    ],
    ids=[
        "bomb",
        "100-megapixels",
        "truncated-jpeg",
        "truncated-large-jpeg",
        "bad-crc",
        "bmp",
        "svg",
        "text",
        "header-only",
    ],
)
def test_a_bad_image_is_refused_with_a_clear_message(data: bytes, words: str) -> None:
    with pytest.raises(MediaUnreadable) as refused:
        prepare(data, name="shot.png")
    assert words in refused.value.message
    assert "object at 0x" not in refused.value.message  # never Python's words for a buffer
    assert refused.value.remedy
    prepare(image(10, 10), name="next.png")  # and the next one works


def test_a_phone_photo_of_over_a_hundred_megapixels_is_read_at_a_reduced_scale() -> None:
    # 12000 x 9000 (108 MP, as some phones take): decoded at a quarter, 6.75 MP, under the cap.
    out = io.BytesIO()
    Image.new("L", (12_000, 9_000), 128).save(out, "JPEG")  # one grey: quick to make
    ready = prepare(out.getvalue(), name="phone.jpg")
    assert ready.original == (12_000, 9_000)
    assert (ready.width, ready.height) == (1264, 948)


def test_a_long_strip_is_held_to_the_long_edge() -> None:
    ready = prepare(image(3136, 200), name="strip.png")
    assert (ready.width, ready.height) == (LONG_EDGE, 100)


def test_an_animated_gif_goes_whole_and_a_large_one_as_its_first_frame() -> None:
    frames = [Image.new("RGB", (40, 30), colour) for colour in ("red", "blue")]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100)
    small = prepare(out.getvalue(), name="a.gif")
    assert small.block["source"]["media_type"] == "image/gif"
    big = [Image.new("RGB", (2000, 1000), colour) for colour in ("red", "blue")]
    out = io.BytesIO()
    big[0].save(out, "GIF", save_all=True, append_images=big[1:], duration=100)
    large = prepare(out.getvalue(), name="b.gif")
    assert (large.width, large.height) == (1549, 774)  # 1.2 MP, the API's bound
    first = _sent(large.block).convert("RGB").getpixel((10, 10))
    assert first == (255, 0, 0)


def test_sixteen_bit_grey_keeps_its_tones() -> None:
    grey = Image.new("I;16", (2000, 100), 32768)
    out = io.BytesIO()
    grey.save(out, "PNG")
    ready = prepare(out.getvalue(), name="scan.png")
    pixel = _sent(ready.block).convert("L").getpixel((100, 50))
    assert isinstance(pixel, int) and 120 <= pixel <= 135  # mid-grey, not clipped to white


def test_cmyk_is_sent_as_rgb() -> None:
    ready = prepare(image(60, 40, "JPEG", mode="CMYK"), name="print.jpg")
    sent = _sent(ready.block)
    assert sent.mode == "RGB"
    pixel = sent.getpixel((5, 5))
    assert isinstance(pixel, tuple) and pixel[0] > 200 and pixel[2] < 60


def test_a_palette_with_transparency_keeps_it() -> None:
    picture = Image.new("P", (2000, 100), 0)
    picture.putpalette([255, 0, 0, 0, 0, 255])
    picture.paste(1, (1000, 0, 2000, 100))
    out = io.BytesIO()
    picture.save(out, "PNG", transparency=0)
    ready = prepare(out.getvalue(), name="icon.png")
    assert ready.block["source"]["media_type"] == "image/png"
    sent = _sent(ready.block)
    assert sent.mode == "RGBA"
    assert sent.getpixel((5, 5))[3] == 0  # type: ignore[index]
    assert sent.getpixel((1500, 30)) == (0, 0, 255, 255)


def test_an_image_whose_base64_is_over_the_limit_is_made_smaller() -> None:
    noise = Image.frombytes("RGB", (1200, 1200), random.Random(7).randbytes(1200 * 1200 * 3))
    out = io.BytesIO()
    noise.save(out, "PNG", compress_level=1)
    data = out.getvalue()
    assert len(data) < MAX_BYTES < encoded_size(len(data))  # the file fits; its base64 not
    ready = prepare(data, name="noise.png")
    assert encoded_size(ready.bytes_sent) <= MAX_BYTES
    assert len(ready.block["source"]["data"]) <= MAX_BYTES
    assert ready.width < 1200 and ready.original == (1200, 1200)
