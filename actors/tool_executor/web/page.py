"""A fetched body as text: HTML as Markdown, text, JSON and XML as they are, a PDF's text page by
page. Anything else is refused by name, and so is a binary file served under a text type.

HTML goes through html-to-markdown (its Rust core): headings, links, lists, tables and code
blocks are kept; scripts, styles, navigation, headers, footers, asides and forms are dropped.
docs/tools.md has its figures against the standard library's parser.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING

from actors.errors import FetchFailed, MediaUnreadable

if TYPE_CHECKING:
    from actors.tool_executor.web.fetch import Fetched

HTML = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")
# Chrome the converter drops besides scripts and styles: what every page of a site repeats.
CHROME = ["nav", "header", "footer", "aside", "form", "[role=navigation]", "[role=banner]"]
SNIFF = 8192


def media_type(content_type: str) -> tuple[str, str | None]:
    """``text/html; charset=latin-1`` -> ("text/html", "latin-1")."""
    kind, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"') or None
    return kind.strip().lower(), charset


def to_text(page: Fetched) -> tuple[str, str]:
    """The page's text, and what it was: "html", "text", "pdf"."""
    kind, charset = media_type(page.content_type)
    if kind == "application/pdf" or (kind == "application/octet-stream" and _pdf(page.body)):
        if page.cut:
            raise FetchFailed(f"The PDF at {page.url} is larger than WebFetch reads.")
        return _pdf_text(page), "pdf"
    textual = (
        kind in HTML
        or kind.startswith("text/")
        or kind in TEXT_TYPES
        or kind.endswith(("+json", "+xml"))
        or not kind  # no type given: judged by its bytes below
    )
    if not textual:
        raise FetchFailed(
            f"{page.url} is {kind}, not a page WebFetch can read "
            "(it reads HTML, text, JSON, XML and PDF).",
            remedy="Download the file with Bash if it is needed",
        )
    text = _decode(page, charset)
    if kind in HTML or (not kind and "<html" in text[:SNIFF].lower()):
        return markdown(text), "html"
    return text, "text"


def markdown(html: str) -> str:
    import html_to_markdown as h2m

    options = h2m.ConversionOptions(
        preprocessing=h2m.PreprocessingOptions(preset="aggressive"),
        exclude_selectors=CHROME,
        extract_metadata=False,
        skip_images=True,  # an image's address tells the model nothing it can read
    )
    try:
        return str(h2m.convert(html, options).content)
    except Exception as exc:  # the converter's errors have no common root class
        raise FetchFailed(f"The page's HTML could not be converted: {exc}") from None


def _decode(page: Fetched, charset: str | None) -> str:
    head = page.body[:SNIFF]
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise _binary(page)
    try:
        codec = codecs.lookup(charset or "utf-8").name
    except LookupError:
        codec = "utf-8"  # an unknown charset: UTF-8 is what most of the web is
    text = page.body.decode(codec, errors="replace")
    # A text page decodes; a binary one turns into replacement characters. A few are a page
    # with a stray byte (or one cut at the size cap mid-character); many are not text.
    sample = text[:SNIFF]
    if sample and sample.count("\ufffd") > len(sample) // 10:
        raise _binary(page)
    return text


def _binary(page: Fetched) -> FetchFailed:
    kind, _ = media_type(page.content_type)
    return FetchFailed(
        f"{page.url} is served as {kind or 'untyped'} but holds binary data, not text.",
        remedy="Download the file with Bash if it is needed",
    )


def _pdf(body: bytes) -> bool:
    from actors.media.pdf import is_pdf

    return is_pdf(body[:1024])


def _pdf_text(page: Fetched) -> str:
    from actors.media.pdf import read_pages

    try:
        pages = read_pages(page.body, name=page.url, pages=None, documents=False)
    except MediaUnreadable as exc:
        raise FetchFailed(exc.message, remedy=exc.remedy) from None
    return pages.text + (f"\n{pages.note}" if pages.note else "")
