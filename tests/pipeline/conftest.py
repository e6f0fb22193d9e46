from __future__ import annotations

from tests.frontends.conftest import project

__all__ = ["project"]
