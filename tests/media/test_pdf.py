"""A PDF's pages for the model: a document block or their text, a range, a cap, and a clear
refusal for a file that cannot be read."""

from __future__ import annotations

import base64

import pypdfium2 as pdfium
import pytest

from actors.errors import MediaUnreadable
from actors.media import pdf as pdf_module
from actors.media.pdf import is_pdf, read_pages
from tests.media.files import pdf


def _document(block: object) -> pdfium.PdfDocument:
    assert isinstance(block, dict) and block["type"] == "document"
    assert block["source"]["media_type"] == "application/pdf"
    return pdfium.PdfDocument(base64.b64decode(block["source"]["data"]))


def _texts(document: pdfium.PdfDocument) -> list[str]:
    return [page.get_textpage().get_text_range().strip() for page in document]


def test_the_whole_file_is_the_document() -> None:
    data = pdf(["alpha", "beta"])
    assert is_pdf(data)
    pages = read_pages(data, name="spec.pdf", pages=None, documents=True)
    assert (pages.total, pages.first, pages.last, pages.note) == (2, 1, 2, "")
    assert pages.block is not None
    assert base64.b64decode(pages.block["source"]["data"]) == data


def test_a_range_is_a_document_of_just_those_pages_or_their_text() -> None:
    data = pdf([f"page{n}" for n in range(1, 6)])
    pages = read_pages(data, name="spec.pdf", pages="2-3", documents=True)
    assert (pages.first, pages.last) == (2, 3)
    assert _texts(_document(pages.block)) == ["page2", "page3"]
    text = read_pages(data, name="spec.pdf", pages=" 4 ", documents=False)
    assert text.block is None
    assert text.text == "--- page 4 ---\npage4"


def test_five_hundred_pages_give_twenty_and_say_how_to_read_on() -> None:
    data = pdf([f"p{n}" for n in range(1, 501)])
    pages = read_pages(data, name="big.pdf", pages=None, documents=True)
    assert (pages.total, pages.first, pages.last) == (500, 1, 20)
    assert pages.note == "Pages 1-20 of 500; read the rest with pages '21-40'"
    assert len(_document(pages.block)) == 20
    far = read_pages(data, name="big.pdf", pages="499-" + "9" * 5000, documents=False)
    assert (far.first, far.last) == (499, 500)
    wide = read_pages(data, name="big.pdf", pages="490-600", documents=False)
    assert (wide.first, wide.last, wide.note) == (490, 500, "")
    assert wide.text.endswith("--- page 500 ---\np500")


@pytest.mark.parametrize(
    ("data", "pages", "words"),
    [
        (pdf(["a", "b"]), "3", "pages '3' is not within the document's 2 pages"),
        (pdf(["a", "b"]), "two", "pages 'two' is not a page range"),
        (pdf(["a", "b"]), "2-1", "pages '2-1' is not within the document's 2 pages"),
        # More digits than int() converts (4,300): past the end, said in a short line.
        (pdf(["a", "b"]), "9" * 5000, f"pages '{'9' * 40}...' is not within the document's 2"),
        (pdf(["a", "b"]), "\u0662", "is not a page range"),
        (b"%PDF-1.4\n1 0 obj << >>\ntrailer", None, "spec.pdf could not be read as a PDF"),
        (pdf(["a"])[:60], None, "spec.pdf could not be read as a PDF"),
        (pdf(["a"], user_password=b"secret"), None, "spec.pdf is encrypted"),
    ],
    ids=[
        "past-the-end",
        "not-a-range",
        "backwards",
        "thousands-of-digits",
        "eastern-arabic-digits",
        "malformed",
        "truncated",
        "password",
    ],
)
def test_a_bad_file_or_range_is_refused_clearly(data: bytes, pages: str | None, words: str) -> None:
    for documents in (True, False):
        with pytest.raises(MediaUnreadable) as refused:
            read_pages(data, name="spec.pdf", pages=pages, documents=documents)
        assert words in refused.value.message
    assert read_pages(pdf(["next"]), name="n.pdf", pages=None, documents=False).text


def test_an_owner_password_alone_opens_and_goes_as_a_plain_pdf() -> None:
    data = pdf(["locked", "page"], user_password=b"")
    pages = read_pages(data, name="spec.pdf", pages=None, documents=True)
    document = _document(pages.block)
    assert pdfium.raw.FPDF_GetSecurityHandlerRevision(document.raw) == -1
    assert _texts(document) == ["locked", "page"]
    text = read_pages(data, name="spec.pdf", pages=None, documents=False)
    assert text.text == "--- page 1 ---\nlocked\n\n--- page 2 ---\npage"


def test_a_pdf_still_being_read_elsewhere_makes_a_short_wait_fail_clearly() -> None:
    # A cancelled Read's thread keeps PDFium until it is done; a caller that must not block
    # long (the provider's conversion, on the event loop) gets a message instead.
    with pdf_module._PDFIUM, pytest.raises(MediaUnreadable) as busy:
        read_pages(pdf(["a"]), name="spec.pdf", pages=None, documents=False, wait=0)
    assert busy.value.message == "spec.pdf was not read: another PDF is still being read"
    assert read_pages(pdf(["a"]), name="spec.pdf", pages=None, documents=False, wait=0).text
