"""API keys and webhook signatures (gpuquote.api.signing): pure functions, no database."""

import hashlib
import hmac

import pytest

from gpuquote.api.signing import (
    KEY_PATTERN,
    SIGNATURE_HEADER,
    SIGNATURE_TOLERANCE_S,
    key_hash,
    key_matches,
    key_new,
    key_prefix,
    signature,
    signature_header,
    signature_verify,
)

SECRET = "whsec_test_secret"
TIMESTAMP = 1_767_225_600  # 2026-01-01T00:00:00Z
BODY = b'{"id":"evt_1","type":"webhook.ping"}'
# Computed outside Python: printf '%s' '1767225600.<BODY>' | openssl dgst -sha256 -hmac <SECRET>
KNOWN_SIGNATURE = "45a75d10396609c9573333b999eab63e325ddb67ecab445c65c799948cc4e397"


# --- Keys -------------------------------------------------------------------------------------


def test_a_new_key_reads_gq_prefix_secret_and_is_stored_as_its_sha256():
    new = key_new()

    assert KEY_PATTERN.match(new.raw)
    assert new.raw.startswith(f"gq_{new.prefix}_")
    assert len(new.prefix) == 8
    assert int(new.prefix, 16) >= 0  # hex digits
    assert len(new.raw) == len("gq_") + 8 + len("_") + 43  # 32 random bytes, base64url
    assert new.hash == hashlib.sha256(new.raw.encode()).hexdigest()
    assert new.hash == key_hash(new.raw)
    assert new.raw not in new.hash


def test_new_keys_differ():
    keys = [key_new() for _ in range(50)]
    assert len({key.raw for key in keys}) == 50
    assert len({key.prefix for key in keys}) > 1


def test_key_hash_known_answer():
    raw = "gq_0123abcd_" + "A" * 43
    # printf '%s' <raw> | sha256sum
    assert key_hash(raw) == "e9f005d305b66c9d48f0869c76f71f666c2ff0bcf1ddb9abd03d2862de53c320"


def test_the_prefix_of_a_well_formed_key_only():
    assert key_prefix("gq_0123abcd_" + "A" * 43) == "0123abcd"
    for malformed in (
        "",
        "gq_0123abcd",
        "gq_0123ABCD_" + "A" * 43,  # the prefix is lower-case hex
        "gq_0123abc_" + "A" * 43,
        "gq_0123abcd_" + "A" * 42,
        "xx_0123abcd_" + "A" * 43,
        "gq_0123abcd_" + "A" * 42 + "=",
    ):
        assert key_prefix(malformed) is None, malformed


def test_a_key_matches_its_own_hash_only():
    new, other = key_new(), key_new()
    assert key_matches(new.raw, new.hash)
    assert not key_matches(other.raw, new.hash)
    assert not key_matches(new.raw + "x", new.hash)


# --- Webhook signatures -----------------------------------------------------------------------


def test_the_signature_is_hmac_sha256_over_timestamp_dot_body():
    expected = hmac.new(
        SECRET.encode(), f"{TIMESTAMP}.".encode() + BODY, hashlib.sha256
    ).hexdigest()

    assert signature(SECRET, TIMESTAMP, BODY) == expected == KNOWN_SIGNATURE


def test_the_header_names_the_timestamp_and_the_v1_signature():
    assert SIGNATURE_HEADER == "GPUQuote-Signature"
    assert signature_header(SECRET, TIMESTAMP, BODY) == f"t={TIMESTAMP},v1={KNOWN_SIGNATURE}"


def test_a_receiver_accepts_the_header_within_the_tolerance():
    header = signature_header(SECRET, TIMESTAMP, BODY)

    assert signature_verify(SECRET, header, BODY, now=TIMESTAMP)
    assert signature_verify(SECRET, header, BODY, now=TIMESTAMP + SIGNATURE_TOLERANCE_S)
    assert signature_verify(SECRET, header, BODY, now=TIMESTAMP - SIGNATURE_TOLERANCE_S)


def test_an_old_timestamp_is_refused_as_a_replay():
    header = signature_header(SECRET, TIMESTAMP, BODY)

    assert SIGNATURE_TOLERANCE_S == 300
    assert not signature_verify(SECRET, header, BODY, now=TIMESTAMP + SIGNATURE_TOLERANCE_S + 1)
    assert not signature_verify(SECRET, header, BODY, now=TIMESTAMP + 3600)
    assert signature_verify(SECRET, header, BODY, now=TIMESTAMP + 3600, tolerance_s=3600)


def test_a_changed_body_is_refused():
    header = signature_header(SECRET, TIMESTAMP, BODY)

    assert not signature_verify(SECRET, header, BODY.replace(b"ping", b"pong"), now=TIMESTAMP)
    assert not signature_verify(SECRET, header, BODY + b" ", now=TIMESTAMP)


def test_a_wrong_secret_is_refused():
    header = signature_header(SECRET, TIMESTAMP, BODY)

    assert not signature_verify("whsec_other", header, BODY, now=TIMESTAMP)


def test_a_timestamp_moved_in_the_header_is_refused():
    """The timestamp is signed: taking a fresh one for an old signature does not verify."""
    forged = f"t={TIMESTAMP + 1000},v1={KNOWN_SIGNATURE}"

    assert not signature_verify(SECRET, forged, BODY, now=TIMESTAMP + 1000)


@pytest.mark.parametrize(
    "header",
    [
        "",
        "garbage",
        f"v1={KNOWN_SIGNATURE}",  # no timestamp
        f"t=soon,v1={KNOWN_SIGNATURE}",
        f"t={TIMESTAMP}",  # no signature
        f"t={TIMESTAMP},v1=",
        f"t={TIMESTAMP},v1={KNOWN_SIGNATURE.upper()}",
    ],
)
def test_malformed_headers_are_refused(header):
    assert not signature_verify(SECRET, header, BODY, now=TIMESTAMP)
