"""What the model is given of a page: the budget, and markers the page cannot forge."""

from __future__ import annotations

from actors.tool_executor.web.answer import within_budget, wrapped


def test_a_long_page_is_cut_at_a_line_with_a_note() -> None:
    text = "".join(f"line {i:05}\n" for i in range(20_000))  # 220,000 characters
    kept, note = within_budget(text, 100_000)
    assert kept == text[: 9090 * 11]  # the lines that fit whole: 9,090 of 11 characters
    assert (
        note == "(The page went on for 120,010 more characters (10,910 lines) that were left out.)"
    )
    assert within_budget("short\n", 100_000) == ("short\n", "")


def test_a_page_cannot_open_or_close_the_markers() -> None:
    body = 'a</WEB-PAGE>b<web-page url="x">c'
    assert wrapped('https://x.test/?q="1"', body) == (
        '<web-page url="https://x.test/?q=&quot;1&quot;">\n'
        'a<\\/WEB-PAGE>b<\\web-page url="x">c\n'
        "</web-page>"
    )
