"""Where requests go and with which key: environment first, then the global config.

Key order: ``ASSISTANT_API_KEY``, then ``apiKey`` in the global config, then
``ANTHROPIC_API_KEY`` (so a machine already set up for other Anthropic tools just works). The
key is kept out of every repr and message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from actors.errors import REMEDY_API_KEY

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.protocol import GlobalConfig
    from actors.proxies import Proxy

DEFAULT_BASE_URL = "https://api.anthropic.com"
CONFIG_FILE = "~/.config/legato/config.json"
CONFIG_KEY_SOURCE = f"apiKey in {CONFIG_FILE}"


@dataclass(frozen=True, slots=True)
class Endpoint:
    base_url: str  # no trailing slash and no /v1: the paths add it
    api_key: str | None = field(repr=False)
    key_source: str | None = None  # where the key came from, to name it in error messages
    base_url_source: str | None = None  # "ASSISTANT_BASE_URL" when the address was configured
    proxy: Proxy | None = None  # the proxy requests go through, to name it when it fails

    @property
    def messages_url(self) -> str:
        return f"{self.base_url}/v1/messages"

    def redact(self, text: str) -> str:
        """``text`` with the key cut out, for anything built from a server's words."""
        if self.api_key:
            return text.replace(self.api_key, "[API key]")
        return text


def resolve_endpoint(env: Mapping[str, str], config: GlobalConfig) -> Endpoint:
    key, source = None, None
    for value, name in (
        (env.get("ASSISTANT_API_KEY"), "ASSISTANT_API_KEY"),
        (config.api_key, CONFIG_KEY_SOURCE),
        (env.get("ANTHROPIC_API_KEY"), "ANTHROPIC_API_KEY"),
    ):
        if value and value.strip():
            key, source = value.strip(), name
            break
    configured = (env.get("ASSISTANT_BASE_URL") or "").strip()
    return Endpoint(
        base_url=normalise_base_url(configured or DEFAULT_BASE_URL),
        api_key=key,
        key_source=source,
        base_url_source="ASSISTANT_BASE_URL" if configured else None,
    )


def key_remedy(source: str | None) -> str:
    """What to do about a refused key, for the place it was read from: checking
    ASSISTANT_API_KEY does not help someone whose key came from the config file."""
    if source is None or source == "ASSISTANT_API_KEY":
        return REMEDY_API_KEY
    if source == CONFIG_KEY_SOURCE:
        return (
            f"Check apiKey in {CONFIG_FILE}, then set it again there "
            "(or set ASSISTANT_API_KEY, which is used before it)"
        )
    remedy = f"Run 'echo ${source}' to check the key, then set it again"
    if source == "ANTHROPIC_API_KEY":
        # The last place looked: a key set in either of the others would be used instead.
        remedy += (
            f" (or set ASSISTANT_API_KEY or apiKey in {CONFIG_FILE}, which are used before it)"
        )
    return remedy


def normalise_base_url(url: str) -> str:
    """Accept ``https://host``, ``https://host/`` and ``https://host/v1`` alike."""
    url = url.rstrip("/")
    return url.removesuffix("/v1").rstrip("/")
