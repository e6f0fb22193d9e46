"""``@path`` in a prompt: the files a prompt names come along with it.

A token is ``@`` and a path, at the start of the prompt or after a space or a bracket, so
``user@example.com`` stays text. A token that names an existing file or folder is attached:
the file's text (up to 256 KB) or the folder's entries follow the prompt in a
``<file path="...">`` block, and the ``@path`` itself stays in the prompt.

Each read is put to the permission broker like a Read, marked as named by the person: inside
the project that counts as their yes where the rules would ask, while ``blockedPaths``, the
rules for Legato's own files and for files outside the project apply as the broker says. A
binary file is refused before anything is asked. An image (PNG, JPEG, GIF, WebP) or a PDF,
told by its first bytes, comes along as a block after the prompt's text (``Attachment.blocks``,
in the order named), with a line in the text saying what it is and what it costs; at most
``MAX_IMAGES`` images and ``MAX_PDF_PAGES`` pages a prompt. A token that names nothing stays
text; when it
looks like a path (it has a ``/``) or something close exists, a note says so, with the closest
name: each part of the path respelled from what its folder holds (``@scr/mian.py``: did you mean
``@src/main.py``?), else a file of that name, or of a close name with the same extension,
anywhere among the files ``@path`` completion offers (``@main.py``: ``@src/main.py``).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import anyio

from actors import door
from actors.counts import counted
from actors.errors import MediaUnreadable, ToolFailure
from actors.media import images, pdf
from actors.protocol import Attachment, CheckPermission, PermissionRequest
from actors.tool_executor.context import CallContext
from actors.tool_executor.files import SNIFF_BYTES, is_binary
from actors.tool_executor.tools import read_media

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from actors.door import Target
    from actors.protocol import Block, PermissionBrokerMsg
    from runtime import Address

MAX_FILE_BYTES = 256 * 1024  # more would crowd the context; the model can Read the rest
MAX_LISTING = 200
_TOKEN = re.compile(r"(?:^|(?<=[\s(\[]))@([^\s\"'`,;()\[\]]+)")
_TRAILING = ".:!?"
MAX_CANDIDATES = 20_000  # project files looked through for what a missing name meant
# What one prompt may carry: the Messages API takes at most 100 images and 100 PDF pages a
# request, and the conversation goes on after this prompt.
MAX_IMAGES = 20
MAX_PDF_PAGES = 100


def tokens(text: str) -> list[str]:
    """What follows each ``@`` that may name a path, each once, in order."""
    found = (match.group(1).rstrip(_TRAILING) for match in _TOKEN.finditer(text))
    return list(dict.fromkeys(token for token in found if token))


@dataclass(frozen=True, slots=True)
class _Found:
    target: Target
    folder: bool
    media: Literal["image", "pdf"] | None = None


@dataclass(slots=True)
class _Media:
    """The images and PDFs a prompt has attached so far: their blocks and lines, and what is
    left of its caps."""

    blocks: list[Block]
    lines: list[str]
    images: int = 0
    pdfs: int = 0
    pages: int = 0


async def attach(
    text: str,
    root: str,
    permissions: Address[PermissionBrokerMsg],
    project_files: Callable[[], Awaitable[Sequence[str]]],
    *,
    named_by_user: bool = True,
    paths: Sequence[str] = (),
) -> Attachment:
    """``text`` with the files it names attached, each read allowed by the broker first.

    ``project_files`` lists the files a missing name may have meant (asked for only then).
    ``named_by_user``: the person wrote ``text``; False for a project's skill or pattern, whose
    names are asked about as the model's reads are. ``paths``: files pasted as paths, which
    may hold spaces, attached as ``@path`` tokens are."""
    blocks: list[str] = []
    attached: list[str] = []
    notes: list[str] = []
    media = _Media([], [])
    files: Sequence[str] | None = None
    for token in dict.fromkeys([*tokens(text), *paths]):
        found = await anyio.to_thread.run_sync(_look, token, root)
        if found is None:
            guess = await anyio.to_thread.run_sync(_respelled, token, root)
            if guess is None and _looks_like_a_file(token):
                files = await project_files() if files is None else files
                guess = _elsewhere(token, files)
            note = _not_found(token, guess)
            if note is not None:
                notes.append(note)
            continue
        if isinstance(found, str):
            notes.append(found)
            continue
        target = found.target
        request = PermissionRequest(
            tool="Read",
            kind="read",
            paths=CallContext.paths(target.shown, target.real),
            hard_links=target.links,
            named_by_user=named_by_user,
        )
        decision = await permissions.ask(CheckPermission(request=request))
        if not decision.allowed:
            notes.append(f"@{token} was not attached: {decision.reason}")
            continue
        try:
            if found.media is not None:
                note = await _attach_media(found, token, media)
                if note is not None:
                    notes.append(note)
            else:
                blocks.append(await anyio.to_thread.run_sync(_block, found, root))
        except (OSError, ToolFailure) as error:
            notes.append(f"@{token} was not attached: {_why(error)}")
            continue
        attached.append(token)
    prompt = text if not blocks else text + "\n\nReferenced files:\n" + "\n\n".join(blocks)
    if media.lines:
        prompt += "\n\n" + "\n".join(media.lines)
    return Attachment(
        prompt=prompt, attached=tuple(attached), blocks=tuple(media.blocks), notes=tuple(notes)
    )


async def _attach_media(found: _Found, token: str, media: _Media) -> str | None:
    """Add the image or PDF ``found`` to ``media``; a note for the person where a cap cut it
    short. Raises ToolFailure (MediaUnreadable) for a file that cannot be read."""
    if found.media == "image" and media.images >= MAX_IMAGES:
        raise ToolFailure(f"a prompt takes at most {MAX_IMAGES} images")
    if found.media == "pdf" and media.pages >= MAX_PDF_PAGES:
        raise ToolFailure(f"a prompt takes at most {MAX_PDF_PAGES} PDF pages")
    whole = await anyio.to_thread.run_sync(_whole, found)
    if found.media == "image":
        ready = await anyio.to_thread.run_sync(
            functools.partial(images.prepare, whole, name=f"@{token}"), abandon_on_cancel=True
        )
        media.images += 1
        media.blocks.append(ready.block)
        media.lines.append(
            f"[Image #{media.images}: {token}, {ready.width}x{ready.height}, "
            f"~{counted(ready.tokens, 'token')}]"
        )
        return None
    room = f"1-{min(pdf.MAX_PAGES, MAX_PDF_PAGES - media.pages)}"
    picked = await anyio.to_thread.run_sync(
        functools.partial(pdf.read_pages, whole, name=f"@{token}", pages=room, documents=True),
        abandon_on_cancel=True,
    )
    pages = picked.last - picked.first + 1
    media.pdfs += 1
    media.pages += pages
    which = (
        f"page 1 of {picked.total}" if pages == 1 else f"pages 1-{picked.last} of {picked.total}"
    )
    line = f"[PDF #{media.pdfs}: {token}, {which}"
    if picked.last < picked.total:
        line += f"; Read it with pages '{picked.last + 1}-...' for the rest"
    media.lines.append(line + "]")
    if picked.block is None:  # over the API's size for one document: its text
        text = await anyio.to_thread.run_sync(
            functools.partial(pdf.read_pages, whole, name=f"@{token}", pages=room, documents=False),
            abandon_on_cancel=True,
        )
        media.lines.append(text.text)
    else:
        media.blocks.append(picked.block)
    if picked.last < picked.total:
        return f"@{token}: only {which} attached (the model can Read the rest)"
    return None


def _whole(found: _Found) -> bytes:
    assert found.media is not None
    with door.open_read(found.target) as file:
        whole = read_media.read_whole(file, found.media, found.target.shown)
    assert whole is not None  # only a notebook is ever left to the text reader
    return whole.data


def _look(token: str, root: str) -> _Found | str | None:
    """What ``token`` names: a file or folder to ask about, a note for the person saying why
    it cannot be attached, or None: nothing."""
    try:
        target = door.locate(token, root)
        st = os.stat(target.real)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ToolFailure) as error:
        return f"@{token} was not attached: {_why(error)}"
    if stat.S_ISDIR(st.st_mode):
        return _Found(target, folder=True)
    if not stat.S_ISREG(st.st_mode):
        return f"@{token} was not attached: it is not a regular file (a device, pipe or socket)"
    try:
        with door.open_read(target) as file:
            head = file.read(SNIFF_BYTES)
    except (OSError, ToolFailure) as error:
        return f"@{token} was not attached: {_why(error)}"
    if images.sniff(head) is not None:
        return _Found(target, folder=False, media="image")
    if pdf.is_pdf(head):
        return _Found(target, folder=False, media="pdf")
    if is_binary(head):
        return f"@{token} was not attached: it is a binary file"
    return _Found(target, folder=False)


def _block(found: _Found, root: str) -> str:
    shown = os.path.relpath(found.target.shown, root)
    shown = found.target.shown if shown.startswith("..") else shown
    return f'<file path="{shown}">\n{_contents(found)}\n</file>'


def _contents(found: _Found) -> str:
    if found.folder:
        names = door.list_folder(found.target)
        more = len(names) - MAX_LISTING
        listing = "\n".join(names[:MAX_LISTING]) + (f"\n... and {more} more" if more > 0 else "")
        return f"(a folder; its entries)\n{listing}"
    with door.open_read(found.target) as file:
        data = file.read(MAX_FILE_BYTES + 1)
    if is_binary(data):  # it was text when it was checked
        raise ToolFailure("it is a binary file")
    text = data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_FILE_BYTES:
        text += f"\n... (cut at {MAX_FILE_BYTES // 1024} KB; Read the file for the rest)"
    return text


def _not_found(token: str, guess: str | None) -> str | None:
    """The note for a token that names nothing; None where it is likely just a word."""
    if guess is not None:
        return f"@{token} not found; did you mean @{guess}?"
    if "/" in token:
        return f"@{token} not found: no file or folder has that path, so nothing was attached"
    return None


def _respelled(token: str, root: str) -> str | None:
    """``token`` with each part that names nothing replaced by the closest entry of its folder,
    relative to the project; None when a part has no close entry. Only the project is looked
    into: the names go to the person, and outside it they are none of the session's business."""
    path = token.rstrip("/")
    if os.path.isabs(path):
        path = os.path.relpath(path, root)
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        return None
    real_root = os.path.realpath(root)
    respelled: list[str] = []
    for part in parts:
        try:
            folder = door.locate(os.path.join(".", *respelled), root)
            if not door.within(folder.real, real_root):
                return None
            names = [entry.rstrip("/") for entry in door.list_folder(folder)]
        except (OSError, ToolFailure):  # a file where a folder should be, or unreadable
            return None
        close = _closest(part, names)
        if close is None:
            return None
        respelled.append(close)
    return "/".join(respelled) if respelled != parts else None  # a broken symlink, say


