"""Legato's own credentials, and an environment without them.

Legato's keys go to the model API and nowhere else (the collector's headers, which carry its
token, to the telemetry collector). Everything else Legato starts (a command
the model chose, a hook, an MCP server) gets the user's environment without them: the variables
the model client takes credentials from, and any other variable holding one of their values or
the ``apiKey`` of the global config (a key exported under a second name). One rule, here, for
each of those places: a second copy would one day disagree with the first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# The variables the model client takes credentials from (actors/model_client: endpoint.py,
# providers/openai.py, providers/bedrock.py), and the telemetry exporters' headers
# (actors/telemetry), which carry the collector's token: a command that could read them could
# send a fleet's telemetry, or anything, to the collector in the user's name.
LEGATO_CREDENTIALS = frozenset(
    {
        "ASSISTANT_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "CLOUD_ACCESS_KEY_ID",
        "CLOUD_SECRET_ACCESS_KEY",
        "CLOUD_SESSION_TOKEN",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
        "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    }
)


def credential_values(env: Mapping[str, str], secrets: Iterable[str | None] = ()) -> frozenset[str]:
    """The credentials Legato uses, as values: ``secrets`` (the configured ``apiKey``) and what
    ``env`` holds in the credential variables. Blank ones name nothing."""
    given = [*secrets, *(env.get(name) for name in LEGATO_CREDENTIALS)]
    return frozenset(value.strip() for value in given if value and value.strip())


def is_credential(name: str, value: str, values: frozenset[str]) -> bool:
    """Whether the variable ``name=value`` holds one of Legato's credentials (``values`` from
    ``credential_values``): as its whole value, or inside a longer one (a header, a proxy's
    address with the key as its password), as ``credential_in`` counts it."""
    return name in LEGATO_CREDENTIALS or credential_in(value, values)


def without_credentials(
    env: Mapping[str, str], *, secrets: Iterable[str | None] = ()
) -> dict[str, str]:
    """``env`` without Legato's credentials: the credential variables, and every variable whose
    value is one of theirs or one of ``secrets``. No setting lets one through."""
    values = credential_values(env, secrets)
    return {name: value for name, value in env.items() if not is_credential(name, value, values)}


# Within a longer text, only a value this long counts as a key: a short one (a test's "k") is
# found in any path. Keys issued by the providers are longer still.
KEY_LENGTH = 16


def credential_in(text: str, values: frozenset[str]) -> bool:
    """Whether ``text`` is one of ``values``, or holds one as long as a key anywhere (a header
    ``Bearer <key>``)."""
    return text.strip() in values or any(
        len(value) >= KEY_LENGTH and value in text for value in values
    )
