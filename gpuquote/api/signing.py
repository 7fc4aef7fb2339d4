"""API keys and webhook signatures: pure functions, no Django.

A key reads ``gq_<prefix>_<secret>``: the prefix (8 hex digits) is public and finds the key's
row; only the SHA-256 of the whole key is stored. Webhook bodies are signed with HMAC-SHA256 over
``"<unix timestamp>.<body>"`` and sent as ``GPUQuote-Signature: t=<timestamp>,v1=<hex>``;
receivers recompute it and reject timestamps older than a few minutes (replays).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

KEY_PATTERN = re.compile(r"^gq_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$")
SIGNATURE_HEADER = "GPUQuote-Signature"
SIGNATURE_TOLERANCE_S = 300  # what docs/api.md tells receivers to accept


@dataclass(frozen=True, slots=True)
class NewKey:
    prefix: str
    raw: str  # shown once, never stored
    hash: str


def key_new() -> NewKey:
    prefix = secrets.token_hex(4)
    raw = f"gq_{prefix}_{secrets.token_urlsafe(32)}"
    return NewKey(prefix=prefix, raw=raw, hash=key_hash(raw))


def key_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def key_prefix(raw: str) -> str | None:
    """The prefix of a well-formed key, None for anything else."""
    match = KEY_PATTERN.match(raw)
    return match.group(1) if match else None


def key_matches(raw: str, stored_hash: str) -> bool:
    return hmac.compare_digest(key_hash(raw), stored_hash)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    message = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    return f"t={timestamp},v1={signature(secret, timestamp, body)}"


def signature_verify(
    secret: str, header: str, body: bytes, *, now: int, tolerance_s: int = SIGNATURE_TOLERANCE_S
) -> bool:
    """What a receiver does: parse the header, check the age, compare in constant time."""
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance_s:
        return False
    return hmac.compare_digest(signature(secret, timestamp, body), parts.get("v1", ""))
