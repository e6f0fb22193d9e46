"""Jupyter notebooks (nbformat 4) as Read shows them and NotebookEdit changes them.

A notebook is JSON: ``{"cells": [...], "metadata": {...}, "nbformat": 4, "nbformat_minor":
N}``, each cell ``{"cell_type", "source", "metadata"}`` with ``outputs`` and
``execution_count`` on a code cell and an ``id`` from minor version 5 on. ``source`` and text
outputs are a string or a list of lines; both are read, and a changed cell is written back as
lines the way Jupyter writes it.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeGuard

from actors.counts import counted
from actors.errors import ToolFailure

MAX_OUTPUT_CHARS = 5_000  # one output's text, shown
MAX_SOURCE_CHARS = 50_000  # one cell's source, shown
MAX_CHARS = 100_000  # the whole notebook as Read shows it
IMAGE_TYPES = ("image/png", "image/jpeg")
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a cell's id or type, as nbformat allows it
_INDENT = re.compile(rb"\{\s*\n( +|\t)\"")

Notebook = dict[str, Any]


def parse(data: bytes, shown: str) -> Notebook:
    """The notebook ``data`` holds; ToolFailure naming what is wrong when it is not one."""
    try:
        notebook = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise ToolFailure(
            f"{shown} is not valid JSON ({error}), so it is not a notebook Legato can edit. "
            "Read it to see the text, then fix it with Edit."
        ) from None
    if not is_notebook(notebook):
        raise ToolFailure(
            f"{shown} is not a Jupyter notebook (nbformat 4): it has no list of cells. "
            "Use Edit for other JSON files."
        )
    return notebook  # type: ignore[no-any-return]


def is_notebook(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("cells"), list)
        and value.get("nbformat") == 4
        and all(isinstance(cell, dict) for cell in value["cells"])
    )


def text_of(value: object) -> str:
    """A source or text output: a string, or a list of strings to join."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""


def as_lines(text: str) -> list[str]:
    """``text`` as Jupyter stores a source: lines, each but the last keeping its newline."""
    return text.splitlines(keepends=True)


def cell_id(cell: dict[str, Any], index: int) -> str:
    """A cell's id; a notebook older than ids (minor < 5) names its cells ``cell-N``, as
    the reference does, so every cell can be addressed."""
    value = cell.get("id")
    return value if _plain_name(value) else f"cell-{index}"


def _plain_name(value: object) -> TypeGuard[str]:
    # nbformat's own rule for a cell's id. Anything else (quotes, newlines, escapes) could
    # close the frame Read puts around a cell, or paint the terminal, so it is not shown.
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def language(notebook: Notebook) -> str:
    metadata = notebook.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else "python"


def render(notebook: Notebook, shown: str, max_images: int) -> tuple[str, list[tuple[str, str]]]:
    """The notebook as text for the model, cell by cell with its outputs, and the images among
    the outputs to send (media type, base64 data), at most ``max_images`` of them."""
    cells = notebook["cells"]
    parts = [f"Notebook {shown}: {counted(len(cells), 'cell')} ({language(notebook)})"]
    images: list[tuple[str, str]] = []
    left_out = 0
    size = len(parts[0])
    for index, cell in enumerate(cells):
        kind = cell.get("cell_type", "code")
        kind = kind if _plain_name(kind) else "unknown"
        count = cell.get("execution_count")
        head = f'<cell id="{cell_id(cell, index)}" type="{kind}"'
        head += f' execution_count="{count}">' if isinstance(count, int) else ">"
        lines = [head, _bounded(text_of(cell.get("source")), MAX_SOURCE_CHARS)]
        for output in cell.get("outputs") or ():
            if not isinstance(output, dict):
                continue
            shown_output, picture = _output(output)
            if shown_output:
                lines.append(f"<output>\n{shown_output}\n</output>")
            if picture is not None:
                if len(images) < max_images:
                    images.append(picture)
                    lines.append(f"<output>[image {len(images)} follows]</output>")
                else:
                    left_out += 1
        lines.append("</cell>")
        block = "\n".join(lines)
        if size + len(block) > MAX_CHARS:
            parts.append(
                f"(Cells {index + 1}-{len(cells)} are left out: the notebook is over "
                f"{MAX_CHARS:,} characters. Use Bash with jq to see them.)"
            )
            break
        parts.append(block)
        size += len(block)
    if left_out:
        parts.append(
            f"({counted(left_out, 'more output image')} left out; at most {max_images} a Read.)"
        )
    return "\n\n".join(parts), images


