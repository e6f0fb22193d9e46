"""A pasted path of an image or a PDF: as a file manager's drag and drop, or a terminal's
paste of a copied file, gives it (quoted, or with backslash-escaped spaces)."""

from __future__ import annotations

import os
import shlex

from actors.media import images, pdf

SNIFF = 16  # bytes: enough for every format's signature (a PDF's after leading blanks)


def pasted_path(data: str, root: str) -> str | None:
    """The absolute path ``data`` names, when it is one path and nothing else; None if not."""
    text = data.strip()
    if not text or "\n" in text:
        return None
    try:
        parts = shlex.split(text)  # 'a b.png', "a b.png", a\ b.png
    except ValueError:
        return None
    if len(parts) != 1:
        return None
    path = os.path.expanduser(parts[0])
    return os.path.normpath(os.path.join(root, path))


def path_kind(path: str) -> str | None:
    """``Image`` or ``PDF`` for a regular file of that kind; None for anything else (no
    such file, a folder, a FIFO, which is never opened, or another kind of file)."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as file:  # a regular file: reading its head cannot block
            head = file.read(SNIFF * 64)
    except OSError:
        return None
    if images.sniff(head[:SNIFF]):
        return "Image"
    if pdf.is_pdf(head):
        return "PDF"
    return None
