from __future__ import annotations

from tests.frontends.conftest import Project, project

__all__ = ["Project", "project"]
