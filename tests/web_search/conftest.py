"""Fixtures: see tests/home_project.py."""

from __future__ import annotations

from tests.home_project import project

__all__ = ["project"]
