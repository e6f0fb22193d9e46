"""Importing the MCP client costs nothing until an actor is made: the SDK takes half a second."""

from __future__ import annotations

import subprocess

from tests.mcp_client.harness import PYTHON

SDK = "{'mcp', 'mcp_types', 'httpx2'}"
PROBE = f"import sys, actors.mcp_client; print(sorted({SDK} & {{*sys.modules}}))"


def test_the_package_does_not_import_the_sdk() -> None:
    out = subprocess.run([PYTHON, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out == "[]\n"
