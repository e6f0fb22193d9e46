"""Counts in words: ``1 line``, ``2 lines``, for every summary that counts something."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun plural unless the number is one (``0 files``).

    ``plural``: for nouns that do not just take an ``s`` (``match``, ``matches``).
    """
    word = noun if number == 1 else (plural or noun + "s")
    return f"{number:,} {word}"
