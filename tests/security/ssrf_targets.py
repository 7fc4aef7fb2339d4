"""Where SSRF attacks point: host names with what they resolve to on the real Internet, served
by a fake ``getaddrinfo``, and the refusals a URL to them gets.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Any

PUBLIC_V4 = "93.184.215.14"  # example.com
NOT_PUBLIC = "The URL must point to a public host, not a local or private address."
NOT_RESOLVED = NOT_PUBLIC  # one answer: registration does not tell which names resolve

# What these names resolve to on the Internet (localtest.me and nip.io are public wildcards).
DNS = {
    "localtest.me": ["127.0.0.1"],
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "10.0.0.5.nip.io": ["10.0.0.5"],
    "metadata.google.internal": ["169.254.169.254"],
    "v6-loopback.example": ["::1"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "nat64.example": ["64:ff9b::7f00:1"],
    "nat64-local.example": ["64:ff9b:1::a00:1"],
    "sixtofour.example": ["2002:c0a8:0101::1"],  # 6to4 of 192.168.1.1
    "teredo.example": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    "cgnat.example": ["100.64.0.1"],
    "multicast.example": ["224.0.0.251"],
    "multicast6.example": ["ff02::1"],
    "unspecified.example": ["0.0.0.0"],  # noqa: S104 - an attack target, not a bind address
    "reserved.example": ["240.0.0.1"],
    "ula.example": ["fd00::1"],
    "mixed.example": [PUBLIC_V4, "10.1.2.3"],  # one private record is enough to refuse
    "acme.example": [PUBLIC_V4],
    "dns64-public.example": ["64:ff9b::5db8:d70e"],  # NAT64 of 93.184.215.14
    "v6-public.example": ["2606:4700:4700::1111"],
}


def fake_getaddrinfo(table: dict[str, list[str]]) -> Callable[..., list]:
    real = socket.getaddrinfo

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        try:  # a literal (as the C library reads it, "2130706433" too): no DNS involved
            return real(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        results: list[tuple[Any, ...]] = []
        for text in table[host]:
            address = ipaddress.ip_address(text)
            if address.version == 4:
                results.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (text, int(port or 0))))
            else:
                results.append(
                    (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (text, int(port or 0), 0, 0))
                )
        return results

    return getaddrinfo
