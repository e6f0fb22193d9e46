"""A second, independent AWS Signature V4 verifier, for the loopback Bedrock server.

The client signs with botocore; this checks with nothing but hashlib and hmac, following AWS's
published algorithm step by step, so a mistake in how the client uses botocore (a header left
unsigned, a path encoded differently from what is sent) fails here.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from tests.providers.loopback import Request

_AUTH = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<scope>[^,]+), "
    r"SignedHeaders=(?P<signed>[^,]+), Signature=(?P<signature>[0-9a-f]{64})$"
)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def verify(request: Request, *, access_key: str, secret: str, region: str, service: str) -> str:
    """'' when the signature is right, else what is wrong with it."""
    found = _AUTH.match(request.headers.get("authorization", ""))
    if found is None:
        return "no AWS4-HMAC-SHA256 authorization header"
    if found["key"] != access_key:
        return f"unknown access key {found['key']}"
    date = request.headers.get("x-amz-date", "")
    scope = f"{date[:8]}/{region}/{service}/aws4_request"
    if found["scope"] != scope:
        return f"credential scope {found['scope']} is not {scope}"
    signed = found["signed"].split(";")
    if "host" not in signed or "x-amz-date" not in signed:
        return "host and x-amz-date must be signed"
    if any(name not in request.headers for name in signed):
        return "a signed header was not sent"
    path, _, query = request.path.partition("?")
    canonical = "\n".join(
        [
            request.method,
            # Non-S3 services sign each path segment encoded twice: once in the URL as sent,
            # once more here.
            quote(path, safe="/-_.~"),
            query,
            "".join(f"{n}:{' '.join(request.headers[n].split())}\n" for n in signed),
            ";".join(signed),
            hashlib.sha256(request.body).hexdigest(),
        ]
    )
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = _hmac(f"AWS4{secret}".encode(), date[:8])
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, found["signature"]):
        return "the signature does not match"
    return ""
