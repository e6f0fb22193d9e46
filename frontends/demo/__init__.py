"""``legato --demo``, and the scripted Messages API it plays against.

    run.py          ``run_demo``: a real headless session in a throwaway project, offline
    script.py       the demo's conversation: the prompt, the project's files, the answers
    scripted_api/   a stand-in for the Anthropic Messages API on loopback (SSE), playing a script;
                    tests and benchmarks use it too

The wheel ships what ``--demo`` imports; the scripted API's command line
(``python -m frontends.demo.scripted_api``) is for tests and benchmarks run from a checkout.
"""

from __future__ import annotations

from frontends.demo.run import run_demo

__all__ = ["run_demo"]
