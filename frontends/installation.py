"""Whether Legato's own packages are the ones Python found.

The wheel installs three top-level packages with the card's names: ``runtime``, ``actors`` and
``frontends``. In Legato's own environment (``uv tool install``, ``pipx``, a project's
``.venv``) they are the only ones with those names, and the ``legato`` script does not put the
working folder on ``sys.path``, so a project's own ``runtime/`` folder is not seen. What can
still happen is a folder on ``PYTHONPATH``, or another distribution installed into the same
environment, that brings a package of the same name. Then Legato would run someone else's
code as its kernel, or fail deep inside with an ``ImportError``. This check turns that into
one clear message before anything else is imported. It asks the import system where each
package would come from (``find_spec`` locates without executing), so it costs a few
hundred microseconds and imports nothing (not even ``importlib.util``, whose ``contextlib``
and ``collections`` are a few milliseconds of ``legato --version``).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's, for the same reason; mypy takes any such name as true
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

OUR_PACKAGES = ("runtime", "actors")  # ``frontends`` is the one running this


def shadowed() -> str | None:
    """The problem, in words, when one of Legato's packages comes from somewhere else."""
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in OUR_PACKAGES:
        spec = _find_spec(name)
        origin = None if spec is None else spec.origin
        if origin is None or os.path.dirname(os.path.dirname(os.path.abspath(origin))) != home:
            found = "nowhere" if origin is None else origin
            return (
                f"legato: Python finds the package '{name}' at {found}, not in Legato's "
                f"installation at {home}: another package or folder named '{name}' is in "
                "the way.\n"
                "  → Install Legato in an environment of its own (uv tool install legato, or "
                "pipx install legato), or take that folder off PYTHONPATH"
            )
    return None


def _find_spec(name: str) -> ModuleSpec | None:
    """Where the top-level package ``name`` would be imported from: ``importlib.util.find_spec``
    for a top-level name, the finders on ``sys.meta_path`` asked in turn."""
    module = sys.modules.get(name)
    if module is not None:
        return module.__spec__
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = None if find is None else find(name, None)
        if spec is not None:
            return spec  # type: ignore[no-any-return]
    return None
