"""Amazon Bedrock: the same Claude models through Bedrock's streaming invoke endpoint.

Selected when ``CLOUD_ACCESS_KEY_ID`` and ``CLOUD_SECRET_ACCESS_KEY`` are set, in
``CLOUD_REGION``. Requests are signed with AWS Signature V4 by botocore's signer, and the answer's
AWS event-stream framing is decoded by botocore's parser (checksums included): neither is
hand-rolled. Each event-stream ``chunk`` holds, base64-encoded, one Messages API event, which
the ordinary ``MessageAssembler`` then reads.

botocore is imported when the first Bedrock request is prepared, never on the Anthropic path.
It is an optional extra (``legato[bedrock]``): without it, that first request fails with a
``MissingExtra`` naming the extra, and ``legato doctor`` says so without importing anything.
"""

from __future__ import annotations

import base64
import importlib.util
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

import msgspec

from actors.errors import (
    ApiError,
    AuthenticationError,
    ConnectionFailed,
    MissingExtra,
    RateLimited,
    RequestRejected,
    ServerError,
    StreamFailed,
)
from actors.model_client.assembler import MessageAssembler
from actors.model_client.client import MessagesClient
from actors.model_client.endpoint import Endpoint
from actors.model_client.http import FAST_MODE_BETA
from actors.model_client.sse import ServerSentEvent
from actors.models import resolve_model
from actors.nesting import MAX_DEPTH, too_deep

if TYPE_CHECKING:
    from collections.abc import Mapping

    import httpx

    from actors.model_client.client import Assembler, Decoder
    from actors.protocol import ModelRequest

ACCESS_KEY = "CLOUD_ACCESS_KEY_ID"
SECRET_KEY = "CLOUD_SECRET_ACCESS_KEY"
SESSION_TOKEN = "CLOUD_SESSION_TOKEN"
REGION = "CLOUD_REGION"
MODEL_PREFIX = "CLOUD_MODEL_PREFIX"  # an inference-profile prefix: us, eu, global
URL_OVERRIDE = "ASSISTANT_BEDROCK_URL"  # a VPC endpoint, or a test server
BEDROCK_VERSION = "bedrock-2023-05-31"
SERVICE = "bedrock"

# Model table id -> Bedrock model id.
BEDROCK_IDS = {
    "claude-opus-4-6": "anthropic.claude-opus-4-6-v1",
    "claude-sonnet-4-6": "anthropic.claude-sonnet-4-6",
    "claude-haiku-4-5-20251001": "anthropic.claude-haiku-4-5-20251001-v1:0",
}
REMEDY_CLOUD = (
    f"Check {ACCESS_KEY}, {SECRET_KEY} and {REGION} (echo them), then set them again; "
    f"unset {ACCESS_KEY} to use the Anthropic API instead"
)
REMEDY_EXTRA = (
    "Install Legato with its bedrock extra: pip install 'legato[bedrock]' "
    f"(or uv tool install 'legato[bedrock]'); or unset {ACCESS_KEY} to use the Anthropic API"
)


def region_missing(env: Mapping[str, str]) -> AuthenticationError | None:
    """The error for Bedrock with no region, or None when one is set."""
    if (env.get(REGION) or "").strip():
        return None
    return AuthenticationError(
        f"{ACCESS_KEY} is set, so Amazon Bedrock is used, but {REGION} is empty",
        remedy=f"Set {REGION} to the Bedrock region, e.g. export {REGION}=us-east-1",
    )


def bedrock_selected(env: Mapping[str, str]) -> bool:
    return bool((env.get(ACCESS_KEY) or "").strip() and (env.get(SECRET_KEY) or "").strip())


def botocore_missing(error: ImportError | None = None) -> MissingExtra:
    """The error for a Bedrock request when botocore is not there (or will not import)."""
    why = "is not installed"
    if error is not None and (error.name or "").partition(".")[0] != "botocore":
        why = f"cannot be imported ({error})"  # installed, but something it needs is not
    return MissingExtra(
        f"{ACCESS_KEY} is set, so Amazon Bedrock is used, but Legato's 'bedrock' extra "
        f"(botocore) {why}",
        remedy=REMEDY_EXTRA,
    )


def botocore_installed() -> bool:
    """Found, not imported: importing botocore takes about 0.4 s."""
    return importlib.util.find_spec("botocore") is not None


def bedrock_endpoint(env: Mapping[str, str]) -> Endpoint:
    region = (env.get(REGION) or "").strip()
    configured = (env.get(URL_OVERRIDE) or "").strip().rstrip("/")
    base = configured or f"https://bedrock-runtime.{region}.amazonaws.com"
    return Endpoint(
        base_url=base,
        api_key=None,
        key_source=f"{ACCESS_KEY} and {SECRET_KEY}",
        base_url_source=URL_OVERRIDE if configured else None,
    )


def bedrock_model_id(model: str, env: Mapping[str, str]) -> str:
    """An alias or model id -> the Bedrock id, with the inference-profile prefix if one is set."""
    info = resolve_model(model)
    found = BEDROCK_IDS.get(info.id)
    if found is None:
        raise RequestRejected(
            f"model {model!r} has no known Amazon Bedrock id",
            remedy="Use --model opus, sonnet or haiku with Bedrock, or unset "
            f"{ACCESS_KEY} to use the Anthropic API",
        )
    prefix = (env.get(MODEL_PREFIX) or "").strip().rstrip(".")
    return f"{prefix}.{found}" if prefix else found


