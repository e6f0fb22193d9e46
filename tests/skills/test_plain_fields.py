"""Plain front matter is read without PyYAML, and reads exactly as YAML would read it."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from actors.skills.plain_fields import plain_fields
from actors.skills.safe_yaml import load_fields

KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,12}", fullmatch=True)
# Words as people write them in a description, with YAML's awkward characters among them.
VALUES = st.text(
    alphabet=string.ascii_letters + string.digits + " :#-,.'\"[]{}!&*|>%@`?~éü/()", max_size=40
)


@given(st.lists(st.tuples(KEYS, VALUES), min_size=1, max_size=6))
def test_what_is_read_without_yaml_is_what_yaml_reads(pairs: list[tuple[str, str]]) -> None:
    lines = [f"{key}: {value}" for key, value in pairs]
    plain = plain_fields(lines, first_line=2)
    if plain is None:
        return  # left to YAML
    assert plain == load_fields("\n".join(lines), "f.md", first_line=2)


def test_the_usual_fields_are_read_without_yaml() -> None:
    lines = ["name: reviewer", "description: Reviews code, then says why", "tools: Read, Grep"]
    fields, places = plain_fields([*lines, ""], first_line=2) or ({}, {})
    assert fields == {
        "name": "reviewer",
        "description": "Reviews code, then says why",
        "tools": "Read, Grep",
    }
    assert places == {"name": 2, "description": 3, "tools": 4}


def test_anything_more_than_plain_words_is_left_to_yaml() -> None:
    for line in (
        "max: 3",
        "flag: true",
        "answer: yes",
        "none: ~",
        "description: when: it breaks",
        "description: words # a comment",
        "tools: [Read, Grep]",
        "description: 'quoted'",
        "description: >",
        "  folded",
        "name:",
        "- item",
    ):
        assert plain_fields([line], first_line=2) is None, line
    assert plain_fields(["name: a", "name: b"], first_line=2) is None  # YAML's error to say
