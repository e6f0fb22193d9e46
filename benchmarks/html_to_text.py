"""WebFetch's HTML converter against the standard library's parser on a large documentation-like
page: time (best of 5) and what each keeps. The figures are in docs/tools.md (WebFetch)."""

from __future__ import annotations

import html.parser
import time
from typing import TYPE_CHECKING

from actors.tool_executor.web.page import CHROME, markdown

if TYPE_CHECKING:
    from collections.abc import Callable

SECTION = """<section><h2>Function {i}</h2><p>The <code>run_{i}()</code> call takes
<a href="/api/{i}">options</a> and returns a <em>result</em>.</p>
<ul><li>first point {i}</li><li>second point</li></ul>
<table><tr><th>arg</th><th>type</th></tr><tr><td>x</td><td>int</td></tr><tr><td>y</td><td>str</td>
</tr></table><pre><code>result = run_{i}(x=1, y="a")
print(result)</code></pre></section>"""


def page(sections: int = 2200) -> str:
    body = "".join(SECTION.format(i=i) for i in range(sections))
    return (
        "<html><head><script>var a = 1;</script><style>p {}</style></head><body>"
        f"<nav>menu</nav><main>{body}</main><footer>footer</footer></body></html>"
    )


class _Text(html.parser.HTMLParser):
    """The text outside scripts, styles and chrome: the standard library's alternative."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", *CHROME):
            self.skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", *CHROME):
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(data)


def standard_library(text: str) -> str:
    parser = _Text()
    parser.feed(text)
    parser.close()
    return "".join(parser.out)


def best(convert: Callable[[str], str], text: str, runs: int = 5) -> tuple[float, str]:
    times = []
    out = ""
    for _ in range(runs):
        started = time.perf_counter()
        out = convert(text)
        times.append(time.perf_counter() - started)
    return min(times), out


def main() -> None:
    text = page()
    print(f"page: {len(text) / 1e6:.2f} MB")
    for name, convert in (("html-to-markdown", markdown), ("html.parser", standard_library)):
        seconds, out = best(convert, text)
        print(f"{name}: {seconds * 1000:.0f} ms, {len(out):,} characters")


if __name__ == "__main__":
    main()