def bedrock_body(request: ModelRequest) -> bytes:
    """The Messages API body without ``model`` and ``stream``, plus Bedrock's version field."""
    fields: dict[str, Any] = msgspec.to_builtins(request)
    del fields["model"]
    speed = fields.pop("speed", None)
    fields["anthropic_version"] = BEDROCK_VERSION
    if speed == "fast":
        fields["anthropic_beta"] = [FAST_MODE_BETA]
    return msgspec.json.encode(fields)


class BedrockClient(MessagesClient):
    content_type = "application/vnd.amazon.eventstream"

    def __init__(self, *args: Any, env: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._env = env

    def prepare(self, request: ModelRequest) -> tuple[str, bytes, dict[str, str]]:
        try:
            from botocore.auth import SigV4Auth
            from botocore.awsrequest import AWSRequest
            from botocore.credentials import Credentials
        except ImportError as error:
            raise botocore_missing(error) from None

        missing = region_missing(self._env)
        if missing is not None:
            raise missing
        region = self._env[REGION].strip()
        if not self.endpoint.base_url.startswith(("http://", "https://")):
            raise ConnectionFailed(
                f"{URL_OVERRIDE} is {self.endpoint.base_url!r}, which is not an http(s) address",
                remedy=f"Unset {URL_OVERRIDE} to use the region's Bedrock address",
            )
        model_id = quote(bedrock_model_id(request.model, self._env), safe="")
        url = f"{self.endpoint.base_url}/model/{model_id}/invoke-with-response-stream"
        body = bedrock_body(request)
        signed = AWSRequest(
            method="POST",
            url=url,
            data=body,
            headers={"content-type": "application/json", "accept": self.content_type},
        )
        credentials = Credentials(
            self._env[ACCESS_KEY].strip(),
            self._env[SECRET_KEY].strip(),
            (self._env.get(SESSION_TOKEN) or "").strip() or None,
        )
        SigV4Auth(credentials, SERVICE, region).add_auth(signed)
        return url, body, dict(signed.headers.items())

    def status_failure(self, status: int, headers: httpx.Headers, body: bytes) -> ApiError:
        kind = headers.get("x-amzn-errortype", "").split(":", 1)[0] or f"HTTP {status}"
        try:
            message = str(msgspec.json.decode(body).get("message", ""))
        except (msgspec.DecodeError, AttributeError):
            message = body.decode("utf-8", errors="replace").strip().split("\n", 1)[0][:200]
        detail = f"HTTP {status} {kind}: {message}" if message else f"HTTP {status} {kind}"
        request_id = headers.get("x-amzn-requestid")
        if status in (401, 403):
            return AuthenticationError(
                f"Amazon Bedrock refused the cloud credentials ({detail})",
                status=status,
                request_id=request_id,
                remedy=REMEDY_CLOUD,
            )
        if status == 429:
            return RateLimited(
                f"Amazon Bedrock is throttling ({detail})", status=status, request_id=request_id
            )
        if status >= 500:
            return ServerError(
                f"Amazon Bedrock failed to answer ({detail})", status=status, request_id=request_id
            )
        return RequestRejected(
            f"Amazon Bedrock rejected the request ({detail})",
            status=status,
            request_id=request_id,
            remedy="Check that the model is enabled for your account in this region"
            if status == 404
            else None,
        )

    def decoders(self, request_id: str | None) -> tuple[Decoder, Assembler]:
        return EventStreamDecoder(request_id), MessageAssembler(request_id=request_id)


class EventStreamDecoder:
    """AWS event-stream frames -> the Messages API events inside them, as SSE events."""

    def __init__(self, request_id: str | None = None) -> None:
        from botocore.eventstream import EventStreamBuffer

        self._buffer = EventStreamBuffer()
        self._request_id = request_id

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        from botocore.eventstream import ParserError

        self._buffer.add_data(chunk)
        out: list[ServerSentEvent] = []
        try:
            while True:
                try:
                    frame = self._buffer.next()
                except StopIteration:  # no complete frame left: the rest comes with more bytes
                    break
                # botocore-stubs types ``headers`` as int; at run time it is the header dict.
                headers = cast("Mapping[str, Any]", frame.headers)
                out.append(self._event(headers, frame.payload))
        except ParserError as exc:
            raise StreamFailed(
                f"The answer stream broke: an unreadable event-stream frame ({exc})",
                request_id=self._request_id,
            ) from None
        return out

    def finish(self) -> list[ServerSentEvent]:
        return []  # a frame cut short is not an event; the assembler reports the missing end

    def _event(self, headers: Mapping[str, Any], payload: bytes) -> ServerSentEvent:
        kind = headers.get(":message-type")
        if kind != "event":
            name = headers.get(":exception-type") or headers.get(":error-code") or kind
            try:
                message = msgspec.json.decode(payload).get("message", "")
            except (msgspec.DecodeError, AttributeError):
                message = payload.decode("utf-8", errors="replace")[:200]
            raise StreamFailed(
                f"Amazon Bedrock reported an error during the answer: {name}: {message}",
                request_id=self._request_id,
            )
        try:
            inner = base64.b64decode(msgspec.json.decode(_shallow(payload))["bytes"])
            event_type = msgspec.json.decode(_shallow(inner))["type"]
        except (msgspec.DecodeError, KeyError, TypeError, ValueError) as exc:
            raise StreamFailed(
                f"The answer stream broke: an unreadable Bedrock chunk ({exc!r})",
                request_id=self._request_id,
            ) from None
        return ServerSentEvent(str(event_type), inner.decode("utf-8"))


def _shallow(data: bytes) -> bytes:
    """``data`` when it nests no deeper than a JSON text may; the decoder would recurse."""
    if too_deep(data) is not None:
        raise ValueError(f"a JSON text nested past {MAX_DEPTH} levels")
    return data