def _looks_like_a_file(token: str) -> bool:
    """Worth a look through the project's files: a relative path, or a name with an extension
    (not ``@decorator``, which is most often just a word). A path from ``/`` or ``~`` says where
    it is: a project file of that name is not what it meant."""
    if token.startswith(("/", "~")):
        return False
    return "/" in token or bool(os.path.splitext(token)[1])


def _elsewhere(token: str, files: Sequence[str]) -> str | None:
    """Among ``files`` (relative to the project), the one ``token`` most likely meant: one of
    the same name, else one of a close name with the same extension (case aside); the
    shallowest wins."""
    name = os.path.basename(token.rstrip("/"))
    extension = os.path.splitext(name)[1]
    by_name: dict[str, str] = {}
    for path in sorted(files, key=lambda path: (path.count("/"), path)):
        by_name.setdefault(os.path.basename(path), path)
    if name in by_name:
        return by_name[name]
    if extension:
        kin = [
            other for other in by_name if os.path.splitext(other)[1].lower() == extension.lower()
        ]
        close = _closest(name, kin)
    else:  # only the name itself, case aside: ``docs/makefile`` for ``Makefile``
        close = next((other for other in by_name if other.lower() == name.lower()), None)
    return None if close is None else by_name[close]


def _closest(name: str, names: Sequence[str]) -> str | None:
    """``name`` itself among ``names``, else the closest, case aside (``@readme.md`` means
    ``README.md`` on a file system that minds case)."""
    if name in names:
        return name
    lowered = {other.lower(): other for other in reversed(names)}  # the first of equals wins
    import difflib  # only for a reference that names no file

    close = difflib.get_close_matches(name.lower(), lowered, n=1)
    return lowered[close[0]] if close else None


def _why(error: OSError | ToolFailure) -> str:
    if isinstance(error, MediaUnreadable) and error.remedy:
        # The person reads this note alone: what would fix the file comes with it.
        return f"{error.message.rstrip('.')}. {error.remedy.rstrip('.')}"
    if isinstance(error, ToolFailure):
        return error.message.rstrip(".")
    return f"it could not be read: {error.strerror or error}"
