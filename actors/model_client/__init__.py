"""The model client: streams assistant messages from the Messages API over HTTP and SSE.

ModelClient      the actor (``StreamMessage`` -> ``ModelEvent``s; ``DescribeProvider`` and
                 ``ProbeApi`` for ``legato config`` and ``doctor``, in checks.py)
MessagesClient   one streamed call with retries, usable without the actor (client.py)
MessageAssembler stream events -> ``ModelEvent``s and the final message (assembler.py)
SSEDecoder       bytes -> server-sent events (sse.py)
"""

from __future__ import annotations

from actors.model_client.actor import ModelClient

__all__ = ["ModelClient"]
