"""Build hook: an editable install compiles Legato's own modules to bytecode where they are.

``uv sync`` installs Legato editable (a .pth file naming this folder), and uv's compile-bytecode
pass covers site-packages only. Where PYTHONDONTWRITEBYTECODE is set nothing else ever writes
these .pyc files, and every start would compile Legato's modules again. uv runs this hook when
it builds the editable install: in a fresh clone, and when pyproject.toml changes. A module
edited since then has a stale .pyc, which Python ignores, reading the source as it would anyway.
"""

from __future__ import annotations

import compileall
import os
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CompileSources(BuildHookInterface[BuilderConfig]):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version != "editable":
            return  # a wheel's installer compiles what it installs
        for package in self.build_config.packages:
            # Like Python's own import, a file that does not compile is left to fail at import.
            compileall.compile_dir(os.path.join(self.root, package), quiet=1)
