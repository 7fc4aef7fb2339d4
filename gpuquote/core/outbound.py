"""Outbound HTTP(S) guarded against SSRF: the one way GPUQuote calls a URL someone else chose.

Partner webhooks and price feeds both come through here. For every request (and every redirect
hop, if the caller follows them) the host is resolved once with ``socket.getaddrinfo``; every
address it resolves to must be global (``address_is_public``) unless the operator allowed it
(``OutboundPolicy``: host names or networks, the ``OUTBOUND_ALLOW_PRIVATE_HOSTS`` setting). The
connection then goes to a vetted address, never to the name again, so DNS cannot answer a
public address to the check and a private one to the connection (rebinding); TLS still checks
the certificate against the host name (SNI) and the ``Host`` header keeps the name.

Redirects are never followed here, proxies from the environment are not used, and the caller
gets the ``http.client`` response to read with its own size cap.

Pure Python: only ``outbound_policy`` and ``outbound_url_errors`` read Django (lazily), so the
policy is testable without Django settings.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

SCHEMES = {"http": 80, "https": 443}
# IPv6 prefixes carrying an IPv4 address in their last 32 bits (RFC 6052 well-known NAT64).
NAT64_WELL_KNOWN = ipaddress.IPv6Network("64:ff9b::/96")
# Local-use NAT64 (RFC 8215): translated by a site's own gateway, never a public destination.
NAT64_LOCAL_USE = ipaddress.IPv6Network("64:ff9b:1::/48")
# Shared address space (RFC 6598, carrier-grade NAT); named although is_global covers it.
CGNAT = ipaddress.IPv4Network("100.64.0.0/10")


class OutboundRefusedError(Exception):
    """The URL may not be called. ``reason``: "url" (not a usable http(s) URL), "scheme"
    (http where https is required) or "address" (a non-public address).

    The message is for the operator's logs and staff screens, never for partners."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def address_is_public(address: IPAddress) -> bool:
    """Whether an address is a public Internet destination: global, unicast, and not a
    translation (IPv4-mapped, NAT64, 6to4, Teredo) of an address that is not."""
    if isinstance(address, ipaddress.IPv6Address):  # translations first (all in "reserved")
        if address.ipv4_mapped is not None:
            return address_is_public(address.ipv4_mapped)
        if address in NAT64_LOCAL_USE:
            return False
        if address in NAT64_WELL_KNOWN:
            return address_is_public(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if (
        address.is_multicast
        or address.is_unspecified
        or address.is_reserved
        or address.is_loopback
        or address.is_link_local
        or address.is_private
    ):
        return False
    if isinstance(address, ipaddress.IPv4Address):
        return address not in CGNAT and address.is_global
    if address.sixtofour is not None and not address_is_public(address.sixtofour):
        return False
    if address.teredo is not None:
        return all(address_is_public(embedded) for embedded in address.teredo)
    return address.is_global


@dataclass(frozen=True, slots=True)
class OutboundPolicy:
    """What may be called besides public addresses. ``allowed_hosts``: host names (lower case)
    whose addresses are not checked; ``allowed_networks``: private networks that are allowed."""

    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()
    https_only: bool = False
    # Ports a public address may be called on (None: any); the allowed hosts and networks above
    # are an operator's own services, on whatever port they listen.
    allowed_ports: frozenset[int] | None = None

    @classmethod
    def from_entries(
        cls,
        entries: Iterable[str],
        *,
        https_only: bool = False,
        ports: Iterable[int | str] | None = None,
    ) -> OutboundPolicy:
        """From host names and networks ("10.20.0.0/16", "127.0.0.1", "prices.internal")."""
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for entry in entries:
            text = entry.strip().strip("[]").lower()
            if not text:
                continue
            try:
                networks.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                hosts.add(text.rstrip("."))
        allowed_ports = None if ports is None else frozenset(int(port) for port in ports)
        return cls(frozenset(hosts), tuple(networks), https_only, allowed_ports)

    def explicitly_allowed(self, address: IPAddress) -> bool:
        return any(
            address.version == network.version and address in network
            for network in self.allowed_networks
        )

    def address_allowed(self, address: IPAddress) -> bool:
        return address_is_public(address) or any(
            address.version == network.version and address in network
            for network in self.allowed_networks
        )


@dataclass(frozen=True, slots=True)
class OutboundTarget:
    """A vetted URL: where to connect (``addresses``, in resolver order) and what to ask."""

    url: str
    scheme: str
    host: str
    port: int
    path: str  # path and query, as sent in the request line
    addresses: tuple[IPAddress, ...] = field(default=())


def _host_addresses(host: str, port: int) -> list[IPAddress]:
    """Every address the host resolves to (literals without DNS); ``OSError`` if none."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise socket.gaierror(socket.EAI_NONAME, f"{host} has no address")
    return addresses


def _is_name(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return True
    return False


def outbound_target(url: str, *, policy: OutboundPolicy) -> OutboundTarget:
    """Check and resolve a URL. Raises ``OutboundRefusedError`` when the policy refuses it and
    ``OSError`` (``socket.gaierror``) when the host name does not resolve."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise OutboundRefusedError("url", f"{url!r} is not a valid URL") from exc
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in SCHEMES or not host:
        raise OutboundRefusedError("url", f"{url!r} is not an http(s) URL")
    if policy.https_only and scheme != "https":
        raise OutboundRefusedError("scheme", f"{url!r}: only https is allowed")
    if parts.username is not None or parts.password is not None:
        raise OutboundRefusedError("url", f"{url!r}: credentials in the URL are not sent")
    port = SCHEMES[scheme] if port is None else port
    operator_host = host in policy.allowed_hosts
    addresses = _host_addresses(host, port)
    if host not in policy.allowed_hosts:
        refused = [str(address) for address in addresses if not policy.address_allowed(address)]
        if refused:
            where = f"{host} resolves to {', '.join(refused)}," if _is_name(host) else host
            raise OutboundRefusedError(
                "address",
                f"{where} not a public address "
                "(OUTBOUND_ALLOW_PRIVATE_HOSTS lists the private hosts allowed)",
            )
    if (
        policy.allowed_ports is not None
        and port not in policy.allowed_ports
        and not operator_host
        and not all(policy.explicitly_allowed(address) for address in addresses)
    ):
        raise OutboundRefusedError("port", f"{url!r}: port {port} is not allowed")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return OutboundTarget(url, scheme, host, port, path, tuple(addresses))


def _connect(address: IPAddress, port: int, timeout: float | None) -> socket.socket:
    family = socket.AF_INET if address.version == 4 else socket.AF_INET6
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect((str(address), port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except BaseException:
        sock.close()
        raise
    return sock


class _VettedHTTPConnection(http.client.HTTPConnection):
    """Connects to the vetted address; the request and its Host header name the host."""

    def __init__(self, target: OutboundTarget, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._target = target

    def connect(self) -> None:
        self.sock = _open_first(self._target, self.timeout)


class _VettedHTTPSConnection(http.client.HTTPSConnection):
    """The same over TLS: SNI and the certificate check use the host name."""

    def __init__(self, target: OutboundTarget, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(target.host, target.port, timeout=timeout, context=self._tls)
        self._target = target

    def connect(self) -> None:
        sock = _open_first(self._target, self.timeout)
        try:
            self.sock = self._tls.wrap_socket(sock, server_hostname=self._target.host)
        except BaseException:
            sock.close()
            raise


def _open_first(target: OutboundTarget, timeout: float | None) -> socket.socket:
    """A connection to the first vetted address that answers (never a new lookup)."""
    error: OSError | None = None
    for address in target.addresses:
        try:
            return _connect(address, target.port, timeout)
        except OSError as exc:
            error = exc
    raise error or OSError(f"no address to connect to for {target.host}")


@contextmanager
def outbound_request(
    url: str,
    *,
    policy: OutboundPolicy,
    method: str = "GET",
    body: bytes | None = None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float,
    deadline_s: float | None = None,
) -> Iterator[http.client.HTTPResponse]:
    """Send one request to a vetted address; the answer, whatever its status (3xx included:
    redirects are the caller's to follow, through this function again). Raises
    ``OutboundRefusedError``, ``OSError`` (DNS, connection, timeout, TLS) or
    ``http.client.HTTPException`` (a malformed answer).

    ``timeout_s`` bounds each connect and each read; ``deadline_s`` bounds the whole exchange
    (connect, TLS, request, answer and the caller's reads inside the ``with``): at the deadline
    the connection is shut down and the exchange raises ``TimeoutError``, so a receiver that
    drips a byte just under ``timeout_s`` cannot hold the caller."""
    target = outbound_target(url, policy=policy)
    connection_class = _VettedHTTPSConnection if target.scheme == "https" else _VettedHTTPConnection
    per_step_s = timeout_s if deadline_s is None else min(timeout_s, deadline_s)
    connection = connection_class(target, per_step_s)
    expired = threading.Event()

    def cut() -> None:
        expired.set()
        sock = connection.sock
        if sock is not None:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = None if deadline_s is None else threading.Timer(deadline_s, cut)
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        connection.request(method, target.path, body=body, headers=dict(headers or {}))
        response = connection.getresponse()
        try:
            yield response
        finally:
            response.close()
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set():
            raise TimeoutError(f"no complete answer within {deadline_s:g} s") from exc
        raise
    finally:
        if timer is not None:
            timer.cancel()
        connection.close()
    if expired.is_set():  # the answer was cut short but read without an error
        raise TimeoutError(f"no complete answer within {deadline_s:g} s")


# --- Django side (lazy imports: the policy above needs no settings) ------------------------------


def outbound_policy(*, https_only: bool = False) -> OutboundPolicy:
    """The policy from the ``OUTBOUND_ALLOW_PRIVATE_HOSTS`` setting."""
    from django.conf import settings

    return OutboundPolicy.from_entries(
        settings.OUTBOUND_ALLOW_PRIVATE_HOSTS,
        https_only=https_only,
        ports=settings.OUTBOUND_ALLOWED_PORTS,
    )


def outbound_url_errors(url: str, *, https_only: bool = False) -> list[Any]:
    """Why a URL someone registers (a webhook, a price feed) is refused, as translated messages
    for the field; [] when it may be called. Resolves the host now; delivery checks again."""
    from django.conf import settings
    from django.utils.translation import gettext as _

    try:
        outbound_target(url, policy=outbound_policy(https_only=https_only))
    except OutboundRefusedError as exc:
        if exc.reason == "scheme":
            return [_("Use an https:// URL: webhooks are sent over TLS only.")]
        if exc.reason == "address":
            return [_("The URL must point to a public host, not a local or private address.")]
        if exc.reason == "port":
            ports = ", ".join(str(port) for port in settings.OUTBOUND_ALLOWED_PORTS)
            return [_("Use port %(ports)s: other ports are not called.") % {"ports": ports}]
        return [_("Enter a valid http:// or https:// URL.")]
    except (OSError, UnicodeError):
        # the same answer as a private address: registration must not tell which names resolve
        return [_("The URL must point to a public host, not a local or private address.")]
    return []
