"""The model client: streams assistant messages from the Messages API over HTTP and SSE.

ModelClient      the actor (``StreamMessage`` -> ``ModelEvent``s; ``DescribeProvider`` and
                 ``ProbeApi`` for ``legato config`` and ``doctor``, in checks.py)
MessagesClient   one streamed call with retries, usable without the actor (client.py)
MessageAssembler stream events -> ``ModelEvent``s and the final message (assembler.py)
SSEDecoder       bytes -> server-sent events (sse.py)
"""

from __future__ import annotations

import sys

# httpx's package imports its command-line tool whenever click is installed (the MCP SDK brings
# it), and the tool imports click and pygments: about 5 MB and 15 ms at every start, for a
# command Legato never runs. A None in sys.modules makes that one import fail as if click were
# missing, and httpx defines a stand-in for its tool instead. Here, before the first import of
# httpx, which is this package's.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

from actors.model_client.actor import ModelClient  # noqa: E402

__all__ = ["ModelClient"]
