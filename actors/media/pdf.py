"""A PDF as the model takes it: its pages as a document block, or their text page by page for a
provider that takes no documents, with a page range and a cap.

PDFium (through pypdfium2) reads the file: the engine of Chrome's viewer, fast and tolerant of
the broken files found in the wild, and its text extraction keeps the reading order. The
Messages API takes at most 100 pages and a request of 32 MB; one Read gives at most
``MAX_PAGES`` pages, and says how to ask for the rest.
"""

from __future__ import annotations

import base64
import io
import re
import threading
from typing import TYPE_CHECKING

import msgspec

from actors.errors import MediaUnreadable

if TYPE_CHECKING:
    from actors.protocol import Block

MAX_PAGES = 20  # one Read's pages, at most; ``pages`` picks the others
# The API takes a request of at most 32 MB, and a document goes in it as base64, a third larger:
# a bigger selection of pages is given as text.
MAX_BYTES = 20 * 1024 * 1024
MAX_TEXT_CHARS = 200_000  # the pages' text, for a provider without documents
# PDFium is not thread-safe, and a cancelled Read leaves its worker thread to finish on its
# own: one document at a time, in whichever thread.
_PDFIUM = threading.Lock()
_RANGE = re.compile(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?")


def is_pdf(head: bytes) -> bool:
    return head.lstrip()[:5] == b"%PDF-"


class Pages(msgspec.Struct, frozen=True, kw_only=True):
    """The pages picked from a PDF: a document block of them, or their text."""

    total: int  # pages in the file
    first: int  # 1-based, inclusive
    last: int
    note: str = ""  # past the cap: which pages were left out and how to read them
    block: Block | None = None  # a document block of just these pages (documents=True)
    text: str = ""  # "--- page 3 ---\n..." for each page (documents=False)


def page_range(spec: str | None, total: int) -> tuple[int, int]:
    """``"3"`` or ``"3-7"`` (1-based, inclusive) within a PDF of ``total`` pages; None: from
    the first. Raises MediaUnreadable for a range that is not one or lies past the end."""
    if spec is None:
        return 1, min(total, MAX_PAGES)
    found = _RANGE.fullmatch(spec)
    if found is None:
        raise MediaUnreadable(
            f"pages {_cut(spec)!r} is not a page range", remedy="Write pages as '3' or '3-7'"
        )
    first = _number(found.group(1))
    last = _number(found.group(2)) if found.group(2) else first
    if first < 1 or last < first or first > total:
        raise MediaUnreadable(
            f"pages {_cut(spec)!r} is not within the document's {total} pages",
            remedy=f"Pick pages between 1 and {total}",
        )
    return first, min(last, total)


def read_pages(
    data: bytes, *, name: str, pages: str | None, documents: bool, wait: float = -1
) -> Pages:
    """The pages ``pages`` names (at most MAX_PAGES of them) of the PDF ``data``. Raises
    MediaUnreadable naming ``name``: malformed, encrypted, or a bad range; or, when another
    PDF is still being read after ``wait`` seconds (-1: wait as long as it takes), busy."""
    if not _PDFIUM.acquire(timeout=wait):
        raise MediaUnreadable(
            f"{name} was not read: another PDF is still being read",
            remedy="Try again in a moment",
        )
    try:
        return _read_pages(data, name=name, pages=pages, documents=documents)
    finally:
        _PDFIUM.release()


def _read_pages(data: bytes, *, name: str, pages: str | None, documents: bool) -> Pages:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        words = str(error)
        if "password" in words.lower():
            raise MediaUnreadable(
                f"{name} is encrypted: it needs a password to open",
                remedy="Save a copy without the password and read that",
            ) from None
        raise MediaUnreadable(
            f"{name} could not be read as a PDF: {words}",
            remedy="Check that the file is a whole PDF (open it in a viewer)",
        ) from None
    try:
        total = len(document)
        if total == 0:
            raise MediaUnreadable(f"{name} has no pages")
        first, last = page_range(pages, total)
        note = ""
        if last - first + 1 > MAX_PAGES:
            last = first + MAX_PAGES - 1
        if last < total and (pages is None or last < _asked_last(pages)):
            note = (
                f"Pages {first}-{last} of {total}; read the rest with pages "
                f"'{last + 1}-{min(total, last + MAX_PAGES)}'"
            )
        if documents:
            block = _document(pdfium, document, first, last, data, total)
            if block is not None:
                return Pages(total=total, first=first, last=last, note=note, block=block)
        parts = []
        size = 0
        for number in range(first, last + 1):
            page = document[number - 1]
            text = page.get_textpage().get_text_range().replace("\r\n", "\n").strip()
            parts.append(f"--- page {number} ---\n{text or '(no text on this page)'}")
            size += len(parts[-1])
            if size > MAX_TEXT_CHARS and number < last:
                last = number
                note = (
                    f"Pages {first}-{last} of {total} (their text is long); read the rest with "
                    f"pages '{last + 1}-{min(total, last + MAX_PAGES)}'"
                )
                break
        return Pages(total=total, first=first, last=last, note=note, text="\n\n".join(parts))
    finally:
        document.close()


def _asked_last(spec: str) -> int:
    found = _RANGE.fullmatch(spec)
    return _number(found.group(2) or found.group(1)) if found else 0


def _cut(spec: str) -> str:
    return spec if len(spec) <= 40 else spec[:40] + "..."


def _number(digits: str) -> int:
    # A page number from the model: past any PDF's length it is only "past the end", and
    # thousands of digits would make int() refuse (Python's guard against slow conversions).
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 9 else 10**9


def _document(
    pdfium: object, document: object, first: int, last: int, data: bytes, total: int
) -> Block | None:
    """A document block of pages ``first``-``last``: the file itself when that is all of it,
    else a new PDF of just those pages. None when it would be over the API's size."""
    import pypdfium2

    assert isinstance(document, pypdfium2.PdfDocument)
    # A file encrypted with only an owner password opens without one here, but another reader
    # may refuse it: its pages go in a new, plain PDF.
    encrypted = pypdfium2.raw.FPDF_GetSecurityHandlerRevision(document.raw) != -1
    if first == 1 and last == total and not encrypted:
        out = data
    else:
        part = pypdfium2.PdfDocument.new()
        part.import_pages(document, list(range(first - 1, last)))
        buffer = io.BytesIO()
        part.save(buffer)
        part.close()
        out = buffer.getvalue()
    if len(out) > MAX_BYTES:
        return None
    encoded = base64.b64encode(out).decode("ascii")
    return {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": encoded},
    }
