"""The conductor: runs a prompt turn by turn through the model client and the tool executor."""

from __future__ import annotations

from actors.conductor.actor import Conductor

__all__ = ["Conductor"]
