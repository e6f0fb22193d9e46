"""The head and tail a capped output keeps, and the count of what its cut left out."""

from __future__ import annotations

from actors.output_caps import HeadTail, omitted_bytes


def test_the_cut_says_how_many_bytes_it_left_out_and_a_whole_output_none() -> None:
    capped = HeadTail(10)
    capped.feed(b"0123456789" * 100)
    text = capped.text()
    assert text.startswith("01234\n") and text.endswith("\n56789")
    assert omitted_bytes(text) == 990
    whole = HeadTail(100)
    whole.feed(b"short\n")
    assert omitted_bytes(whole.text()) == 0
    # Only a line of its own is the cut: a program that prints the words is not one.
    assert omitted_bytes("it said ... [5 bytes omitted] ... once") == 0