def _output(output: dict[str, Any]) -> tuple[str, tuple[str, str] | None]:
    """An output's text (bounded) and its image, if it has one the model takes."""
    kind = output.get("output_type")
    if kind == "stream":
        return _bounded(text_of(output.get("text"))), None
    if kind == "error":
        trace = "\n".join(line for line in output.get("traceback") or () if isinstance(line, str))
        words = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
        return _bounded(_ANSI.sub("", trace) or words), None
    data = output.get("data")
    if not isinstance(data, dict):
        return "", None
    for media_type in IMAGE_TYPES:
        picture = data.get(media_type)
        if isinstance(picture, (str, list)):
            return "", (media_type, text_of(picture).replace("\n", ""))
    return _bounded(text_of(data.get("text/plain"))), None


# Tracebacks carry the terminal colours Jupyter printed them with.
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _bounded(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    text = text.rstrip("\n")
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit:,} characters more)"


def dumps(notebook: Notebook, like: bytes) -> bytes:
    """``notebook`` as JSON written the way ``like`` (the file as it was) is: its indentation
    (Jupyter's is one space) and whether it ends with a newline."""
    found = _INDENT.search(like[:4096])
    indent: int | str = 1 if found is None else found.group(1).decode()
    if isinstance(indent, str) and indent != "\t":
        indent = len(indent)
    # Jupyter writes every object's keys sorted; a file written so stays so.
    text = json.dumps(notebook, indent=indent, ensure_ascii=False, sort_keys=_sorted(like))
    if like.endswith(b"\n"):
        text += "\n"
    return text.encode("utf-8")


def find(notebook: Notebook, wanted: str, shown: str) -> int:
    """The index of the cell ``wanted`` names: by its id, or ``cell-N`` as Read shows a cell
    that has none. ToolFailure naming the field when no cell has it."""
    cells = notebook["cells"]
    for index, cell in enumerate(cells):
        if cell.get("id") == wanted and _plain_name(wanted):
            return index
    # At most nine digits: int() refuses thousands of them, and no notebook has that many cells.
    found = re.fullmatch(r"cell-([0-9]{1,9})", wanted)
    if found is not None and int(found.group(1)) < len(cells):
        return int(found.group(1))
    ids = ", ".join(cell_id(cell, index) for index, cell in enumerate(cells[:20]))
    named = wanted if len(wanted) <= 64 else wanted[:64] + "..."
    raise ToolFailure(
        f"cell_id {named!r} names no cell of {shown}"
        + (
            f" (its cells: {ids}{', ...' if len(cells) > 20 else ''})"
            if cells
            else " (it has none)"
        )
        + ". Read the notebook for its cell ids."
    )


def uses_ids(notebook: Notebook) -> bool:
    """Whether cells carry ids: nbformat 4.5 on, where each cell must have one."""
    minor = notebook.get("nbformat_minor")
    return (isinstance(minor, int) and minor >= 5) or any("id" in c for c in notebook["cells"])


def new_cell(kind: str, source: str, notebook: Notebook) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind}
    if uses_ids(notebook):
        import secrets

        taken = {c.get("id") for c in notebook["cells"]}
        while (fresh := secrets.token_hex(4)) in taken:
            continue
        cell["id"] = fresh
    cell["metadata"] = {}
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    cell["source"] = as_lines(source)
    return cell


def retype(cell: dict[str, Any], kind: str) -> None:
    """``cell`` made a ``kind`` cell: only a code cell has outputs and an execution count."""
    cell["cell_type"] = kind
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    else:
        cell.pop("execution_count", None)
        cell.pop("outputs", None)


def _sorted(like: bytes) -> bool:
    """Whether the notebook ``like`` has every cell's keys, and its own, in sorted order."""
    notebook = json.loads(like)
    return list(notebook) == sorted(notebook) and all(
        list(cell) == sorted(cell) for cell in notebook["cells"]
    )
