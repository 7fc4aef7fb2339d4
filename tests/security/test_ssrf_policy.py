"""SSRF: the outbound policy of ``gpuquote.core.outbound``, pure: which
addresses are public, which names and literals it refuses, what an operator may allow.

The host is resolved, every address must be global (or explicitly allowed by
``OUTBOUND_ALLOW_PRIVATE_HOSTS``), and the connection goes to the vetted address. DNS is faked
(``dns`` in tests/security/conftest.py): the names resolve to what they resolve to on the real
Internet, and nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from gpuquote.core.outbound import (
    OutboundPolicy,
    OutboundRefusedError,
    address_is_public,
    outbound_target,
)
from tests.security.ssrf_targets import DNS, PUBLIC_V4

INTERNAL_NAMES = [name for name in DNS if name not in ("acme.example", "dns64-public.example")]
INTERNAL_NAMES.remove("v6-public.example")


@pytest.mark.parametrize("name", INTERNAL_NAMES)
def test_policy_refuses_a_name_resolving_to_a_non_global_address(dns, name):
    with pytest.raises(OutboundRefusedError) as refused:
        outbound_target(f"https://{name}/hook", policy=OutboundPolicy())
    assert refused.value.reason == "address"


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[64:ff9b::7f00:1]",
        "[64:ff9b::a9fe:a9fe]",  # NAT64 of 169.254.169.254
        "[64:ff9b:1::a00:1]",
        "[2002:7f00:1::1]",
        "169.254.169.254",
        "100.100.100.200",  # CGNAT (Alibaba Cloud metadata)
        "0.0.0.0",  # noqa: S104
        "[fe80::1]",
        "224.0.0.1",
        "2130706433",  # 127.0.0.1 written as one number: not a host we accept either way
    ],
)
def test_policy_refuses_a_non_global_address_literal(dns, host):
    with pytest.raises(OutboundRefusedError):
        outbound_target(f"https://{host}/hook", policy=OutboundPolicy())


@pytest.mark.parametrize(
    "text",
    ["64:ff9b::7f00:1", "::ffff:10.0.0.1", "2002:a00:1::1", "64:ff9b:1::808:808", "ff0e::1"],
)
def test_addresses_embedding_a_private_ipv4_are_not_public(text):
    assert address_is_public(ipaddress.ip_address(text)) is False


@pytest.mark.parametrize(
    "text", [PUBLIC_V4, "2606:4700:4700::1111", "64:ff9b::808:808", "::ffff:8.8.8.8"]
)
def test_global_addresses_are_public(text):
    assert address_is_public(ipaddress.ip_address(text)) is True


@pytest.mark.parametrize("name", ["acme.example", "dns64-public.example", "v6-public.example"])
def test_policy_accepts_a_name_resolving_to_global_addresses_only(dns, name):
    target = outbound_target(f"https://{name}/hook?x=1", policy=OutboundPolicy())
    assert (target.host, target.port, target.path) == (name, 443, "/hook?x=1")
    assert [str(a) for a in target.addresses] == [str(ipaddress.ip_address(a)) for a in DNS[name]]


def test_policy_allows_private_hosts_only_when_listed(dns):
    policy = OutboundPolicy.from_entries(["10.0.0.0/8", "localtest.me"])
    assert [str(a) for a in outbound_target("http://10.0.0.5.nip.io/", policy=policy).addresses]
    assert outbound_target("http://localtest.me:8080/", policy=policy).port == 8080
    with pytest.raises(OutboundRefusedError):
        outbound_target("http://127.0.0.1.nip.io/", policy=policy)
    with pytest.raises(OutboundRefusedError):
        outbound_target("http://metadata.google.internal/", policy=policy)


def test_policy_requires_https_when_told(dns):
    with pytest.raises(OutboundRefusedError) as refused:
        outbound_target("http://acme.example/", policy=OutboundPolicy(https_only=True))
    assert refused.value.reason == "scheme"


def test_the_outbound_policy_module_imports_no_framework_at_load():
    """Only ``outbound_policy``/``outbound_url_errors`` read Django, lazily, inside the call."""
    import ast

    import gpuquote.core.outbound as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    top_level = [
        node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert [name for name in top_level if name and name.split(".")[0] == "django"] == []
