"""A test that sets a project's widening settings on purpose trusts the project, as its user
would with ``legato trust``: the record goes where the real one does, outside the project."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.errors import LegatoError
from actors.memory_store import trust
from actors.memory_store.loader import load_context
from actors.places import trust_path

if TYPE_CHECKING:
    from pathlib import Path


def trust_project(root: Path | str, home: Path | str) -> None:
    """Trust the project's settings as they are now (nothing, when they widen nothing)."""
    real = os.path.realpath(root)
    try:
        context = load_context(real, home=str(home), env={})
    except LegatoError:
        return  # a test of a bad file: the session refuses it before trust matters
    if context.trust_fingerprint:
        trust.record(trust_path(real, str(home)), context.trust_fingerprint)
