from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from frontends.interactive.markdown_stream import (
    MAX_LIVE_CHARS,
    MAX_LIVE_LINES,
    Code,
    MarkdownStream,
    Prose,
)


def feed_all(chunks: list[str]) -> tuple[list[Prose | Code], MarkdownStream]:
    stream = MarkdownStream()
    pieces = []
    for chunk in chunks:
        pieces += stream.feed(chunk)
    return pieces, stream


def test_a_paragraph_is_finished_by_the_blank_line_after_it() -> None:
    stream = MarkdownStream()
    assert stream.feed("Hello ") == []
    assert stream.feed("world\nsecond line") == []
    assert stream.live() == "Hello world\nsecond line"
    assert stream.feed("\n\nNext") == [Prose("Hello world\nsecond line")]
    assert stream.live() == "Next"
    assert stream.finish() == [Prose("Next")]
    assert stream.live() == ""


def test_code_lines_are_finished_one_by_one_and_the_fence_ends_the_block() -> None:
    pieces, stream = feed_all(["Intro\n", "```py", "thon\nx = 1\ny", " = 2\n", "```\nAfter"])
    assert pieces == [
        Prose("Intro"),
        Code("python", ("x = 1",), first=True),
        Code("python", ("y = 2",)),
        Code("python", (), last=True),
    ]
    assert not stream.in_code
    assert stream.finish() == [Prose("After")]


def test_headings_stand_alone() -> None:
    pieces, _ = feed_all(["# Title\ntext under it\n\n"])
    assert pieces == [Prose("# Title"), Prose("text under it")]


def test_a_long_paragraph_is_cut_so_the_live_part_stays_small() -> None:
    pieces, stream = feed_all([f"line {i}\n" for i in range(MAX_LIVE_LINES * 3 + 1)])
    assert len(pieces) == 3
    assert all(isinstance(p, Prose) for p in pieces)
    assert len(stream.live().split("\n")) <= MAX_LIVE_LINES


def test_an_endless_line_is_cut_at_a_space() -> None:
    stream = MarkdownStream()
    pieces = []
    for _ in range(1000):
        pieces += stream.feed("word ")
    assert all(isinstance(p, Prose) and p.continued for p in pieces)
    assert len(pieces) >= 5000 // MAX_LIVE_CHARS - 1
    assert len(stream.live()) <= MAX_LIVE_CHARS
    rest = stream.finish()
    words = " ".join(p.source for p in [*pieces, *rest] if isinstance(p, Prose)).split()
    assert words == ["word"] * 1000


def test_an_interrupted_code_block_is_closed_with_what_arrived() -> None:
    pieces, stream = feed_all(["```sh\necho a\necho b"])
    assert pieces == [Code("sh", ("echo a",), first=True)]
    assert stream.finish() == [Code("sh", ("echo b",), last=True)]


@given(st.text(alphabet="ab `#\n~", max_size=80), st.lists(st.integers(1, 7), max_size=30))
def test_no_text_is_lost_however_it_is_chunked(source: str, cuts: list[int]) -> None:
    chunks, rest = [], source
    for cut in cuts:
        chunks.append(rest[:cut])
        rest = rest[cut:]
    chunks.append(rest)
    pieces, stream = feed_all(chunks)
    pieces += stream.finish()
    whole_stream = MarkdownStream()
    whole = whole_stream.feed(source) + whole_stream.finish()
    assert _merge(pieces) == _merge(whole)


def _merge(pieces: list[Prose | Code]) -> list[tuple[str, str]]:
    """Consecutive code lines of one block joined, so chunking cannot change the comparison."""
    out: list[tuple[str, str]] = []
    for piece in pieces:
        if isinstance(piece, Code):
            body = "\n".join(piece.lines)
            if out and out[-1][0] == "code" and not piece.first:
                out[-1] = ("code", "\n".join(x for x in (out[-1][1], body) if x))
            else:
                out.append(("code", body))
        else:
            out.append(("prose", piece.source))
    return out
